package weir.cli.queue

import cats.effect.{IO, Resource}
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.LongAdder
import scala.jdk.CollectionConverters.*
import weir.engine.FailureClass
import weir.postgres.queue.{Worker, WorkerEvent}

/** Why a `weir worker` run's attempts failed, for its summary: the failed attempts counted by cause
  * (the engine's [[weir.engine.FailureClass]]: `refused`, `timeout`, `status-404`, `exit-1`, or an
  * error's class), each with the message of one of them, as `weir load` counts its errors by class.
  *
  * '''Concurrency.''' Counted in the fibers that publish the failures ([[Worker.listen]]), on
  * concurrent counters; [[current]] reads them at any time.
  */
final class WorkerFailures private (causes: ConcurrentHashMap[String, WorkerFailures.Counter]):

  /** The causes so far, the most frequent first. */
  def current: IO[List[WorkerFailures.Cause]] = IO(
    causes.asScala.toList
      .map((label, c) => WorkerFailures.Cause(label, c.attempts.sum, c.example))
      .sortBy(c => (-c.attempts, c.label))
  )

object WorkerFailures:

  /** `attempts` failed for the reason `label`; `example` is one of their messages. */
  final case class Cause(label: String, attempts: Long, example: String)

  private final class Counter(val example: String):
    val attempts = new LongAdder

  /** Counts `worker`'s failed attempts while in use. */
  def resource(worker: Worker[IO]): Resource[IO, WorkerFailures] =
    val causes = new ConcurrentHashMap[String, Counter]
    def count(event: WorkerEvent): Unit = event match
      case WorkerEvent.Failed(_, error, _) =>
        val message = Option(error.getMessage).getOrElse(error.getClass.getName)
        causes
          .computeIfAbsent(FailureClass.of(error).label, _ => new Counter(message))
          .attempts
          .increment()
      case _ => ()
    val failed: WorkerEvent => Boolean =
      case _: WorkerEvent.Failed => true
      case _                     => false
    worker.listen(failed)(count).map(_ => new WorkerFailures(causes))
