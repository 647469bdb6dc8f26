package weir.postgres.queue.otel4s

import cats.effect.{Async, Resource}
import cats.effect.syntax.all.*
import cats.syntax.all.*
import org.typelevel.otel4s.{Attribute, AttributeKey, Attributes}
import org.typelevel.otel4s.metrics.{BucketBoundaries, Counter, Histogram, Meter}
import scala.concurrent.duration.FiniteDuration
import weir.postgres.queue.{Job, Worker, WorkerEvent}

/** A [[weir.postgres.queue.Worker]]'s metrics through otel4s: instruments of the application's
  * `Meter[F]` (otel4s's oteljava backend, or any other), with the names, units, attributes and
  * buckets of `weir-queue-otel`'s `OtelWorkerMetrics` (the module on the OpenTelemetry Java API),
  * so that a dashboard reads either.
  *
  *   - `weir.queue.jobs.claimed`, `weir.queue.jobs.completed` (handlers that succeeded),
  *     `weir.queue.jobs.failed` (attempts that failed or timed out), `weir.queue.jobs.retried` (the
  *     failed attempts whose job runs again), `weir.queue.jobs.discarded` (after their last
  *     attempt, or by their handler): counters with the attributes `queue` and `kind`.
  *   - `weir.queue.claim.duration` (attribute `queue`) and `weir.queue.ack.duration` (none: one
  *     batch writes the results of every queue of the worker): histograms in seconds of each claim
  *     statement that took jobs ([[WorkerEvent.Claimed]]) and each batch of results written
  *     ([[WorkerEvent.Acknowledged]]), with the buckets of [[bounds]].
  *   - `weir.queue.jobs.in_flight` (attribute `worker`, the worker's id): an observable up-down
  *     counter of the handlers running, as the worker's [[Worker.progress]] last sampled it.
  *   - `weir.queue.events.lost` (attribute `worker`): the events this module's subscription lost
  *     because its buffer was full (see [[resource]]); absent while none was lost. Not in
  *     `OtelWorkerMetrics`, which records inline and loses none.
  */
