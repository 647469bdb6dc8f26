package weir.cli.queue

import cats.effect.{IO, Resource}
import weir.cli.common.StatusLine
import weir.postgres.queue.{Worker, WorkerEvent}

/** What `weir worker` says on stderr as it happens, beside its live line: a statement of the worker
  * that failed and is being tried again ([[WorkerEvent.UpkeepError]]), a connection lost and being
  * reopened, a running job interrupted because it was cancelled or its lease lost. One line each,
  * never a stack trace; the run goes on (see [[Worker.run]] for when it does not).
  */
object WorkerWarnings:

  /** Prints the worker's warnings while in use (a subscription of its own to these events alone:
    * see [[Worker.subscribe]]; a burst beyond its buffer is summed up as one line).
    */
  def resource(worker: Worker[IO]): Resource[IO, Unit] =
    worker.subscribe(256, line(_).isDefined).flatMap { events =>
      events
        .collect(Function.unlift(line))
        .evalMap(StatusLine.warn)
        .compile
        .drain
        .background
        .map(_ => ())
    }

  /** The line for `event`, if it is one the worker warns about. */
  def line(event: WorkerEvent): Option[String] = event match
    case WorkerEvent.UpkeepError(part, error, attempt) =>
      val message = Option(error.getMessage)
        .flatMap(_.linesIterator.map(_.trim).find(_.nonEmpty))
        .getOrElse(error.getClass.getName)
      Some(
        s"weir worker: ${part.toString.toLowerCase} failed ($attempt in a row), trying again: $message"
      )
    case WorkerEvent.ConnectionLost(role) =>
      Some(s"weir worker: the $role connection was lost; reopening it")
    case WorkerEvent.Cancelled(job, why) =>
      Some(s"weir worker: job ${job.id} interrupted: $why")
    case WorkerEvent.Lagged(n) => Some(s"weir worker: $n more events not shown")
    case _                     => None
