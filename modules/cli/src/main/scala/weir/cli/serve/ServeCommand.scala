package weir.cli.serve

import cats.effect.{ExitCode, IO, Resource}
import cats.syntax.all.*
import com.monovore.decline.Opts
import java.nio.file.{Files, Path, Paths}
import weir.cli.common.{Console, Exit, OpenFiles}
import weir.http.{DelayServer, ServerConfig, ServerTls}

/** `weir serve`: the seed's delay server, until Ctrl-C.
  *
  * Flow: options → [[ServerConfig]] (and, with `--tls`, its certificate: the one given, or a
  * self-signed one made now) → [[DelayServer]] (bound) → a line on stderr (with TLS, the
  * certificate's fingerprint and where its PEM copy was written) → serve. Exit 2 for bad options or
  * an address that cannot be bound (the message says why: in use, not an address of this machine,
  * no permission).
  */
object ServeCommand:

  val opts: Opts[IO[ExitCode]] =
    Opts.subcommand(
      "serve",
      "Serve GET /{id} with 'Request {id}' after a random delay (the seed's test server); GET /stats reports in-flight requests; POST /reset zeroes the stats. A path without a number (/) is keyed by arrival: the n-th since start or reset gets the delay of /n. With --tls, https:// (a self-signed certificate unless --cert and --key are given; on BoringSSL where it loads, --tls-engine jdk for the JDK's engine). With --http2, HTTP/2 too (h2 over TLS, h2c with prior knowledge without)."
    )((ServeOptions.opts, ServeOptions.tls).mapN(run))

  def run(config: ServerConfig): IO[ExitCode] = run(config, ServeOptions.Tls.Off)

  def run(config: ServerConfig, tls: ServeOptions.Tls): IO[ExitCode] =
    certificate(config, tls).flatMap { server =>
      val secured = server.fold(config)(config.withTls)
      DelayServer
        .resource[IO](secured)
        .attempt
        .use {
          case Left(e) =>
            Console
              .error(s"weir serve: cannot serve on ${config.host}:${config.port}: ${describe(e)}")
              .as(Exit.BadInput)
          case Right(s) =>
            val connections = OpenFiles.limit.fold("")(n =>
              config.maxConnections.fold("")(max =>
                s"; open-file limit $n, so at most $max connections at once (the limit is what stops more; raise it with ulimit -n)"
              )
            )
            val capacity = config.capacity.fold("")(n => s", serving $n at once (the rest wait)")
            val h2 =
              if !config.http2 then ""
              else
                val how = if server.isDefined then "h2 by ALPN" else "h2c by prior knowledge"
                val limit =
                  config.maxStreams.fold("no stream limit")(n => s"at most $n streams a connection")
                s", HTTP/2 ($how, $limit) and HTTP/1.1"
            val scheme = if server.isDefined then "https" else "http"
            val url = s"$scheme://${config.host}:${s.port}/{id}"
            Console.error(
              s"weir serve: $url  delay ${config.delay.label} (mean ${config.delay.mean.toMillis} ms), seed ${config.seed}" +
                s"${ServeOptions.describeFaults(config)}$capacity$h2, ${config.threads} event loops$connections"
            ) >> server.fold(IO.never[ExitCode]) { t =>
              // The PEM copy of a self-signed certificate goes with the server that made it.
              Resource
                .make(announce(t, tls, url, s.port))(
                  _.traverse_(f => IO.blocking(Files.deleteIfExists(f)).attempt.void)
                )
                .useForever
            }
        }
    }

  /** The server's certificate: none, the one given, or a self-signed one for localhost, the
    * loopback addresses and `--host`.
    */
  private def certificate(config: ServerConfig, tls: ServeOptions.Tls): IO[Option[ServerTls]] =
    tls match
      case ServeOptions.Tls.Off         => IO.none
      case ServeOptions.Tls.Given(t, _) => IO.some(t)
      case ServeOptions.Tls.SelfSigned(engine) =>
        val names = (List("localhost", "127.0.0.1", "::1") :+ config.host)
          .filterNot(h => h == "0.0.0.0" || h == "::")
          .distinct
        IO.realTimeInstant
          .flatMap { now =>
            IO.blocking(Certificates.selfSigned(names, now)).flatMap { issued =>
              IO.fromEither(ServerTls.of(List(issued.certificate), issued.key))
                .map(t => engine.fold(t)(t.withEngine))
            }
          }
          .map(Some(_))

  /** The certificate's fingerprint, and for a self-signed one where its PEM copy is (written now,
    * in the temporary directory, named by the port) and how a client trusts it: the copy written,
    * if one was.
    */
  private def announce(
      t: ServerTls,
      tls: ServeOptions.Tls,
      url: String,
      port: Int
  ): IO[Option[Path]] =
    tls match
      case ServeOptions.Tls.Given(_, from) =>
        Console
          .error(
            s"weir serve: TLS on ${t.engine.describe} with $from, SHA-256 fingerprint ${t.fingerprint}"
          )
          .as(None)
      case _ =>
        val file = Paths.get(System.getProperty("java.io.tmpdir"), s"weir-serve-$port.pem")
        IO.blocking(Files.writeString(file, t.certificatePem): Path).attempt.flatMap {
          case Right(_) =>
            Console
              .error(
                s"weir serve: TLS on ${t.engine.describe} with a self-signed certificate (valid ${Certificates.SelfSignedValidity.toDays} days), SHA-256 fingerprint ${t.fingerprint}\n" +
                  s"weir serve: its PEM copy: $file; trust it with: weir load '$url' --cacert $file"
              )
              .as(Some(file))
          case Left(e) =>
            Console
              .error(
                s"weir serve: TLS on ${t.engine.describe} with a self-signed certificate, SHA-256 fingerprint ${t.fingerprint} (its PEM copy could not be written to $file: ${e.getMessage})"
              )
              .as(None)
        }

  /** What went wrong binding, in words (some JDK exceptions have no message). */
  private def describe(e: Throwable): String = e match
    case _: java.net.BindException if String.valueOf(e.getMessage).contains("in use") =>
      "the port is in use (another server, or a weir serve still running)"
    case _: java.nio.channels.UnresolvedAddressException => "the host name does not resolve"
    case _ => Option(e.getMessage).getOrElse(e.getClass.getSimpleName)
