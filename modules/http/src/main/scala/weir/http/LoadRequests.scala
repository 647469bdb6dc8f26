package weir.http

import cats.effect.kernel.Async
import cats.syntax.all.*
import fs2.{Chunk, Stream}
import scala.concurrent.duration.*
import weir.engine.{Recorder, Snapshot, TaskOutcome, TaskResult}

/** The requests of one load, as the engine's handler ([[attempt]]) and recorder ([[recording]]):
  * sent by `client`, recorded in `recorder` and a [[LoadTimeline]], on the load's clock that
  * started at `start`.
  *
  * A server that refuses [[LoadConfig.refusedLimit]] connections in a row is taken for gone:
  * [[record]] then runs `serverGone` (the load's stop, for [[Ending.ServerGone]]).
  */
private[http] final class LoadRequests[F[_]](
    config: LoadConfig,
    recorder: LoadRecorder,
    client: Requester[F],
    start: FiniteDuration,
    serverGone: F[Unit]
)(using F: Async[F]):

  // Open model: request `index` is due at start + index / rate.
  private val interval: Option[Double] = config.rate.map(1e9 / _)
  private def due(index: Long): Option[FiniteDuration] =
    interval.map(i => start + (index * i).toLong.nanos)

  /** The load's tasks as the engine is to take them: at once in the closed model; under a rate,
    * each released at its due time, so that a request waiting for its turn is neither taken by a
    * worker, nor in flight, nor timed (the engine's statistics, a live view and `-c auto` see only
    * requests sent). Chunks stay whole where they are due at once: one sleep per instant, not per
    * request. Cancelable at every sleep.
    */
  def paced[A](tasks: Stream[F, A])(index: A => Long): Stream[F, A] =
    interval match
      case None => tasks
      case Some(_) =>
        def release(chunk: Chunk[A]): Stream[F, A] =
          if chunk.isEmpty then Stream.empty
          else
            Stream.eval(F.monotonic).flatMap { now =>
              def ready(a: A) = due(index(a)).forall(_ <= now)
              val n = chunk.indexWhere(a => !ready(a)).getOrElse(chunk.size)
              if n == chunk.size then Stream.chunk(chunk)
              else if n > 0 then Stream.chunk(chunk.take(n)) ++ release(chunk.drop(n))
              else
                val wait = due(index(chunk(0))).fold(Duration.Zero)(_ - now)
                Stream.sleep_[F](wait) ++ release(chunk)
            }
        tasks.chunks.flatMap(release)

  /** One attempt: send, and fail for no answer or a 5xx. Under a rate it runs once due: the tasks
    * are [[paced]].
    */
  def attempt(target: Target): F[Int] =
    F.delay(recorder.started()) >> client.send(target, config.request).flatMap { result =>
      recorder.ended()
      result match
        case Right(status) if status >= 500 => F.raiseError(RequestFailed.ServerError(status))
        case Right(status)                  => F.pure(status)
        case Left(error) =>
          F.raiseError(RequestFailed.NoResponse(ErrorClass.of(error), error))
    }

  /** A request's end, recorded; its latency counts from when it was due under a rate. */
  def record[A](r: TaskResult[A, Int])(index: A => Long): F[Unit] =
    val latency: F[Long] = due(index(r.task)) match
      case None     => F.pure(r.latency.toNanos)
      case Some(at) => F.monotonic.map(now => (now - at).toNanos)
    r.outcome match
      case TaskOutcome.Succeeded(status) =>
        latency.flatMap(l => F.delay(recorder.answered(status, l)))
      case TaskOutcome.Failed(RequestFailed.ServerError(status)) =>
        latency.flatMap(l => F.delay(recorder.answered(status, l)))
      case TaskOutcome.Failed(bad: RequestFailed.BadLine) => F.delay(recorder.badLine(bad))
      case TaskOutcome.Failed(RequestFailed.NoResponse(errorClass, error)) =>
        F.delay(recorder.failed(errorClass, messageOf(error))).flatMap { refused =>
          serverGone.whenA(refused >= config.refusedLimit)
        }
      case TaskOutcome.Failed(other) =>
        F.delay(recorder.failed(ErrorClass.Other, messageOf(other))).void
      case TaskOutcome.TimedOut(after) =>
        F.delay(recorder.failed(ErrorClass.Timeout, s"no response within $after")).void
      case TaskOutcome.NotStarted => F.unit

  /** The load's [[weir.engine.Recorder]]: each request's end recorded ([[record]]), and an interval
    * of `timeline` closed on each of the run's ticks (and at its end).
    */
  def recording[A](timeline: LoadTimeline)(index: A => Long): Recorder[F, A, Int] =
    new Recorder[F, A, Int]:
      def record(result: TaskResult[A, Int]): F[Unit] = LoadRequests.this.record(result)(index)
      def sample(snapshot: Snapshot): F[Unit] =
        F.monotonic.flatMap(now => F.delay(timeline.close(now)))

  private def messageOf(e: Throwable): String = Option(e.getMessage).getOrElse(e.toString)
