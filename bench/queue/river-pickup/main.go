// Command river-pickup measures River's idle pick-up latency the way bench/queue/run.sh measures
// weir's: one River client (one queue, a no-op worker) is started on an idle database that
// `river migrate-up` has prepared, then -jobs jobs are inserted one at a time with client.Insert
// (River's own insert transaction and River's own insert notification), -gap apart (the gap is
// slept after each Insert returns, as the weir measurement sleeps after each COMMIT). When all are
// completed the client is stopped and each job's latency is read from its river_job row:
//
//	attempted_at - created_at
//
// with the same SQL (percentile_cont in PostgreSQL) as the weir measurement.
//
// Where those two timestamps come from (checked in the v0.29.0 sources in the module cache):
//   - attempted_at: the fetch query JobGetAvailable (riverpgxv5 internal/dbsqlc/river_job.sql)
//     sets `attempted_at = coalesce(sqlc.narg('now')::timestamptz, now())`, and the producer passes
//     Now: p.Time.NowUTCOrNil(), which is nil outside tests (UnStubbableTimeGenerator), so it is
//     the claim statement's now() on the server, as in weir.
//   - created_at: NOT the server's now(). JobInsertFastMany's SQL does say
//     `coalesce(nullif(created_at, '0001-01-01 ...'), now())`, but the pgx driver
//     (riverpgxv5 river_pgx_v5_driver.go, Executor.JobInsertFastMany) fills every job's
//     created_at (and scheduled_at) with the Go process's time.Now().UTC() when the client left it
//     nil (it does, outside tests), so the zero that would select now() is never sent. It is
//     taken inside Insert's transaction, after BEGIN, just before the INSERT is sent. On one
//     machine Go's time.Now and PostgreSQL's now() read the same wall clock, so the difference is
//     the same quantity as weir's minus the time from the transaction's start to that
//     time.Now() (well under a millisecond, and in River's favour).
//
// What to expect with River's defaults (FetchCooldown 100ms, FetchPollInterval 1s), from the same
// sources: the inserting client sends an insert notification at most once per FetchCooldown per
// queue (Client.insertNotifyLimiter, internal/notifylimiter), so with inserts ~50 ms apart about
// every second Insert sends none and its job waits for the next notification's fetch, and a job
// inserted last without one waits for the FetchPollInterval poll; and the producer's fetches go
// through a debouncer (internal/util/chanutil.DebouncedChan, FetchCooldown) that, while calls keep
// coming, fires once per cooldown on a fixed grid, so even a notified job can wait up to ~100 ms.
//
// Output on stdout, one line each (milliseconds):
//
//	server COUNT P50 P99 MAX   attempted_at - created_at, from the rows
//	client COUNT P50 P99 MAX   Insert returned -> Work called, both read from this process's clock
//
// Work can be called before Insert has returned (the notification goes out at COMMIT), so a
// client-side latency can be slightly negative.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"math"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
)

// PickupArgs is the job: no arguments, nothing to do.
type PickupArgs struct{}

func (PickupArgs) Kind() string { return "pickup_noop" }

// PickupWorker does nothing but note when River handed it the job.
type PickupWorker struct {
	river.WorkerDefaults[PickupArgs]
	times *times
}

func (w *PickupWorker) Work(ctx context.Context, job *river.Job[PickupArgs]) error {
	w.times.worked(job.ID, time.Now())
	return nil
}

// times holds the client-side clock readings per job id.
type times struct {
	mu       sync.Mutex
	inserted map[int64]time.Time // client.Insert returned
	work     map[int64]time.Time // Work was called
}

func (t *times) insertedAt(id int64, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.inserted[id] = at
}

func (t *times) worked(id int64, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, seen := t.work[id]; !seen {
		t.work[id] = at
	}
}

