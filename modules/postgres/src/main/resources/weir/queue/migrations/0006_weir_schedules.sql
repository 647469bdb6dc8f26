-- Periodic jobs (weir.postgres.queue.Schedules): one job per period of each schedule, however many
-- workers run, with no leader. Every worker's scheduler calls weir.enqueue_period for the period it
-- sees due; the function locks the schedule's row, so two workers due at the same period take
-- turns, and the second finds the period already recorded (last_period) and inserts nothing.
-- Periods are recorded in the same transaction as their job, so a job is never without its period
-- nor a period without its job. Does not depend on migrations 0004 and 0005.
CREATE TABLE weir.schedules (
  name         text        PRIMARY KEY,
  queue        text        NOT NULL DEFAULT 'default',
  payload      text        NOT NULL,
  -- Exactly one of: a fixed interval (periods aligned to the epoch), a 5-field cron expression (UTC).
  every_ms     bigint      CHECK (every_ms > 0),
  cron         text,
  priority     smallint    NOT NULL DEFAULT 0,
  max_attempts integer     NOT NULL DEFAULT 25 CHECK (max_attempts > 0),
  created_at   timestamptz NOT NULL DEFAULT now(),
  -- Created or last replaced: only periods that start at or after it are enqueued (no backfill).
  updated_at   timestamptz NOT NULL DEFAULT now(),
  -- The latest period enqueued: periods are enqueued in order, each at most once.
  last_period  timestamptz,
  CHECK ((every_ms IS NULL) <> (cron IS NULL))
);

-- The periods enqueued and their jobs, the latest 100 of each schedule (older ones are deleted as
-- new ones come): what `weir queue schedules` shows, and a second guard (the primary key).
CREATE TABLE weir.schedule_periods (
  name         text        NOT NULL REFERENCES weir.schedules (name) ON DELETE CASCADE,
  period_start timestamptz NOT NULL,
  job_id       bigint      NOT NULL,
  enqueued_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (name, period_start)
);

-- The job of schedule `schedule_name` for the period starting at `period`, inserted unless that
-- period (or a later one) was already enqueued, the period has not started yet by the server's
-- clock, or it started before the schedule was created or replaced. Returns the outcome
-- ('enqueued', 'taken', 'early', 'before', 'gone': no such schedule) and the job's id when one was
-- inserted; notifies the queue's workers (weir.postgres.queue.Wake) then. Any client may call it.
CREATE FUNCTION weir.enqueue_period(schedule_name text, period timestamptz,
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
    INSERT INTO weir.jobs (queue, payload, priority, max_attempts)
      VALUES (s.queue, s.payload, s.priority, s.max_attempts)
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
