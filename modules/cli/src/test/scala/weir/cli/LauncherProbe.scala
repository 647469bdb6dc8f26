package weir.cli

import cats.effect.{ExitCode, IO}
import cats.effect.unsafe.IORuntime
import scala.concurrent.duration.*

/** A process for [[LauncherSuite]]: runs a program through [[Launcher.exitCode]] as `weir` runs its
  * commands. `code`: ends with exit code 7; `error`: fails with an error nothing caught; `wait`:
  * says `started` on stdout, then waits until cancelled, its finalizer writing to stderr.
  */
object LauncherProbe:

  def main(args: Array[String]): Unit =
    val program = args.headOption match
      case Some("code")  => IO.pure(ExitCode(7))
      case Some("error") => IO.raiseError(new IllegalStateException("nothing caught this"))
      case _ =>
        (IO.println("started") >> IO.never[ExitCode]).onCancel(
          IO.sleep(200.millis) >>
            IO(System.err.println("cancelled: the finalizer ran"))
        )
    Launcher.exitCode(program, IORuntime.global).foreach(code => System.exit(code))
