-- Pausing a queue, and telling a worker which of its jobs were cancelled (issue 21, item 4).
-- Every function follows the stable-plans rules of 0002.

-- Queues that were paused (paused_at set) or resumed (paused_at NULL). A queue needs no row here
-- to be used: jobs name their queue; a row appears the first time a queue is paused.
CREATE TABLE weir.queues (
  name      text PRIMARY KEY,
  paused_at timestamptz
);

-- claim_jobs of 0002, answering nothing while claim_queue is paused: one look at weir.queues by
-- its primary key (an InitPlan, run once per call, before any job is locked).
CREATE OR REPLACE FUNCTION weir.claim_jobs(claim_queue text, n integer, lease_ms bigint,
                                           worker_id text, after_priority smallint,
                                           after_run_at timestamptz, after_id bigint)
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
              AND NOT EXISTS (SELECT 1 FROM weir.queues q
                               WHERE q.name = claim_queue AND q.paused_at IS NOT NULL)
            ORDER BY a.priority, a.run_at, a.id
            LIMIT n FOR UPDATE SKIP LOCKED))
  RETURNING j.*
$$;

-- Of the jobs `ids` (a worker's jobs whose lease it could not renew), those cancelled: the
-- worker interrupts their handlers and says why. The state test is a CASE, so that it implies no
-- partial index's predicate (jobs_finished would otherwise read every finished job).
CREATE FUNCTION weir.cancelled_jobs(ids bigint[])
  RETURNS SETOF bigint LANGUAGE sql STABLE
  SET enable_seqscan = off SET enable_nestloop = off
AS $$
  SELECT j.id FROM weir.jobs j
   WHERE j.id = ANY (ids) AND CASE j.state WHEN 'cancelled' THEN true ELSE false END
$$;

-- Pauses (paused = true) or resumes `queue_name`; NULL when the queue has never been seen (no row
-- here and no job of it in weir.jobs: that one look reads weir.jobs until it finds a job of the
-- queue, a scan of the table for a name that has none), else whether it was paused before. A
-- resume notifies the workers' channel with the queue's name, so that idle workers claim at once.
CREATE FUNCTION weir.pause_queue(queue_name text, paused boolean)
  RETURNS boolean LANGUAGE plpgsql
AS $$
DECLARE
  was timestamptz;
  known boolean;
BEGIN
  SELECT paused_at, true INTO was, known FROM weir.queues WHERE name = queue_name FOR UPDATE;
  IF known IS NULL THEN
    IF NOT EXISTS (SELECT 1 FROM weir.jobs WHERE queue = queue_name) THEN
      RETURN NULL;
    END IF;
    INSERT INTO weir.queues (name, paused_at)
         VALUES (queue_name, CASE WHEN paused THEN now() END)
    ON CONFLICT (name) DO UPDATE SET paused_at = CASE WHEN paused THEN now() END;
  ELSIF paused AND was IS NULL THEN
    UPDATE weir.queues SET paused_at = now() WHERE name = queue_name;
  ELSIF NOT paused THEN
    UPDATE weir.queues SET paused_at = NULL WHERE name = queue_name;
  END IF;
  IF NOT paused THEN
    PERFORM pg_notify('weir_jobs', queue_name);
  END IF;
  RETURN was IS NOT NULL;
END
$$;
