package weir.cli

import java.io.{BufferedReader, InputStreamReader}
import java.nio.file.Files
import munit.FunSuite
import scala.concurrent.duration.*
import weir.cli.common.JavaCommand
import weir.postgres.TempPaths

/** [[Launcher]]'s run of a command, in processes of their own ([[LauncherProbe]]): the exit code is
  * the program's, an error nothing caught is one line and exit 1, and SIGTERM cancels the program
  * and waits for its finalizers before the JVM ends (what cats-effect's `IOApp` did).
  */
class LauncherSuite extends FunSuite with TempPaths.Cleanup:

  override val munitTimeout: Duration = 120.seconds

  private def start(mode: String) =
    val err = tempPaths.file("weir-launcher-probe-", ".err")
    val process = new ProcessBuilder(JavaCommand(Nil, "weir.cli.LauncherProbe", List(mode))*)
      .redirectError(err.toFile)
      .start()
    (process, err)

  private def ended(process: Process) = Forked.ended(process, 60.seconds, "")

  test("the program's exit code is the process's") {
    val (process, _) = start("code")
    assertEquals(ended(process), 7)
  }

  test("an error nothing caught: one line on stderr, no stack trace, exit 1") {
    val (process, err) = start("error")
    assertEquals(ended(process), 1)
    assertEquals(Files.readString(err).linesIterator.toList, List("weir: nothing caught this"))
  }

  test("SIGTERM cancels the program and its finalizer runs before the JVM ends") {
    val (process, err) = start("wait")
    val out = new BufferedReader(new InputStreamReader(process.getInputStream))
    assertEquals(out.readLine(), "started")
    process.destroy() // SIGTERM
    assertEquals(ended(process), 143)
    assertEquals(Files.readString(err).linesIterator.toList, List("cancelled: the finalizer ran"))
  }

  /** `weir.cli.Launcher ARGS` with the start script's mark for a recorded run; whether the mark was
    * written.
    */
  private def marked(args: String*): (Int, Boolean) =
    val mark = tempPaths.directory("weir-aot-mark").resolve("run.ok")
    val process = new ProcessBuilder(
      JavaCommand(List(s"-D${AotTraining.Property}=$mark"), "weir.cli.Launcher", args.toList)*
    ).redirectOutput(ProcessBuilder.Redirect.DISCARD)
      .redirectError(ProcessBuilder.Redirect.DISCARD)
      .start()
    (ended(process), Files.exists(mark))

  test("a recorded run that succeeds marks its recording good for the start-up cache") {
    assertEquals(marked("apply-sql", "--help"), (0, true))
  }

  test("a recorded run that fails leaves no mark: the next run is recorded instead") {
    assertEquals(marked("apply-sql", "/no/such/file.sql"), (2, false))
  }
