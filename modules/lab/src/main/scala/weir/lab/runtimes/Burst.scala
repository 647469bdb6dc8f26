package weir.lab.runtimes

import cats.effect.IO
import cats.effect.std.Dispatcher
import cats.syntax.all.*
import java.util.UUID
import java.util.concurrent.atomic.AtomicLong

/** What the fibers of one `weir runtimes` run do: `processes` fibers started at once, each making
  * `cycles` calls one after another. Every finished call increments `progress`, which the probe's
  * watchdog reads to tell a slow run from a deadlocked one.
  */
enum Burst(val name: String, val summary: String):

  /** Seed 004: `IO.delay(dispatcher.unsafeRunSync(IO(UUID.randomUUID())))`, one
    * `Dispatcher.parallel` for all fibers. Each call blocks its compute thread until the inner IO,
    * submitted to the same runtime, has run.
    */
  case Blocking
      extends Burst(
        "blocking",
        "each call: IO.delay(dispatcher.unsafeRunSync(IO(UUID.randomUUID()))), one Dispatcher.parallel (seed 004)"
      )

  /** The control: the same fibers and calls without blocking, `IO(UUID.randomUUID())` then
    * `IO.cede`, so each call still goes back to the scheduler once, as a blocking call does.
    */
  case Pure
      extends Burst(
        "pure",
        "each call: IO(UUID.randomUUID()) then IO.cede; nothing blocks (control)"
      )

  /** The program; it never blocks the caller's thread, only the runtime's. */
  def program(processes: Int, cycles: Int, progress: AtomicLong): IO[Unit] = this match
    case Blocking =>
      Dispatcher.parallel[IO](await = true).use { dispatcher =>
        val call = IO.delay {
          dispatcher.unsafeRunSync(IO(UUID.randomUUID())).discard
          progress.incrementAndGet().discard
        }
        (1 to processes).toList.parTraverse_(_ => call.replicateA_(cycles))
      }
    case Pure =>
      val call = IO(UUID.randomUUID()) >> IO.cede >> IO.delay(progress.incrementAndGet().discard)
      (1 to processes).toList.parTraverse_(_ => call.replicateA_(cycles))

  extension [A](value: A) private def discard: Unit = ()

object Burst:

  /** The burst called `name`; `Left` lists the names. */
  def named(name: String): Either[String, Burst] =
    values
      .find(_.name == name.trim.toLowerCase)
      .toRight(s"'$name' is not one of: ${values.map(_.name).mkString(", ")}")
