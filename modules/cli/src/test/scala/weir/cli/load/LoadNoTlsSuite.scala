package weir.cli.load

import cats.effect.{IO, Resource}
import java.nio.file.{Files, Path}
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*
import weir.cli.InProcess
import weir.cli.common.{Exit, JavaCommand}
import weir.http.{DelayServer, TlsEngine}
import weir.postgres.TempPaths

/** A plain `http://` load never loads BoringSSL: neither its native library nor netty-tcnative's
  * classes, from the command line's parsing to the report. Checked in this JVM (the engine is never
  * asked for) and in a fresh one, whose class loading the JVM logs (`-Xlog:class+load`): against an
  * `https://` server the same check finds netty-tcnative's classes, so it can fail.
  */
class LoadNoTlsSuite extends CatsEffectSuite:

  override def munitIOTimeout: Duration = 120.seconds

  private def server(tls: Boolean): Resource[IO, DelayServer] = TlsTestServer(tls)

  private def args(scheme: String, port: Int): List[String] =
    List("load", s"$scheme://127.0.0.1:$port/{id}", "-n", "40", "-c", "2", "--warm-up", "20") ++
      List("--no-live", "--format", "json") ++ (if scheme == "https" then List("--insecure")
                                                else Nil)

  test("in process: parsing and running a plain http:// load never asks for the TLS engine") {
    server(tls = false).use { s =>
      val before = TlsEngine.timesAsked
      InProcess.run(args("http", s.port)*).flatMap { (code, out, err) =>
        assertEquals(code, Exit.Ok, err)
        assert(out.contains("\"tls_engine\":null"), out)
        assertEquals(TlsEngine.timesAsked - before, 0L)
        s.stats[IO].map(st => assertEquals(st.requests, 40L))
      }
    }
  }

  /** The classes a fresh JVM running `weir load` against `s` loaded, one a line. The log is in a
    * directory of its own, deleted with all it holds once the JVM has ended: -Xlog renames a file
    * already there to `.0` and writes a new one.
    */
  private def classesLoaded(scheme: String, s: DelayServer): IO[List[String]] =
    Resource
      .make(IO.blocking(Files.createTempDirectory("weir-classes")))(d =>
        IO.blocking(TempPaths.delete(d))
      )
      .use { dir =>
        val log = dir.resolve("classes.log")
        val command = JavaCommand(
          List("-Xmx256m", s"-Xlog:class+load=info:file=$log"),
          "weir.cli.Launcher",
          args(scheme, s.port)
        )
        val child = Resource.make(
          IO.blocking(
            new ProcessBuilder(command*).redirectErrorStream(true).start()
          )
        )(p => IO.blocking(p.destroyForcibly().waitFor()).void)
        child.use { p =>
          for
            output <- IO.interruptible(new String(p.getInputStream.readAllBytes))
            code <- IO.interruptible(p.waitFor())
            _ = assertEquals(code, 0, output)
            lines <- IO.blocking(Files.readAllLines(log: Path).asScala.toList)
          yield lines
        }
      }

  private def native(classes: List[String]): List[String] =
    classes.filter(l => l.contains("io.netty.internal.tcnative.") || l.contains("ssl.OpenSsl "))

  test("a fresh JVM: http:// loads no netty-tcnative class; https:// does (the check can fail)") {
    for
      plain <- server(tls = false).use(classesLoaded("http", _))
      secure <- server(tls = true).use(classesLoaded("https", _))
    yield
      assert(plain.exists(_.contains("weir.http.HttpClient ")), "the log lists classes loaded")
      assertEquals(native(plain), Nil)
      if TlsEngine.OpenSsl.available then
        assert(native(secure).exists(_.contains("io.netty.internal.tcnative.SSL ")), secure)
  }
