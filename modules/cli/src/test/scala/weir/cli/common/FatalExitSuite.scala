package weir.cli.common

import munit.FunSuite
import scala.concurrent.duration.*
import weir.cli.Forked

/** [[FatalExit]], the last resort, in processes of their own ([[FatalProbe]]) that meet a fatal
  * error weir does not contain and then wait forever: each must be halted with exit 3 and the
  * watchdog's one line, no sooner than its grace period. Waiting for the process is bounded only as
  * a guard: a probe still running fails the test (and is killed).
  */
class FatalExitSuite extends FunSuite:

  private val hang = 60.seconds
  override val munitTimeout: Duration = 2 * hang

  private def probe(mode: String): (Int, String, FiniteDuration) =
    val started = System.nanoTime
    val (code, stderr) = Forked.run(List("-Xmx64m"), "weir.cli.common.FatalProbe", List(mode), hang)
    (code, stderr, (System.nanoTime - started).nanos)

  private val halted =
    "weir: a fatal error of the JVM (out of memory?) and the command did not end within 5 s of it: halted (exit 3)."

  test("an error cats-effect took out of a fiber: halted with exit 3 after the grace period") {
    val (code, stderr, took) = probe("fiber")
    assertEquals(code, 3, stderr)
    assert(stderr.contains(halted), stderr)
    assert(took >= FatalExit.grace, took.toString)
  }

  test(
    "a thread that died of an ordinary exception: the JDK's message, no halt, no stack overflow"
  ) {
    val (code, stderr, _) = probe("plain")
    assertEquals(code, 0, stderr)
    assert(
      stderr.startsWith(
        "Exception in thread \"Thread-0\" java.lang.IllegalStateException: not fatal"
      ),
      stderr
    )
    assert(!stderr.contains("StackOverflowError"), stderr)
  }

  test("a thread that died of one: halted with exit 3") {
    val (code, stderr, took) = probe("thread")
    assertEquals(code, 3, stderr)
    assertEquals(
      stderr.linesIterator.toList.map(_.take(halted.length)),
      List(
        "weir: out of memory (java.lang.OutOfMemoryError: thrown by the probe) on thread Thread-0",
        halted
      ),
      stderr
    )
    assert(took >= FatalExit.grace, took.toString)
  }
