-- Issue 21's reliability controls: schedules that enqueue jobs of a kind, a timeout per job, and
-- unique keys that hold over a period (even once the first job finished) as well as while a job is
-- unfinished. Additive: new columns with defaults (or NULL), a new partial index, and functions
-- replaced; existing rows, jobs and schedules keep their meaning. Depends on 0004 (kind) and 0006.

-- The kind of the jobs a schedule enqueues (weir.postgres.queue.Schedule.withKind).
ALTER TABLE weir.schedules ADD COLUMN kind text NOT NULL DEFAULT 'default';

-- A job's own timeout (NULL: none but the worker's): the worker interrupts a handler that runs
-- longer and fails the attempt (weir.postgres.queue.NewJob.withTimeout). The bucket of a unique key
-- held over a period (NULL: unique only while unfinished): the start of the period, aligned to the
-- epoch, in which the job was inserted (NewJob.withUniqueKey(key, period), as River's ByPeriod).
-- Last on both tables, in the same order: weir.sweep_jobs copies rows with SELECT *.
ALTER TABLE weir.jobs ADD COLUMN timeout_ms bigint CHECK (timeout_ms > 0);
ALTER TABLE weir.jobs ADD COLUMN unique_period timestamptz;
ALTER TABLE weir.jobs_archive ADD COLUMN timeout_ms bigint;
ALTER TABLE weir.jobs_archive ADD COLUMN unique_period timestamptz;

-- At most one job per (queue, unique key, period), whatever its state: a second insert in the same
-- period is skipped even after the first job completed, until the retention sweep deletes it. The
-- unique index of 0001 (one unfinished job per queue and key) still applies to these jobs too.
CREATE UNIQUE INDEX jobs_unique_period ON weir.jobs (queue, unique_key, unique_period)
  WHERE unique_period IS NOT NULL;

-- The start of the period of `period_ms` milliseconds (aligned to the epoch) that `at` falls in.
CREATE FUNCTION weir.period_start(at timestamptz, period_ms bigint)
  RETURNS timestamptz LANGUAGE sql IMMUTABLE STRICT
AS $$
  SELECT timestamptz 'epoch'
         + (floor(extract(epoch FROM at) * 1000 / period_ms)::bigint * period_ms)
           * interval '1 millisecond'
$$;

-- weir.enqueue of 0004 with two more named arguments: `timeout` (the job's own, an interval; NULL
-- for none) and `unique_period` (an interval: the unique key then also holds over the period of
-- that length, aligned to the epoch, in which the job is inserted; it needs a unique_key). The old
-- signatures are dropped first: a call would otherwise match both. NULL when the key is taken (by
-- an unfinished job, or by any job of the same period): nothing is inserted then.
DROP FUNCTION weir.enqueue(text, jsonb, text, integer, timestamptz, integer, text);
DROP FUNCTION weir.enqueue(text, text, text, integer, timestamptz, integer, text);

CREATE FUNCTION weir.enqueue(queue text, payload text, kind text DEFAULT 'default',
                             priority integer DEFAULT 0, run_at timestamptz DEFAULT now(),
                             max_attempts integer DEFAULT 25, unique_key text DEFAULT NULL,
                             timeout interval DEFAULT NULL, unique_period interval DEFAULT NULL)
  RETURNS bigint LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
  job_id bigint;
  t_ms bigint := (extract(epoch FROM enqueue.timeout) * 1000)::bigint;
  p_ms bigint := (extract(epoch FROM enqueue.unique_period) * 1000)::bigint;
BEGIN
  IF t_ms IS NOT NULL AND t_ms <= 0 THEN
    RAISE EXCEPTION 'weir.enqueue: timeout must be at least 1 millisecond, got %', enqueue.timeout
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF p_ms IS NOT NULL AND p_ms <= 0 THEN
    RAISE EXCEPTION 'weir.enqueue: unique_period must be at least 1 millisecond, got %',
      enqueue.unique_period USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF p_ms IS NOT NULL AND enqueue.unique_key IS NULL THEN
    RAISE EXCEPTION 'weir.enqueue: unique_period needs a unique_key'
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  INSERT INTO weir.jobs (queue, payload, kind, priority, run_at, max_attempts, unique_key,
                         timeout_ms, unique_period)
  VALUES (enqueue.queue, enqueue.payload, enqueue.kind, enqueue.priority::smallint,
          coalesce(enqueue.run_at, now()), coalesce(enqueue.max_attempts, 25), enqueue.unique_key,
          t_ms, weir.period_start(now(), p_ms))
  ON CONFLICT DO NOTHING
  RETURNING id INTO job_id;
  IF job_id IS NOT NULL THEN
    PERFORM pg_notify('weir_jobs', enqueue.queue);
  END IF;
  RETURN job_id;
END
$$;

CREATE FUNCTION weir.enqueue(queue text, payload jsonb, kind text DEFAULT 'default',
                             priority integer DEFAULT 0, run_at timestamptz DEFAULT now(),
                             max_attempts integer DEFAULT 25, unique_key text DEFAULT NULL,
                             timeout interval DEFAULT NULL, unique_period interval DEFAULT NULL)
  RETURNS bigint LANGUAGE sql
AS $$
  SELECT weir.enqueue(queue, payload::text, kind, priority, run_at, max_attempts, unique_key,
                      timeout, unique_period)
$$;

-- weir.enqueue_period of 0006, the job of the schedule's kind.
CREATE OR REPLACE FUNCTION weir.enqueue_period(schedule_name text, period timestamptz,
                                               OUT outcome text, OUT job_id bigint)
  LANGUAGE plpgsql
AS $$
DECLARE
  s weir.schedules;
BEGIN
  job_id := NULL;
  IF period > now() THEN
    outcome := 'early';
    RETURN;
  END IF;
  -- The row lock: a second caller for the same schedule waits here, then reads the first's period.
  SELECT * INTO s FROM weir.schedules WHERE name = schedule_name FOR UPDATE;
  IF NOT FOUND THEN
    outcome := 'gone';
  ELSIF s.last_period IS NOT NULL AND s.last_period >= period THEN
    outcome := 'taken';
  ELSIF period < s.updated_at THEN
    outcome := 'before';
  ELSE
    INSERT INTO weir.jobs (queue, payload, priority, max_attempts, kind)
      VALUES (s.queue, s.payload, s.priority, s.max_attempts, s.kind)
      RETURNING id INTO job_id;
    INSERT INTO weir.schedule_periods (name, period_start, job_id)
      VALUES (schedule_name, period, job_id);
    UPDATE weir.schedules SET last_period = period WHERE name = schedule_name;
    DELETE FROM weir.schedule_periods p
     WHERE p.name = schedule_name
       AND p.period_start < (SELECT k.period_start FROM weir.schedule_periods k
                              WHERE k.name = schedule_name
                              ORDER BY k.period_start DESC OFFSET 99 LIMIT 1);
    PERFORM pg_notify('weir_jobs', s.queue);
    outcome := 'enqueued';
  END IF;
END
$$;
