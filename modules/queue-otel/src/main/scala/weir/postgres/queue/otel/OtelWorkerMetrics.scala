package weir.postgres.queue.otel

import cats.effect.{Async, Resource}
import cats.effect.syntax.all.*
import io.opentelemetry.api.OpenTelemetry
import io.opentelemetry.api.common.{AttributeKey, Attributes}
import io.opentelemetry.api.metrics.{DoubleHistogram, LongCounter, Meter}
import java.util.concurrent.atomic.AtomicLong
import scala.concurrent.duration.FiniteDuration
import scala.jdk.CollectionConverters.*
import weir.postgres.queue.{Job, Worker, WorkerEvent}

/** A [[weir.postgres.queue.Worker]]'s metrics as OpenTelemetry instruments, on the OpenTelemetry
  * Java API (the `Meter` of the application's `OpenTelemetry`: the SDK it configured, the Java
  * agent's, or otel4s-oteljava's `underlying`): what `weir worker --metrics` serves as Prometheus
  * text, under OpenTelemetry's names.
  *
  *   - `weir.queue.jobs.claimed`, `weir.queue.jobs.completed` (handlers that succeeded),
  *     `weir.queue.jobs.failed` (attempts that failed or timed out), `weir.queue.jobs.retried` (the
  *     failed attempts whose job runs again), `weir.queue.jobs.discarded` (after their last
  *     attempt, or by their handler): counters with the attributes `queue` and `kind`, from the
  *     worker's events ([[Worker.listen]]), each exact.
  *   - `weir.queue.claim.duration` (attribute `queue`) and `weir.queue.ack.duration` (none: one
  *     batch writes the results of every queue of the worker): histograms in seconds of each claim
  *     statement that took jobs ([[WorkerEvent.Claimed]]) and each batch of results written
  *     ([[WorkerEvent.Acknowledged]]), with the buckets of [[bounds]] as advice.
  *   - `weir.queue.jobs.in_flight` (attribute `worker`, the worker's id): an observable up-down
  *     counter of the handlers running, as the worker's [[Worker.progress]] last sampled it (on the
  *     run's tick, and once more when the run has ended: 0 after it).
  *
  * The queue's depth needs a statement on the database, not an event: [[OtelQueueDepth]].
  */
