-- weir's durable queue (weir.postgres.queue): one table of jobs, claimed with
-- FOR UPDATE SKIP LOCKED, fenced by their attempt number.
CREATE SCHEMA IF NOT EXISTS weir;

CREATE TABLE weir.jobs (
  id           bigserial PRIMARY KEY,
  queue        text        NOT NULL DEFAULT 'default',
  payload      text        NOT NULL,
  priority     smallint    NOT NULL DEFAULT 0,
  run_at       timestamptz NOT NULL DEFAULT now(),
  -- available -> running -> completed | available (retry, lease expired) | discarded; cancelled
  state        text        NOT NULL DEFAULT 'available'
               CHECK (state IN ('available', 'running', 'completed', 'discarded', 'cancelled')),
  attempt      integer     NOT NULL DEFAULT 0,
  max_attempts integer     NOT NULL DEFAULT 25 CHECK (max_attempts > 0),
  unique_key   text,
  lease_until  timestamptz,
  worker       text,
  errors       integer     NOT NULL DEFAULT 0,
  last_error   text,
  failed_at    timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now(),
  attempted_at timestamptz,
  finished_at  timestamptz
);

-- Claiming: the next available jobs of a queue in (priority, run_at, id) order.
CREATE INDEX jobs_claim ON weir.jobs (queue, priority, run_at, id) WHERE state = 'available';
-- The lease reaper: running jobs by lease end.
CREATE INDEX jobs_lease ON weir.jobs (lease_until) WHERE state = 'running';
-- Retention: finished jobs by end time.
CREATE INDEX jobs_finished ON weir.jobs (finished_at) WHERE state IN ('completed', 'cancelled');
-- Discarded jobs, listed and re-driven.
CREATE INDEX jobs_discarded ON weir.jobs (queue, id) WHERE state = 'discarded';
-- At most one unfinished job per (queue, unique key).
CREATE UNIQUE INDEX jobs_unique ON weir.jobs (queue, unique_key)
  WHERE unique_key IS NOT NULL AND state IN ('available', 'running');

-- Completions, failures and renewals refused by the fence (a late worker's), kept for counting.
CREATE TABLE weir.job_rejections (
  id              bigserial   PRIMARY KEY,
  job_id          bigint      NOT NULL,
  attempt         integer     NOT NULL,
  kind            text        NOT NULL,
  worker          text,
  at              timestamptz NOT NULL DEFAULT now()
);

-- Finished jobs moved out by the retention sweep when it archives instead of deleting.
CREATE TABLE weir.jobs_archive (LIKE weir.jobs);