object Otel4sWorkerMetrics:

  /** The instrumentation scope to take the meter of (`MeterProvider[F].get(scope)`), the same as
    * `OtelWorkerMetrics.scope`.
    */
  val scope: String = "weir.postgres.queue"

  /** The attribute naming a job's queue. */
  val queueKey: AttributeKey[String] = AttributeKey.string("queue")

  /** The attribute naming a job's kind ([[weir.postgres.queue.JobKind]], `default` without one). */
  val kindKey: AttributeKey[String] = AttributeKey.string("kind")

  /** The attribute naming a worker ([[Worker.id]]) on the jobs in flight and the events lost. */
  val workerKey: AttributeKey[String] = AttributeKey.string("worker")

  /** The histograms' bucket boundaries in seconds, the same as `weir worker --metrics`'s and
    * `OtelWorkerMetrics.bounds`.
    */
  val bounds: BucketBoundaries =
    BucketBoundaries(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)

  /** Records `worker`'s metrics (see [[Otel4sWorkerMetrics]]) on the given `Meter[F]` from the
    * moment the resource is acquired (its subscription is registered then: no event published after
    * that is missed by it) until it is released, before, during or after the worker's run; any
    * number of workers may record on one meter (their counts add up, series by queue and kind; in
    * flight is one series per worker).
    *
    * '''Concurrency.''' otel4s's instruments record in `F`, which a [[Worker.listen]]er (called
    * synchronously in the worker's publishing fibers) cannot run; so the events come through a
    * [[Worker.subscribe]]ption with a buffer of `buffer` events (only the five kinds counted take
    * room in it), read by one fiber of this resource that records them in order, a chunk of events
    * at a time. In flight follows [[Worker.progress]] in a second fiber, and the meter's reader
    * calls the up-down counter's callback, which only reads the last sample.
    *
    * '''A slow reader.''' The subscription never slows the worker: when the recording fiber falls
    * `buffer` events behind, the events that find the buffer full are dropped for it, so the
    * counters and histograms miss them (they are exact only while it keeps up), and how many were
    * dropped is added to `weir.queue.events.lost` when the next event arrives. `OtelWorkerMetrics`
    * (weir-queue-otel) records inline and never drops one, for those who need that.
    *
    * '''Cancellation.''' Releasing it cancels both fibers (events still in the buffer are not
    * recorded), ends the subscription and closes the in-flight callback; the synchronous
    * instruments stay in the meter with what they counted.
    *
    * '''Errors.''' An event whose recording fails is skipped, and recording goes on with the next;
    * nothing is raised to the worker or from the resource.
    */
  def resource[F[_]](worker: Worker[F], buffer: Int = Worker.eventBuffer)(using
      F: Async[F],
      meter: Meter[F]
  ): Resource[F, Unit] =
    val workerAttribute = Attribute(workerKey, worker.id)
    for
      instruments <- Resource.eval(Instruments.create(meter))
      inFlight <- Resource.eval(F.ref(0L))
      _ <- meter
        .observableUpDownCounter[Long]("weir.queue.jobs.in_flight")
        .withUnit("{job}")
        .withDescription("Jobs whose handler is running, at the worker's last sample.")
        .createWithCallback(m => inFlight.get.flatMap(n => m.record(n, workerAttribute)))
      _ <- worker.progress.evalMap(p => inFlight.set(p.engine.inFlight)).compile.drain.background
      events <- worker.subscribe(buffer, counted)
      _ <- events
        .evalMap(e => instruments.record(e, workerAttribute).handleError(_ => ()))
        .compile
        .drain
        .background
    yield ()

  // The events the instruments read (a Lagged reaches the subscriber whatever `only` says).
  private def counted(e: WorkerEvent): Boolean = e match
    case _: WorkerEvent.Claimed | _: WorkerEvent.Succeeded | _: WorkerEvent.Failed => true
    case _: WorkerEvent.Discarded | _: WorkerEvent.Acknowledged                    => true
    case _                                                                         => false

  /** The synchronous instruments, and how each event is recorded on them. */
  private final class Instruments[F[_]](
      claimed: Counter[F, Long],
      completed: Counter[F, Long],
      failed: Counter[F, Long],
      retried: Counter[F, Long],
      discarded: Counter[F, Long],
      lost: Counter[F, Long],
      claims: Histogram[F, Double],
      acks: Histogram[F, Double]
  )(using F: Async[F]):
    private def of(job: Job): Attributes = Attributes(queueKey(job.queue), kindKey(job.kind))

    private def secondsOf(d: FiniteDuration): Double = d.toNanos / 1e9

    def record(event: WorkerEvent, workerAttribute: Attribute[String]): F[Unit] = event match
      case WorkerEvent.Claimed(jobs, took) =>
        // One add per (queue, kind) of the claim, not one per job.
        jobs.groupMapReduce(j => (j.queue, j.kind))(_ => 1L)(_ + _).toList.traverse_ {
          case ((queue, kind), n) => claimed.add(n, queueKey(queue), kindKey(kind))
        } >> jobs.headOption.traverse_(j => claims.record(secondsOf(took), queueKey(j.queue)))
      case WorkerEvent.Succeeded(job, _) => completed.inc(of(job))
      case f @ WorkerEvent.Failed(job, _, _) =>
        val attributes = of(job)
        failed.inc(attributes) >> retried.inc(attributes).whenA(f.willRetry)
      case WorkerEvent.Discarded(job, _)        => discarded.inc(of(job))
      case WorkerEvent.Acknowledged(_, _, took) => acks.record(secondsOf(took))
      case WorkerEvent.Lagged(dropped)          => lost.add(dropped, workerAttribute)
      case _                                    => F.unit

  private object Instruments:
    def create[F[_]](meter: Meter[F])(using F: Async[F]): F[Instruments[F]] =
      def counter(name: String, unit: String, description: String): F[Counter[F, Long]] =
        meter.counter[Long](name).withUnit(unit).withDescription(description).create
      def seconds(name: String, description: String): F[Histogram[F, Double]] =
        meter
          .histogram[Double](name)
          .withUnit("s")
          .withDescription(description)
          .withExplicitBucketBoundaries(bounds)
          .create
      (
        counter("weir.queue.jobs.claimed", "{job}", "Jobs claimed."),
        counter("weir.queue.jobs.completed", "{job}", "Jobs whose handler succeeded."),
        counter(
          "weir.queue.jobs.failed",
          "{attempt}",
          "Attempts that failed (or timed out): retried later, or the last."
        ),
        counter("weir.queue.jobs.retried", "{attempt}", "Failed attempts whose job runs again."),
        counter(
          "weir.queue.jobs.discarded",
          "{job}",
          "Jobs discarded: after their last attempt, or by their handler."
        ),
        counter(
          "weir.queue.events.lost",
          "{event}",
          "Worker events the metrics' subscription dropped, its buffer full: not counted above."
        ),
        seconds(
          "weir.queue.claim.duration",
          "How long each claim statement took that claimed jobs."
        ),
        seconds(
          "weir.queue.ack.duration",
          "How long each batch of results took to be written back (one statement)."
        )
      ).mapN(new Instruments(_, _, _, _, _, _, _, _))
