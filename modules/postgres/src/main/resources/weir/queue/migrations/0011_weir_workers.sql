-- Live workers (issue 22): each running weir.postgres.queue.Worker keeps a row here, written by its
-- upkeep every heartbeat (QueueSettings.heartbeat) on the connection that already renews its
-- leases: the queues it claims from, when it started, its latest beat, how many jobs it holds and
-- its totals so far. `weir queue ui`'s workers page reads it (a rate is the difference of two
-- beats' totals). The row is deleted when the worker stops; a worker killed leaves its row, whose
-- beat then grows old (the page shows its age), and any worker's upkeep deletes rows whose beat is
-- older than a day. One row a worker, updated in place (no indexed column changes: HOT updates),
-- nothing on the claim or completion path.
CREATE TABLE weir.workers (
  id           text        PRIMARY KEY,
  queues       text[]      NOT NULL,
  started_at   timestamptz NOT NULL DEFAULT now(),
  beat_at      timestamptz NOT NULL DEFAULT now(),
  holding      integer     NOT NULL DEFAULT 0,
  claimed      bigint      NOT NULL DEFAULT 0,
  completed    bigint      NOT NULL DEFAULT 0,
  failed       bigint      NOT NULL DEFAULT 0
);
