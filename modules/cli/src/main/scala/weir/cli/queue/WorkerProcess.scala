package weir.cli.queue

import cats.effect.IO
import java.nio.file.Path
import scala.jdk.CollectionConverters.*
import weir.cli.common.JavaCommand

/** A `weir worker` in a process of its own, for `weir queue torture`: a JVM like this one
  * ([[weir.cli.common.JavaCommand]]: `weir.cli.Launcher worker ...`), its output appended to a log
  * file. Signals are real: SIGKILL ([[kill]]), SIGSTOP / SIGCONT ([[pause]], [[resume]]), SIGINT
  * ([[interrupt]], the worker's graceful stop).
  */
final class WorkerProcess private (val process: Process):

  def pid: Long = process.pid

  def alive: Boolean = process.isAlive

  /** SIGKILL, and waits for the process to be gone. */
  def kill: IO[Unit] = sigkill >> gone

  /** Sends SIGKILL and returns at once (the process may take a moment to be gone: see [[gone]]). */
  def sigkill: IO[Unit] = IO.blocking(process.destroyForcibly()).void

  /** Waits until the process has exited. */
  def gone: IO[Unit] = IO.interruptible(process.waitFor()).void

  def pause: IO[Unit] = WorkerProcess.signal("STOP", pid)

  def resume: IO[Unit] = WorkerProcess.signal("CONT", pid)

  /** SIGINT (the worker stops gracefully), then waits up to `seconds` for it to exit, else kills.
    */
  def interrupt(seconds: Long): IO[Int] =
    WorkerProcess.signal("INT", pid) >> IO.interruptible {
      if !process.waitFor(seconds, java.util.concurrent.TimeUnit.SECONDS) then
        process.destroyForcibly().waitFor()
      else process.exitValue()
    }

object WorkerProcess:

  /** Starts `weir worker` with `args` in a fresh JVM, its stdout and stderr appended to `log`, with
    * `password` (if any) as its `PGPASSWORD`.
    */
  def start(args: List[String], password: Option[String], log: Path): IO[WorkerProcess] =
    IO.blocking {
      val command = JavaCommand(
        List("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
        "weir.cli.Launcher",
        "worker" :: args
      )
      val redirect = ProcessBuilder.Redirect.appendTo(log.toFile)
      val builder =
        new ProcessBuilder(command.asJava).redirectOutput(redirect).redirectError(redirect)
      password.foreach(p => builder.environment.put("PGPASSWORD", p))
      new WorkerProcess(builder.start())
    }

  private def signal(name: String, pid: Long): IO[Unit] =
    IO.blocking(new ProcessBuilder("kill", s"-$name", pid.toString).start().waitFor()).void
