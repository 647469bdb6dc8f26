-- Live workers (issue 22): each running weir.postgres.queue.Worker keeps a row here, written by its
-- upkeep every heartbeat (QueueSettings.heartbeat) on the connection that already renews its
-- leases: the queues it claims from, when it started, its latest beat, how many jobs it holds of
-- each queue and its totals so far. The overview counts running jobs from these rows (a few rows,
-- where counting the running jobs' rows reads a heap page for each: 167 ms for 10 000 of them,
-- cold, in bench/queue/ui.sh's 10 M-job table). `weir queue ui`'s workers page reads it (a rate is the difference of two
-- beats' totals). The row is deleted when the worker stops; a worker killed leaves its row, whose
-- beat then grows old (the page shows its age), and any worker's upkeep deletes rows whose beat is
-- older than a day. One row a worker, updated in place (no indexed column changes: HOT updates),
-- nothing on the claim or completion path.
CREATE TABLE weir.workers (
  id           text        PRIMARY KEY,
  queues       text[]      NOT NULL,
  started_at   timestamptz NOT NULL DEFAULT now(),
  beat_at      timestamptz NOT NULL DEFAULT now(),
  -- The jobs held at the latest beat, by queue: {"mail": 3, "sms": 1}.
  holding      jsonb       NOT NULL DEFAULT '{}',
  claimed      bigint      NOT NULL DEFAULT 0,
  completed    bigint      NOT NULL DEFAULT 0,
  failed       bigint      NOT NULL DEFAULT 0
);
