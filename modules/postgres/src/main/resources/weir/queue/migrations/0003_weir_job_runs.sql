-- The run log (weir.postgres.queue.RunLog): one row per attempt a worker started, written only by
-- workers that record their runs (`weir worker --record-runs`, which `weir queue torture` starts),
-- read by the crash test to count duplicate runs and completions without a run. IF NOT EXISTS:
-- weir before this migration created the table outside the migrations, the same way.
CREATE TABLE IF NOT EXISTS weir.job_runs (
  job_id  bigint      NOT NULL,
  attempt integer     NOT NULL,
  worker  text        NOT NULL,
  at      timestamptz NOT NULL DEFAULT clock_timestamp()
);
