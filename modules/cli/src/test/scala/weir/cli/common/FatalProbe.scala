package weir.cli.common

import cats.effect.IO
import cats.effect.unsafe.implicits.global

/** A process for [[FatalExitSuite]]: installs the watchdog, then meets a fatal error where weir
  * does not contain it and would otherwise never end. `fiber`: an `OutOfMemoryError` thrown in a
  * plain `IO.delay` (cats-effect's fatal-error path); `thread`: a thread that dies of one. `plain`:
  * a thread dies of an ordinary exception, then the probe ends (exit 0).
  */
object FatalProbe:

  def main(args: Array[String]): Unit =
    FatalExit.install()
    args.headOption match
      case Some("plain") =>
        val dying = new Thread:
          override def run(): Unit = throw new IllegalStateException("not fatal")
        dying.start()
        dying.join()
        System.exit(0)
      case Some("fiber") =>
        IO.delay[Unit](throw new OutOfMemoryError("thrown by the probe")).unsafeRunAndForget()
      case _ =>
        // A class, not a lambda: a lambda whose body is only a `throw` fails to link (its
        // BootstrapMethodError, a LinkageError, would be the fatal error instead).
        val dying = new Thread:
          override def run(): Unit = throw new OutOfMemoryError("thrown by the probe")
        dying.start()
    // What a hung command does: wait on something that never comes.
    Thread.sleep(Long.MaxValue)
