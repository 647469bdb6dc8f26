-- Every error of a job with its time (issue 22): `weir queue ui` shows a job's failed attempts, not
-- only the latest (`last_error`, kept as before). Each failure appends an entry to error_history,
-- a JSON array of {attempt, at, worker, error}, in the same UPDATE that already records the failure
-- (fail_jobs, discard_jobs, reap_leases): no other statement changes, so claims and completions
-- cost what they did. The array keeps the latest 25 entries (the default max_attempts), each error
-- cut at 4 000 characters; NULL for a job that never failed (a NULL costs a bit in the row's null
-- bitmap). Jobs that failed before this migration have no history: their last_error remains.
-- Added last on both tables, in the same order: weir.sweep_jobs copies rows with SELECT *.
ALTER TABLE weir.jobs ADD COLUMN error_history jsonb;
ALTER TABLE weir.jobs_archive ADD COLUMN error_history jsonb;

-- `history` with one more entry at its end, the oldest dropped past 25 entries.
CREATE FUNCTION weir.error_appended(history jsonb, attempt integer, at timestamptz, worker text,
                                    message text)
  RETURNS jsonb LANGUAGE sql IMMUTABLE
AS $$
  SELECT CASE WHEN jsonb_array_length(coalesce(history, '[]')) >= 25 THEN history - 0
              ELSE coalesce(history, '[]') END
         || jsonb_build_array(jsonb_build_object('attempt', attempt, 'at', at, 'worker', worker,
                                                 'error', left(message, 4000)))
$$;

-- fail_jobs, discard_jobs and reap_leases as in 0002/0004, each also appending to error_history
-- (the worker is the one that held the claim: j.worker before the UPDATE clears it).
CREATE OR REPLACE FUNCTION weir.fail_jobs(ids bigint[], attempts integer[], messages text[],
                                          delays_ms bigint[])
  RETURNS TABLE (job_id bigint, job_state text) LANGUAGE sql
  SET enable_seqscan = off SET enable_nestloop = off
AS $$
  UPDATE weir.jobs j
     SET state = CASE WHEN j.attempt >= j.max_attempts THEN 'discarded' ELSE 'available' END,
         run_at = CASE WHEN j.attempt >= j.max_attempts THEN j.run_at
                       ELSE now() + f.delay_ms * interval '1 millisecond' END,
         finished_at = CASE WHEN j.attempt >= j.max_attempts THEN now() END,
         errors = j.errors + 1, last_error = f.message, failed_at = now(),
         error_history = weir.error_appended(j.error_history, j.attempt, now(), j.worker, f.message),
         lease_until = NULL, worker = NULL
    FROM unnest(ids, attempts, messages, delays_ms) AS f(id, attempt, message, delay_ms)
   WHERE j.id = ANY (ids) AND j.id = f.id AND j.attempt = f.attempt AND j.state = 'running'
  RETURNING j.id, j.state
$$;

CREATE OR REPLACE FUNCTION weir.discard_jobs(ids bigint[], attempts integer[], messages text[])
  RETURNS SETOF bigint LANGUAGE sql
  SET enable_seqscan = off SET enable_nestloop = off
AS $$
  UPDATE weir.jobs j
     SET state = 'discarded', finished_at = now(), errors = j.errors + 1, last_error = d.message,
         failed_at = now(),
         error_history = weir.error_appended(j.error_history, j.attempt, now(), j.worker, d.message),
         lease_until = NULL, worker = NULL
    FROM unnest(ids, attempts, messages) AS d(id, attempt, message)
   WHERE j.id = ANY (ids) AND j.id = d.id AND j.attempt = d.attempt AND j.state = 'running'
  RETURNING j.id
$$;

CREATE OR REPLACE FUNCTION weir.reap_leases(n integer)
  RETURNS TABLE (available bigint, discarded bigint) LANGUAGE sql
  SET enable_seqscan = off SET enable_nestloop = off
AS $$
  WITH reaped AS (
    UPDATE weir.jobs j
       SET state = CASE WHEN j.attempt >= j.max_attempts THEN 'discarded' ELSE 'available' END,
           finished_at = CASE WHEN j.attempt >= j.max_attempts THEN now() END,
           errors = j.errors + 1,
           last_error = 'lease expired (worker ' || coalesce(j.worker, '?') || ')',
           error_history = weir.error_appended(j.error_history, j.attempt, now(), j.worker,
                             'lease expired (worker ' || coalesce(j.worker, '?') || ')'),
           lease_until = NULL, worker = NULL
     WHERE j.id = ANY (ARRAY(
             SELECT e.id FROM weir.jobs e
              WHERE e.lease_until < now() AND e.state = 'running'
              ORDER BY e.lease_until LIMIT n FOR UPDATE SKIP LOCKED))
    RETURNING j.state)
  SELECT count(*) FILTER (WHERE state = 'available'), count(*) FILTER (WHERE state = 'discarded')
    FROM reaped
$$;