object OtelWorkerMetrics:

  /** The instrumentation scope of [[meter]]: the name the instruments are registered under. */
  val scope: String = "weir.postgres.queue"

  /** The attribute naming a job's queue. */
  val queueKey: AttributeKey[String] = AttributeKey.stringKey("queue")

  /** The attribute naming a job's kind ([[weir.postgres.queue.JobKind]], `default` without one). */
  val kindKey: AttributeKey[String] = AttributeKey.stringKey("kind")

  /** The attribute naming a worker ([[Worker.id]]) on the jobs in flight. */
  val workerKey: AttributeKey[String] = AttributeKey.stringKey("worker")

  /** The histograms' bucket boundaries in seconds (advice: a view of the SDK may replace them), the
    * same as `weir worker --metrics`'s.
    */
  val bounds: List[Double] =
    List(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)

  /** The meter of [[scope]] from `otel`. */
  def meter(otel: OpenTelemetry): Meter = otel.getMeter(scope)

  /** [[resource]] on the [[meter]] of `otel`. */
  def fromOpenTelemetry[F[_]: Async](worker: Worker[F], otel: OpenTelemetry): Resource[F, Unit] =
    resource(worker, meter(otel))

  /** Records `worker`'s metrics (see [[OtelWorkerMetrics]]) on `meter` from the moment the resource
    * is acquired (no event after that is missed) until it is released, before, during or after the
    * worker's run; any number of workers may record on one meter (their counts add up, series by
    * queue and kind; in flight is one series per worker).
    *
    * '''Concurrency.''' The counters and histograms are recorded in the fibers that publish the
    * worker's events (a handler's, the claim loop's, the completion writer's), inline, before each
    * goes on: an `add` or `record` of OpenTelemetry's instruments, thread-safe and non-blocking, a
    * few map look-ups in the SDK; no buffer, no fiber and no wake-up per event. In flight follows
    * [[Worker.progress]] in one fiber of its own, and the SDK's reader reads it on its collection
    * thread.
    *
    * '''Cancellation.''' Releasing it stops recording (the listener removed, the fiber cancelled,
    * the in-flight callback closed); the synchronous instruments stay in the meter with what they
    * counted (OpenTelemetry has no way to remove them).
    *
    * '''Errors.''' None is raised: the OpenTelemetry API does not throw (an SDK logs a bad
    * instrument), and what a listener throws never reaches the worker.
    */
  def resource[F[_]](worker: Worker[F], meter: Meter)(using F: Async[F]): Resource[F, Unit] =
    val inFlight = new AtomicLong
    val inFlightAttributes = Attributes.of(workerKey, worker.id)
    for
      instruments <- Resource.eval(F.delay(new Instruments(meter)))
      _ <- Resource.fromAutoCloseable(F.delay {
        meter
          .upDownCounterBuilder("weir.queue.jobs.in_flight")
          .setDescription("Jobs whose handler is running, at the worker's last sample.")
          .setUnit("{job}")
          .buildWithCallback(m => m.record(inFlight.get, inFlightAttributes))
      })
      _ <- worker.progress
        .evalMap(p => F.delay(inFlight.set(p.engine.inFlight)))
        .compile
        .drain
        .background
      _ <- worker.listen(counted)(instruments.record)
    yield ()

  // The events the instruments read.
  private def counted(e: WorkerEvent): Boolean = e match
    case _: WorkerEvent.Claimed | _: WorkerEvent.Succeeded | _: WorkerEvent.Failed => true
    case _: WorkerEvent.Discarded | _: WorkerEvent.Acknowledged                    => true
    case _                                                                         => false

  /** The synchronous instruments, and how each event is recorded on them. */
  private final class Instruments(meter: Meter):
    private def counter(name: String, unit: String, description: String): LongCounter =
      meter.counterBuilder(name).setUnit(unit).setDescription(description).build()

    private def seconds(name: String, description: String): DoubleHistogram =
      meter
        .histogramBuilder(name)
        .setUnit("s")
        .setDescription(description)
        .setExplicitBucketBoundariesAdvice(bounds.map(Double.box).asJava)
        .build()

    private val claimed = counter("weir.queue.jobs.claimed", "{job}", "Jobs claimed.")
    private val completed =
      counter("weir.queue.jobs.completed", "{job}", "Jobs whose handler succeeded.")
    private val failed = counter(
      "weir.queue.jobs.failed",
      "{attempt}",
      "Attempts that failed (or timed out): retried later, or the last."
    )
    private val retried =
      counter("weir.queue.jobs.retried", "{attempt}", "Failed attempts whose job runs again.")
    private val discarded = counter(
      "weir.queue.jobs.discarded",
      "{job}",
      "Jobs discarded: after their last attempt, or by their handler."
    )
    private val claims = seconds(
      "weir.queue.claim.duration",
      "How long each claim statement took that claimed jobs."
    )
    private val acks = seconds(
      "weir.queue.ack.duration",
      "How long each batch of results took to be written back (one statement)."
    )

    private def of(job: Job): Attributes = Attributes.of(queueKey, job.queue, kindKey, job.kind)

    private def secondsOf(d: FiniteDuration): Double = d.toNanos / 1e9

    def record(event: WorkerEvent): Unit = event match
      case WorkerEvent.Claimed(jobs, took) =>
        jobs.foreach(j => claimed.add(1, of(j)))
        claims.record(secondsOf(took), Attributes.of(queueKey, jobs.head.queue))
      case WorkerEvent.Succeeded(job, _) => completed.add(1, of(job))
      case f @ WorkerEvent.Failed(job, _, _) =>
        val attributes = of(job)
        failed.add(1, attributes)
        if f.willRetry then retried.add(1, attributes)
      case WorkerEvent.Discarded(job, _)        => discarded.add(1, of(job))
      case WorkerEvent.Acknowledged(_, _, took) => acks.record(secondsOf(took))
      case _                                    => ()
