-- Plans that do not depend on what the statistics say (docs/adr/0006-durable-queue.md,
-- "Stable plans"). Every statement a worker runs against weir.jobs is a function here, and each
-- follows two rules:
--   1. The rows a statement changes are found by the primary key alone: the outer UPDATE or
--      DELETE is restricted by `j.id = ANY (ids)`, where the ids are either the caller's batch or
--      an ARRAY(...) of rows the same statement has just locked through the one partial index
--      made for that purpose. No other restriction on the changed rows implies a partial index's
--      predicate, so no other index can serve them.
--   2. The body runs with seq scans and nested loops disabled (SET on the function), so a batch
--      is never joined row by row against another set ("Join Filter" over every running job, the
--      collapse of issue 19): what is left is the index and a hash join of two batch-sized sets.

-- The lease index was partial on state = 'running', which every fenced write also says: after an
-- ANALYZE that saw few running jobs the planner scanned all running jobs through it for each
-- write. Keyed on lease_until IS NOT NULL instead (true exactly while a job is running: every
-- statement that leaves 'running' clears the lease), it serves the reaper alone.
DROP INDEX weir.jobs_lease;
CREATE INDEX jobs_lease ON weir.jobs (lease_until) WHERE lease_until IS NOT NULL;

-- Up to `n` due, available jobs of `claim_queue` in (priority, run_at, id) order, skipping rows
-- other workers hold, made running under `worker_id` with a lease of `lease_ms`. The scan starts
-- after (after_priority, after_run_at, after_id) when given (NULL: from the start): a worker passes
-- where its previous claim ended, so that it does not step again over the index entries of the jobs
-- already claimed (dead until a vacuum removes them: a million of them after a million claims).
CREATE FUNCTION weir.claim_jobs(claim_queue text, n integer, lease_ms bigint, worker_id text,
                                after_priority smallint, after_run_at timestamptz, after_id bigint)
  RETURNS SETOF weir.jobs LANGUAGE sql
  SET enable_seqscan = off SET enable_nestloop = off
AS $$
  UPDATE weir.jobs j
     SET state = 'running', attempt = j.attempt + 1, worker = worker_id,
         lease_until = now() + lease_ms * interval '1 millisecond', attempted_at = now()
   WHERE j.id = ANY (ARRAY(
           SELECT a.id FROM weir.jobs a
            WHERE a.state = 'available' AND a.queue = claim_queue AND a.run_at <= now()
              AND (a.priority, a.run_at, a.id) > (coalesce(after_priority, -32768),
                                                   coalesce(after_run_at, '-infinity'),
                                                   coalesce(after_id, 0))
            ORDER BY a.priority, a.run_at, a.id
            LIMIT n FOR UPDATE SKIP LOCKED))
  RETURNING j.*
$$;

-- The claims (ids[k], attempts[k]) still running under that attempt, marked completed; their ids.
CREATE FUNCTION weir.complete_jobs(ids bigint[], attempts integer[])
  RETURNS SETOF bigint LANGUAGE sql
  SET enable_seqscan = off SET enable_nestloop = off
AS $$
  UPDATE weir.jobs j
     SET state = 'completed', finished_at = now(), lease_until = NULL
    FROM unnest(ids, attempts) AS c(id, attempt)
   WHERE j.id = ANY (ids) AND j.id = c.id AND j.attempt = c.attempt AND j.state = 'running'
  RETURNING j.id
$$;

-- Failed attempts: each claim still running under its attempt becomes available after its delay,
-- or discarded when it was the last attempt; the ids written and the state each ended in.
CREATE FUNCTION weir.fail_jobs(ids bigint[], attempts integer[], messages text[], delays_ms bigint[])
  RETURNS TABLE (job_id bigint, job_state text) LANGUAGE sql
  SET enable_seqscan = off SET enable_nestloop = off
