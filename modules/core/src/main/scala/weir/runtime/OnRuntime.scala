package weir.runtime

import cats.effect.IO
import cats.effect.unsafe.IORuntime
import scala.concurrent.ExecutionContext

/** Runs a program on another runtime than the caller's: the one helper weir's commands, presets and
  * lab use for it.
  */
object OnRuntime:

  /** Starts `program` on `runtime`; returns its result (or error) to await from the caller's
    * runtime, and an effect that cancels it there and waits until it has stopped.
    */
  def start[A](program: IO[A], runtime: IORuntime): IO[(IO[A], IO[Unit])] =
    IO.delay(program.unsafeToFutureCancelable()(runtime)).map { (future, cancel) =>
      // Awaiting is cancelable on its own: the caller may stop waiting without waiting for it.
      val result = IO.async[A] { cb =>
        IO {
          future.onComplete(r => cb(r.toEither))(ExecutionContext.parasitic)
          Some(IO.unit)
        }
      }
      (result, IO.fromFuture(IO.delay(cancel())))
    }

  /** Runs `program` on `runtime` and waits for it. Its result or error is the caller's; cancelling
    * the wait cancels `program` and waits for it to stop.
    */
  def run[A](program: IO[A], runtime: IORuntime): IO[A] =
    start(program, runtime).flatMap((result, cancel) => result.onCancel(cancel))
