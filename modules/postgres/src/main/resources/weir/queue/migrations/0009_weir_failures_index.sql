-- Failed attempts by time (issue 22): `weir queue ui` charts failures per second over the last
-- minutes from failed_at, which no index covered (a chart's refresh would read the whole table).
-- Partial: only jobs that ever failed are in it. Every failure already writes a new row version
-- that every index of weir.jobs gets an entry for (state changes, and partial indexes depend on
-- it), so this adds one more index entry per failure and nothing to claims or completions.
CREATE INDEX jobs_failed ON weir.jobs (failed_at) WHERE failed_at IS NOT NULL;