func main() {
	databaseURL := flag.String("database-url", "", "PostgreSQL URL of a database `river migrate-up` has prepared (required)")
	fetchCooldown := flag.Duration("fetch-cooldown", 0, "River's Config.FetchCooldown; 0 leaves it to River's default (100ms)")
	jobs := flag.Int("jobs", 200, "jobs to insert, one Insert each")
	gap := flag.Duration("gap", 50*time.Millisecond, "sleep after each Insert returns")
	maxWorkers := flag.Int("max-workers", 10, "MaxWorkers of the one queue (default)")
	settle := flag.Duration("settle", 2*time.Second, "wait after the client has started, before the first insert")
	flag.Parse()
	if *databaseURL == "" {
		log.Fatal("--database-url is required")
	}
	if err := run(*databaseURL, *fetchCooldown, *jobs, *gap, *maxWorkers, *settle); err != nil {
		log.Fatal(err)
	}
}

func run(databaseURL string, fetchCooldown time.Duration, jobs int, gap time.Duration, maxWorkers int, settle time.Duration) error {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, databaseURL)
	if err != nil {
		return err
	}
	defer pool.Close()

	t := &times{inserted: map[int64]time.Time{}, work: map[int64]time.Time{}}
	workers := river.NewWorkers()
	river.AddWorker(workers, &PickupWorker{times: t})
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		FetchCooldown: fetchCooldown, // zero: River's FetchCooldownDefault
		Logger:        slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Queues:        map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: maxWorkers}},
		Workers:       workers,
	})
	if err != nil {
		return err
	}
	completed, cancelSub := client.Subscribe(river.EventKindJobCompleted)
	defer cancelSub()
	if err := client.Start(ctx); err != nil {
		return err
	}
	// Start returns once its services (the notifier's LISTEN among them) are up; give the
	// producer's first fetch and the leader election time to settle so the queue is idle.
	time.Sleep(settle)

	ids := make([]int64, 0, jobs)
	done := make(chan error, 1)
	go func() { // counts this run's completions while the inserts go on
		want := map[int64]bool{}
		n := 0
		deadline := time.After(time.Duration(jobs)*gap + time.Minute)
		for n < jobs {
			select {
			case ev := <-completed:
				if ev.Job != nil && ev.Job.Kind == (PickupArgs{}).Kind() && !want[ev.Job.ID] {
					want[ev.Job.ID] = true
					n++
				}
			case <-deadline:
				done <- fmt.Errorf("only %d of %d jobs completed", n, jobs)
				return
			}
		}
		done <- nil
	}()
	for i := 0; i < jobs; i++ {
		res, err := client.Insert(ctx, PickupArgs{}, nil)
		if err != nil {
			return err
		}
		t.insertedAt(res.Job.ID, time.Now())
		ids = append(ids, res.Job.ID)
		time.Sleep(gap)
	}
	if err := <-done; err != nil {
		return err
	}
	stopCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := client.Stop(stopCtx); err != nil {
		return err
	}

	// Server side: the same statement as the weir measurement in bench/queue/run.sh.
	var n int
	var p50, p99, pmax float64
	err = pool.QueryRow(ctx, `
		SELECT count(*),
		       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 2)::float8,
		       round(percentile_cont(0.99) WITHIN GROUP (ORDER BY ms)::numeric, 2)::float8,
		       round(max(ms)::numeric, 2)::float8
		FROM (SELECT extract(epoch FROM attempted_at - created_at) * 1000 AS ms
		      FROM river_job WHERE id = ANY($1) AND state = 'completed') x`, ids).Scan(&n, &p50, &p99, &pmax)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && n != jobs) {
		return fmt.Errorf("%d of %d jobs are completed in river_job", n, jobs)
	} else if err != nil {
		return err
	}
	fmt.Printf("server %d %.2f %.2f %.2f\n", n, p50, p99, pmax)

	// Client side.
	ms := make([]float64, 0, jobs)
	for _, id := range ids {
		ms = append(ms, float64(t.work[id].Sub(t.inserted[id]))/float64(time.Millisecond))
	}
	sort.Float64s(ms)
	fmt.Printf("client %d %.2f %.2f %.2f\n", len(ms), percentile(ms, 0.5), percentile(ms, 0.99), ms[len(ms)-1])
	return nil
}

// percentile is PostgreSQL's percentile_cont (linear interpolation) over sorted values.
func percentile(sorted []float64, p float64) float64 {
	pos := p * float64(len(sorted)-1)
	lo := math.Floor(pos)
	hi := math.Ceil(pos)
	return sorted[int(lo)] + (pos-lo)*(sorted[int(hi)]-sorted[int(lo)])
}
