package weir.cli.queue

import cats.effect.IO
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.cli.InProcess
import weir.cli.common.Exit
import weir.cli.load.TlsTestServer

/** `weir worker --http` checks its target before it connects to the database or claims anything
  * ([[WorkerTarget]]): against a real TLS server whose certificate it does not trust, the command
  * ends with exit 2 and says what to do; against a port where nothing listens, it warns and goes on
  * (here to a database that is not there either, which ends it with exit 2 after the warning). No
  * PostgreSQL is needed: the database is a closed port.
  */
class WorkerTargetSuite extends CatsEffectSuite:

  override def munitIOTimeout: Duration = 60.seconds

  private val noDatabase = List("--url", "postgresql://nobody@127.0.0.1:1/none")

  private def worker(template: String, more: String*) =
    InProcess.run((List("worker", "--http", template, "--warm-up", "0") ++ noDatabase ++ more)*)

  test(
    "an https:// target with an untrusted certificate: exit 2 before any claim, and what to do"
  ) {
    TlsTestServer(tls = true).use { s =>
      worker(s"https://127.0.0.1:${s.port}/{payload}").map { (code, _, err) =>
        assertEquals(code, Exit.BadInput)
        assert(err.contains("weir worker: --http: https://127.0.0.1:"), err)
        assert(err.contains("not trusted") && err.contains("--cacert"), err)
        assert(!err.contains("cannot connect to postgresql"), err)
      }
    }
  }

  test("--insecure gets past the same certificate: the worker goes on to its database") {
    TlsTestServer(tls = true).use { s =>
      worker(s"https://127.0.0.1:${s.port}/{payload}", "--insecure").map { (code, _, err) =>
        assertEquals(code, Exit.BadInput)
        assert(!err.contains("--http:"), err)
        assert(err.contains("postgresql://nobody@127.0.0.1:1/none"), err)
      }
    }
  }

  test("nothing listening at the target: a warning, and the worker goes on") {
    worker("http://127.0.0.1:1/{payload}").map { (code, _, err) =>
      assert(
        err.contains(
          "weir worker: warning: --http: nothing answers at 127.0.0.1:1 yet (connection refused)"
        ),
        err
      )
      assert(err.contains("postgresql://nobody@127.0.0.1:1/none"), err)
      assertEquals(code, Exit.BadInput)
    }
  }
