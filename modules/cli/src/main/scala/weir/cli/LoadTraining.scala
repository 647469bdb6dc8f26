package weir.cli

import cats.effect.{ExitCode, IO, Resource}
import cats.effect.unsafe.IORuntime
import cats.syntax.all.*
import java.nio.file.Files
import scala.concurrent.duration.*
import weir.cli.common.Exit
import weir.cli.serve.Certificates
import weir.http.{Delay, DelayServer, ServerConfig, ServerTls}

/** The training run of `weir load`'s start-up cache: under `WEIR_TRAIN_LOAD=1` (`./weir` sets it
  * once a build, after building) the start script runs this main class recorded
  * (`-XX:AOTMode=record`), makes the cache from it, and every later load of the build starts from
  * it (build.sbt, the start script; docs/adr/0012-tls.md).
  *
  * What it runs is `weir load` itself ([[Main.run]]), each phase a second at `-c 200` after its
  * warm-up, against weir's own zero-delay server in this JVM on an ephemeral loopback port:
  * HTTP/1.1, h2c, then HTTPS over HTTP/1.1 and h2, its certificate self-signed now and trusted with
  * `--cacert`. So the cache holds the classes of every protocol's path (not the JIT's profiles: the
  * script records none, since replayed they made the steady state slower), and no user's load is a
  * recording (a recorded run is slower). A load already runs weir's server in its JVM (its
  * warm-up), so the server's classes cost the cache nothing new.
  *
  * Exit 0 when every phase exited 0 (the script makes the cache only then), else the first failing
  * phase's code; the reports go to stdout, which the script discards. Arguments `PHASE:SECONDS ...`
  * (http, h2c, https, h2) replace the phases, for experiments.
  */
object LoadTraining:

  def main(args: Array[String]): Unit =
    val chosen = args.toList.map(arg =>
      arg.split(":") match
        case Array(phase, seconds) if names(phase) && seconds.toIntOption.exists(_ > 0) =>
          Right(phase -> seconds.toInt)
        case _ => Left(arg)
    )
    chosen.collectFirst { case Left(bad) => bad } match
      case Some(bad) =>
        System.err.println(
          s"LoadTraining: PHASE:SECONDS ... with PHASE one of ${names.mkString(", ")}, not '$bad'"
        )
        System.exit(Exit.BadInput.code)
      case None =>
        val asked = chosen.collect { case Right(p) => p }
        Launcher
          .exitCode(train(if asked.isEmpty then phases else asked), IORuntime.global)
          .foreach(System.exit)

  /** The phases, in order: (what, seconds). */
  private val phases: List[(String, Int)] =
    List("http" -> 1, "h2c" -> 1, "https" -> 1, "h2" -> 1)

  private val names: Set[String] = phases.map(_._1).toSet

  def train(phases: List[(String, Int)]): IO[ExitCode] =
    val servers = for
      issued <- Resource.eval(
        IO.realTimeInstant.flatMap(now =>
          IO.blocking(Certificates.selfSigned(List("localhost", "127.0.0.1"), now))
        )
      )
      tls <- Resource.eval(IO.fromEither(ServerTls.of(List(issued.certificate), issued.key)))
      plain <- server(None)
      secured <- server(Some(tls))
      ca <- Resource.make(
        IO.blocking(
          Files.writeString(Files.createTempFile("weir-training-", ".pem"), tls.certificatePem)
        )
      )(file => IO.blocking(Files.deleteIfExists(file)).void)
    yield (plain.port, secured.port, ca)
    servers.use { (plain, secured, ca) =>
      phases.foldLeftM(Exit.Ok) {
        case (code, _) if code != Exit.Ok => IO.pure(code)
        case (_, (phase, seconds)) =>
          val tls = phase == "https" || phase == "h2"
          val url =
            if tls then s"https://127.0.0.1:$secured/{id}" else s"http://127.0.0.1:$plain/{id}"
          val http2 = if phase == "h2c" || phase == "h2" then List("--http2") else Nil
          val trust = if tls then List("--cacert", ca.toString) else Nil
          Main.run(
            List(
              "load",
              url,
              "-c",
              "200",
              "--duration",
              s"${seconds}s",
              "--no-live"
            ) ++ http2 ++ trust
          )
      }
    }

  // weir's delay server at zero delay, HTTP/2 too, on an ephemeral loopback port.
  private def server(tls: Option[ServerTls]): Resource[IO, DelayServer] =
    val base = ServerConfig.default.withDelay(Delay.Fixed(Duration.Zero)).withHttp2
    Resource
      .eval(IO.fromEither(tls.fold(base)(base.withTls).withPort(0)))
      .flatMap(DelayServer.resource[IO])
