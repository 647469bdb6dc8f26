package weir.cli

import cats.effect.{ExitCode, IO, Resource}
import java.io.{ByteArrayOutputStream, PrintStream}

/** `weir` run in the test's own JVM, as the command line would run it. */
object InProcess:

  /** Runs `weir args...`: its exit code and what it printed on stdout and on stderr (both captured
    * while it runs, restored after; the suites that use it must not run commands at once).
    */
  def run(args: String*): IO[(ExitCode, String, String)] = capture(Main.run(args.toList))

  /** Runs `program` (a command's run), capturing stdout and stderr as [[run]] does. */
  def capture(program: IO[ExitCode]): IO[(ExitCode, String, String)] =
    val out = new ByteArrayOutputStream
    val err = new ByteArrayOutputStream
    Resource
      .make(IO {
        val old = (System.out, System.err)
        System.setOut(new PrintStream(out, true, "UTF-8"))
        System.setErr(new PrintStream(err, true, "UTF-8"))
        old
      })(old => IO { System.setOut(old._1); System.setErr(old._2) })
      .surround(program)
      .map(code => (code, out.toString("UTF-8"), err.toString("UTF-8")))

  /** While in use, the JVM's stderr goes into `err` (for commands that run in the background, whose
    * messages a test reads as they come); restored on release.
    */
  def stderrInto(err: ByteArrayOutputStream): Resource[IO, Unit] =
    Resource
      .make(IO {
        val old = System.err
        System.setErr(new PrintStream(err, true, "UTF-8"))
        old
      })(old => IO(System.setErr(old)))
      .map(_ => ())
