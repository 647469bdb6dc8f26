-- A unique enqueue that finds its key taken answers with the id of the job that holds the key
-- (issue 21) instead of NULL. Functions only: no table changes.
--
--   SELECT weir.enqueue('q', 'p', unique_key => 'k');    -- the id, new or existing
--   SELECT job_id, inserted FROM weir.enqueue_outcome('q', 'p', unique_key => 'k');
--
-- weir.enqueue keeps its arguments and its bigint result, and no longer tells a new job from an
-- existing one; weir.enqueue_outcome takes the same arguments and says which it was (`inserted`).

-- The job of `queue` that holds `key` now: the unfinished one, else (with a period) the one inserted
-- in the same period (weir.period_start of now(), as the insert computes it); NULL when none does.
CREATE FUNCTION weir.unique_holder(queue_name text, key text, period_ms bigint)
  RETURNS bigint LANGUAGE sql STABLE
AS $$
  SELECT id FROM (
    SELECT id, 0 AS rank FROM weir.jobs
     WHERE queue = queue_name AND unique_key = key AND state IN ('available', 'running')
    UNION ALL
    SELECT id, 1 FROM weir.jobs
     WHERE period_ms IS NOT NULL AND queue = queue_name AND unique_key = key
       AND unique_period = weir.period_start(now(), period_ms)
  ) h
  ORDER BY rank LIMIT 1
$$;

-- weir.enqueue of 0007, telling a new job (inserted true) from an existing one (inserted false, the
-- id of the job holding the key). Concurrency: a second caller inserting the same key waits for the
-- first's transaction (the unique index); once the first commits, its job is found and returned;
-- if the first rolls back, the second inserts. The holder is looked up in a statement of its own
-- (a fresh snapshot under READ COMMITTED); should it have finished in between (its key free
-- again), the insert is tried again, a few times at most. Under REPEATABLE READ or SERIALIZABLE, a
-- key taken by a transaction the caller's snapshot cannot see is a serialization failure (40001).
CREATE FUNCTION weir.enqueue_outcome(queue text, payload text, kind text DEFAULT 'default',
                                     priority integer DEFAULT 0, run_at timestamptz DEFAULT now(),
                                     max_attempts integer DEFAULT 25,
                                     unique_key text DEFAULT NULL, timeout interval DEFAULT NULL,
                                     unique_period interval DEFAULT NULL,
                                     OUT job_id bigint, OUT inserted boolean)
  LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
  t_ms bigint := (extract(epoch FROM enqueue_outcome.timeout) * 1000)::bigint;
  p_ms bigint := (extract(epoch FROM enqueue_outcome.unique_period) * 1000)::bigint;
BEGIN
  IF t_ms IS NOT NULL AND t_ms <= 0 THEN
    RAISE EXCEPTION 'weir.enqueue: timeout must be at least 1 millisecond, got %',
      enqueue_outcome.timeout USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF p_ms IS NOT NULL AND p_ms <= 0 THEN
    RAISE EXCEPTION 'weir.enqueue: unique_period must be at least 1 millisecond, got %',
      enqueue_outcome.unique_period USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF p_ms IS NOT NULL AND enqueue_outcome.unique_key IS NULL THEN
    RAISE EXCEPTION 'weir.enqueue: unique_period needs a unique_key'
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  FOR tries IN 1..5 LOOP
    INSERT INTO weir.jobs (queue, payload, kind, priority, run_at, max_attempts, unique_key,
                           timeout_ms, unique_period)
    VALUES (enqueue_outcome.queue, enqueue_outcome.payload, enqueue_outcome.kind,
            enqueue_outcome.priority::smallint, coalesce(enqueue_outcome.run_at, now()),
            coalesce(enqueue_outcome.max_attempts, 25), enqueue_outcome.unique_key, t_ms,
            weir.period_start(now(), p_ms))
    ON CONFLICT DO NOTHING
    RETURNING id INTO job_id;
    IF job_id IS NOT NULL THEN
      inserted := true;
      PERFORM pg_notify('weir_jobs', enqueue_outcome.queue);
      RETURN;
    END IF;
    job_id := weir.unique_holder(enqueue_outcome.queue, enqueue_outcome.unique_key, p_ms);
    IF job_id IS NOT NULL THEN
      inserted := false;
      RETURN;
    END IF;
  END LOOP;
  RAISE EXCEPTION 'weir.enqueue: the unique key % of queue % was taken and freed 5 times in a row',
    enqueue_outcome.unique_key, enqueue_outcome.queue USING ERRCODE = 'serialization_failure';
END
$$;

CREATE FUNCTION weir.enqueue_outcome(queue text, payload jsonb, kind text DEFAULT 'default',
                                     priority integer DEFAULT 0, run_at timestamptz DEFAULT now(),
                                     max_attempts integer DEFAULT 25,
                                     unique_key text DEFAULT NULL, timeout interval DEFAULT NULL,
                                     unique_period interval DEFAULT NULL,
                                     OUT job_id bigint, OUT inserted boolean)
  LANGUAGE sql
AS $$
  SELECT * FROM weir.enqueue_outcome(queue, payload::text, kind, priority, run_at, max_attempts,
                                     unique_key, timeout, unique_period)
$$;

-- weir.enqueue of 0007 (same arguments, same result type), now the id of the job holding a taken
-- key instead of NULL. The jsonb overload of 0007 calls this one and needs no change.
CREATE OR REPLACE FUNCTION weir.enqueue(queue text, payload text, kind text DEFAULT 'default',
                                        priority integer DEFAULT 0,
                                        run_at timestamptz DEFAULT now(),
                                        max_attempts integer DEFAULT 25,
                                        unique_key text DEFAULT NULL,
                                        timeout interval DEFAULT NULL,
                                        unique_period interval DEFAULT NULL)
  RETURNS bigint LANGUAGE sql
AS $$
  SELECT job_id FROM weir.enqueue_outcome(queue, payload, kind, priority, run_at, max_attempts,
                                          unique_key, timeout, unique_period)
$$;
