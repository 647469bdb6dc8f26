package weir.lab.run

import cats.effect.{IO, Ref}
import cats.effect.unsafe.IORuntime
import cats.syntax.all.*
import scala.concurrent.duration.*
import weir.runtime.OnRuntime

/** Runs a program on a runtime of its own, timed and watched from the caller's runtime.
  *
  * The watchdog lives on the caller's runtime so that it keeps running when every thread of the
  * watched runtime is blocked. It samples `progress` every `sampleEvery`; when the value has not
  * changed for `stallAfter`, the run is reported as [[Outcome.Deadlocked]] and cancelled (threads
  * blocked for good are left to the runtime's shutdown, which interrupts them).
  *
  * Cancelling `run` cancels the program and waits for it to stop, at most `cancelGrace`.
  */
object Runner:

  /** Runs `program` on `runtime`; the outcome's time is measured inside `runtime`. */
  def run(
      program: IO[Unit],
      runtime: IORuntime,
      progress: () => Long,
      stallAfter: FiniteDuration,
      sampleEvery: FiniteDuration = 50.millis,
      cancelGrace: FiniteDuration = 5.seconds
  ): IO[Outcome] =
    val timed = IO.monotonic.flatMap { start =>
      program.attempt.flatMap(result => IO.monotonic.map(end => (result, end - start)))
    }
    IO.monotonic.flatMap { start =>
      OnRuntime.start(timed, runtime).flatMap { (result, cancel) =>
        val cancelProgram = cancel.timeout(cancelGrace).attempt.void
        // The wait is cancelable: losing the race must not wait for a program that may never end.
        val completion = result.map {
          case (Right(()), elapsed)   => Outcome.Completed(elapsed)
          case (Left(error), elapsed) => Outcome.Failed(error, elapsed)
        }
        val stalled = watch(progress, stallAfter, sampleEvery).flatMap { quiet =>
          IO.monotonic.map(now => Outcome.Deadlocked(now - start, quiet))
        }
        IO.race(completion, stalled)
          .flatMap {
            case Left(outcome)     => IO.pure(outcome)
            case Right(deadlocked) => cancelProgram.start.as(deadlocked)
          }
          .onCancel(cancelProgram)
      }
    }

  /** Completes with the quiet time once `progress` has not moved for `stallAfter`. */
  def watch(
      progress: () => Long,
      stallAfter: FiniteDuration,
      sampleEvery: FiniteDuration
  ): IO[FiniteDuration] =
    IO.monotonic.flatMap(now => Ref.of[IO, (Long, FiniteDuration)]((progress(), now))).flatMap {
      last =>
        val sample = IO.sleep(sampleEvery) >> IO.monotonic.flatMap { now =>
          val current = progress()
          last.modify { (seen, since) =>
            if current != seen then ((current, now), None)
            else if now - since >= stallAfter then ((seen, since), Some(now - since))
            else ((seen, since), None)
          }
        }
        sample.untilDefinedM
    }
