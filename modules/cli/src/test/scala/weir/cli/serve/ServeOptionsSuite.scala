package weir.cli.serve

import com.monovore.decline.Command
import munit.FunSuite
import scala.concurrent.duration.*
import weir.http.Delay

/** `weir serve` options: the configuration they make, and bad values named. */
class ServeOptionsSuite extends FunSuite:

  private val command = Command("serve", "")(ServeOptions.opts)

  private def errors(args: String*): List[String] =
    command.parse(args.toList).fold(_.errors, _ => Nil)

  test("defaults and a capacity") {
    val c = command
      .parse(List("--capacity", "500", "--delay", "fixed:50ms"))
      .fold(h => fail(h.toString), identity)
    assertEquals(
      (c.host, c.port, c.capacity.map(n => n: Int), c.delay),
      ("127.0.0.1", 8000, Some(500), Delay.Fixed(50.millis))
    )
  }

  List(
    List(
      "--host",
      "999.1.1.1"
    ) -> "--host: '999.1.1.1' is neither an IP address nor a known host name",
    List("--host", "192.0.2.1") -> "--host: 192.0.2.1 is not an address of this machine",
    List("--port", "70000") -> "--port: the port must be in 0..65535",
    List("--port", "http") -> "--port: 'http' is not a whole number",
    List("--capacity", "0") -> "--capacity: the capacity must be positive",
    List("--errors", "0.7", "--drops", "0.7") -> "add up to more than 1",
    List("--delay", "3s..1s") -> "--delay: '3s..1s': MIN must not exceed MAX"
  ).foreach { (args, message) =>
    test(s"rejects ${args.mkString(" ")}") {
      val found = errors(args*)
      assert(found.exists(_.contains(message)), s"expected '$message', got $found")
    }
  }