AS $$
  UPDATE weir.jobs j
     SET state = CASE WHEN j.attempt >= j.max_attempts THEN 'discarded' ELSE 'available' END,
         run_at = CASE WHEN j.attempt >= j.max_attempts THEN j.run_at
                       ELSE now() + f.delay_ms * interval '1 millisecond' END,
         finished_at = CASE WHEN j.attempt >= j.max_attempts THEN now() END,
         errors = j.errors + 1, last_error = f.message, failed_at = now(),
         lease_until = NULL, worker = NULL
    FROM unnest(ids, attempts, messages, delays_ms) AS f(id, attempt, message, delay_ms)
   WHERE j.id = ANY (ids) AND j.id = f.id AND j.attempt = f.attempt AND j.state = 'running'
  RETURNING j.id, j.state
$$;

-- Leases of the claims still running under their attempt, renewed to now + lease_ms; their ids.
CREATE FUNCTION weir.renew_leases(ids bigint[], attempts integer[], lease_ms bigint)
  RETURNS SETOF bigint LANGUAGE sql
  SET enable_seqscan = off SET enable_nestloop = off
AS $$
  UPDATE weir.jobs j
     SET lease_until = now() + lease_ms * interval '1 millisecond'
    FROM unnest(ids, attempts) AS r(id, attempt)
   WHERE j.id = ANY (ids) AND j.id = r.id AND j.attempt = r.attempt AND j.state = 'running'
  RETURNING j.id
$$;

-- Claims given back by `worker_id` (a graceful stop): available again, the attempt counted only
-- where started[k]; how many were still held.
CREATE FUNCTION weir.release_jobs(ids bigint[], attempts integer[], started boolean[], worker_id text)
  RETURNS bigint LANGUAGE sql
  SET enable_seqscan = off SET enable_nestloop = off
AS $$
  WITH released AS (
    UPDATE weir.jobs j
       SET state = 'available', lease_until = NULL, worker = NULL,
           attempt = j.attempt - CASE WHEN r.started THEN 0 ELSE 1 END
      FROM unnest(ids, attempts, started) AS r(id, attempt, started)
     WHERE j.id = ANY (ids) AND j.id = r.id AND j.attempt = r.attempt AND j.state = 'running'
       AND j.worker = worker_id
    RETURNING 1)
  SELECT count(*) FROM released
$$;

-- The claims (ids[k], attempts[k]) that a write of `write_kind` ('complete' or 'fail') did not
-- change, unless the same write already did (its answer lost), recorded in weir.job_rejections;
-- how many. The already-written test is a CASE, so it implies no partial index's predicate.
CREATE FUNCTION weir.refuse_writes(write_kind text, worker_id text, ids bigint[], attempts integer[])
  RETURNS bigint LANGUAGE sql
  SET enable_seqscan = off SET enable_nestloop = off
AS $$
  WITH refused AS (
    INSERT INTO weir.job_rejections (job_id, attempt, kind, worker)
    SELECT r.id, r.attempt, write_kind, worker_id FROM unnest(ids, attempts) AS r(id, attempt)
     WHERE NOT EXISTS (
       SELECT 1 FROM weir.jobs j
        WHERE j.id = ANY (ids) AND j.id = r.id AND j.attempt = r.attempt
          AND CASE write_kind
                WHEN 'complete' THEN j.state = 'completed'
                ELSE j.state IN ('available', 'discarded') AND j.failed_at >= j.attempted_at
              END)
    RETURNING 1)
  SELECT count(*) FROM refused
$$;

-- Up to `n` running jobs whose lease ended: available again (the attempt counted) or discarded on
-- their last attempt; how many of each.
CREATE FUNCTION weir.reap_leases(n integer)
  RETURNS TABLE (available bigint, discarded bigint) LANGUAGE sql
  SET enable_seqscan = off SET enable_nestloop = off
AS $$
  WITH reaped AS (
    UPDATE weir.jobs j
       SET state = CASE WHEN j.attempt >= j.max_attempts THEN 'discarded' ELSE 'available' END,
           finished_at = CASE WHEN j.attempt >= j.max_attempts THEN now() END,
           errors = j.errors + 1,
           last_error = 'lease expired (worker ' || coalesce(j.worker, '?') || ')',
           lease_until = NULL, worker = NULL
     WHERE j.id = ANY (ARRAY(
             SELECT e.id FROM weir.jobs e
              WHERE e.lease_until < now() AND e.state = 'running'
              ORDER BY e.lease_until LIMIT n FOR UPDATE SKIP LOCKED))
    RETURNING j.state)
  SELECT count(*) FILTER (WHERE state = 'available'), count(*) FILTER (WHERE state = 'discarded')
    FROM reaped
