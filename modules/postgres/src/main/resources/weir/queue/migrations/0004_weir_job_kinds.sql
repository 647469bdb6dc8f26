-- Typed jobs (weir.postgres.queue.JobKind): each job names its kind, and a worker's handlers are
-- chosen by it (JobHandlers). The archive receives `SELECT *` from weir.jobs (weir.sweep_jobs):
-- the column goes last on both, so that their column lists stay identical.
ALTER TABLE weir.jobs ADD COLUMN kind text NOT NULL DEFAULT 'default';
ALTER TABLE weir.jobs_archive ADD COLUMN kind text NOT NULL DEFAULT 'default';

-- Enqueueing from any client, in the caller's own transaction: psql, skunk, doobie, a trigger.
--   SELECT weir.enqueue('emails', '{"to":"a"}', kind => 'welcome');
-- The job's id, or NULL when `unique_key` is taken by an unfinished job of the same queue (nothing
-- is inserted then). `priority` is an integer for the caller's convenience (a literal 5 is one)
-- and must fit the column's smallint (lower runs first); `run_at` and `max_attempts` NULL mean
-- their defaults.
--
-- Wake-ups: each job inserted sends pg_notify('weir_jobs', queue), delivered at commit to the
-- workers listening (weir.postgres.queue.Wake), and not at all on a rollback. PostgreSQL delivers
-- identical notifications (same channel, same payload) of one transaction once, so a transaction
-- that enqueues many jobs wakes each queue's workers once, not once per job.
CREATE FUNCTION weir.enqueue(queue text, payload text, kind text DEFAULT 'default',
                             priority integer DEFAULT 0, run_at timestamptz DEFAULT now(),
                             max_attempts integer DEFAULT 25, unique_key text DEFAULT NULL)
  RETURNS bigint LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
  job_id bigint;
BEGIN
  INSERT INTO weir.jobs (queue, payload, kind, priority, run_at, max_attempts, unique_key)
  VALUES (enqueue.queue, enqueue.payload, enqueue.kind, enqueue.priority::smallint,
          coalesce(enqueue.run_at, now()), coalesce(enqueue.max_attempts, 25), enqueue.unique_key)
  ON CONFLICT (queue, unique_key)
    WHERE unique_key IS NOT NULL AND state IN ('available', 'running') DO NOTHING
  RETURNING id INTO job_id;
  IF job_id IS NOT NULL THEN
    PERFORM pg_notify('weir_jobs', enqueue.queue);
  END IF;
  RETURN job_id;
END
$$;

-- The same with a jsonb payload, stored as its text (read back with `payload::jsonb`). A quoted
-- literal without a type goes to the text overload above (PostgreSQL prefers text for an unknown
-- literal); a jsonb value comes here.
CREATE FUNCTION weir.enqueue(queue text, payload jsonb, kind text DEFAULT 'default',
                             priority integer DEFAULT 0, run_at timestamptz DEFAULT now(),
                             max_attempts integer DEFAULT 25, unique_key text DEFAULT NULL)
  RETURNS bigint LANGUAGE sql
AS $$
  SELECT weir.enqueue(queue, payload::text, kind, priority, run_at, max_attempts, unique_key)
$$;

-- Claims ended by their handler for good (a job of a kind no handler knows; JobControl.Discard):
-- each claim still running under its attempt becomes discarded with its message, whatever attempts
-- it had left; the ids written. Written as a failure is (errors, failed_at), so that
-- weir.refuse_writes recognises one already written. Follows 0002's rules: the rows are found by
-- the primary key, with seq scans and nested loops disabled.
CREATE FUNCTION weir.discard_jobs(ids bigint[], attempts integer[], messages text[])
  RETURNS SETOF bigint LANGUAGE sql
  SET enable_seqscan = off SET enable_nestloop = off
AS $$
  UPDATE weir.jobs j
     SET state = 'discarded', finished_at = now(), errors = j.errors + 1, last_error = d.message,
         failed_at = now(), lease_until = NULL, worker = NULL
    FROM unnest(ids, attempts, messages) AS d(id, attempt, message)
   WHERE j.id = ANY (ids) AND j.id = d.id AND j.attempt = d.attempt AND j.state = 'running'
  RETURNING j.id
$$;

-- Claims put off by their handler (JobControl.Snooze): each claim still running under its attempt
-- and held by `worker_id` becomes available again after its delay, without using an attempt (the
-- attempt goes back by one, as for a claim released unstarted by weir.release_jobs); the ids
-- written. The next claim runs under the same attempt number again: safe because the only holder
-- of the snoozed claim is the worker that wrote the snooze, its last word about that claim, and
-- the worker condition keeps a repeat of this statement (its answer lost) off every other
-- worker's claim. Follows 0002's rules.
CREATE FUNCTION weir.snooze_jobs(ids bigint[], attempts integer[], delays_ms bigint[],
                                 worker_id text)
  RETURNS SETOF bigint LANGUAGE sql
  SET enable_seqscan = off SET enable_nestloop = off
AS $$
  UPDATE weir.jobs j
     SET state = 'available', attempt = j.attempt - 1,
         run_at = now() + s.delay_ms * interval '1 millisecond', lease_until = NULL, worker = NULL
    FROM unnest(ids, attempts, delays_ms) AS s(id, attempt, delay_ms)
   WHERE j.id = ANY (ids) AND j.id = s.id AND j.attempt = s.attempt AND j.state = 'running'
     AND j.worker = worker_id
  RETURNING j.id
$$;