$$;

-- Up to `n` completed or cancelled jobs finished more than `retention_ms` ago, deleted (and copied
-- to weir.jobs_archive when `archive`); how many.
CREATE FUNCTION weir.sweep_jobs(retention_ms bigint, n integer, archive boolean)
  RETURNS bigint LANGUAGE sql
  SET enable_seqscan = off SET enable_nestloop = off
AS $$
  WITH gone AS (
    DELETE FROM weir.jobs j
     WHERE j.id = ANY (ARRAY(
             SELECT f.id FROM weir.jobs f
              WHERE f.state IN ('completed', 'cancelled')
                AND f.finished_at < now() - retention_ms * interval '1 millisecond'
              ORDER BY f.finished_at LIMIT n FOR UPDATE SKIP LOCKED))
    RETURNING j.*),
  moved AS (INSERT INTO weir.jobs_archive SELECT * FROM gone WHERE archive RETURNING 1)
  SELECT count(*) FROM gone
$$;

-- True while `pending_queue` has a job available (due or scheduled) or running. Each half reads
-- one partial index: jobs_claim for available jobs, jobs_lease for running ones.
CREATE FUNCTION weir.queue_pending(pending_queue text)
  RETURNS boolean LANGUAGE sql STABLE
  SET enable_seqscan = off SET enable_nestloop = off
AS $$
  SELECT EXISTS (SELECT 1 FROM weir.jobs a WHERE a.state = 'available' AND a.queue = pending_queue)
      OR EXISTS (SELECT 1 FROM weir.jobs r WHERE r.lease_until IS NOT NULL AND r.queue = pending_queue)
$$;

-- `weir queue stats` for one queue (every queue when stats_queue is NULL): jobs in each state,
-- each state counted through its own partial index (so counting the few live jobs never reads the
-- finished ones), completions in the last minute, the age of the oldest due job and the expired
-- leases not reaped yet. The counts of completed and cancelled jobs grow with them (retention
-- bounds them); every other part reads only live jobs.
CREATE FUNCTION weir.queue_stats(stats_queue text)
  RETURNS TABLE (available bigint, running bigint, completed bigint, discarded bigint,
                 cancelled bigint, completed_last_minute bigint,
                 oldest_available_seconds float8, expired_leases bigint)
  LANGUAGE sql STABLE
  SET enable_seqscan = off SET enable_nestloop = off
AS $$
  SELECT
    (SELECT count(*) FROM weir.jobs a
      WHERE a.state = 'available' AND (stats_queue IS NULL OR a.queue = stats_queue)),
    (SELECT count(*) FROM weir.jobs r
      WHERE r.lease_until IS NOT NULL AND (stats_queue IS NULL OR r.queue = stats_queue)),
    (SELECT count(*) FROM weir.jobs f
      WHERE f.state IN ('completed', 'cancelled') AND f.state = 'completed'
        AND (stats_queue IS NULL OR f.queue = stats_queue)),
    (SELECT count(*) FROM weir.jobs d
      WHERE d.state = 'discarded' AND (stats_queue IS NULL OR d.queue = stats_queue)),
    (SELECT count(*) FROM weir.jobs f
      WHERE f.state IN ('completed', 'cancelled') AND f.state = 'cancelled'
        AND (stats_queue IS NULL OR f.queue = stats_queue)),
    (SELECT count(*) FROM weir.jobs f
      WHERE f.state IN ('completed', 'cancelled') AND f.state = 'completed'
        AND f.finished_at > now() - interval '1 minute'
        AND (stats_queue IS NULL OR f.queue = stats_queue)),
    (SELECT extract(epoch FROM now() - min(a.run_at))::float8 FROM weir.jobs a
      WHERE a.state = 'available' AND a.run_at <= now()
        AND (stats_queue IS NULL OR a.queue = stats_queue)),
    (SELECT count(*) FROM weir.jobs r
      WHERE r.lease_until < now() AND (stats_queue IS NULL OR r.queue = stats_queue))
$$;
