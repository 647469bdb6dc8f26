package weir.cli.common

import cats.syntax.all.*
import com.monovore.decline.Opts
import java.nio.file.Path
import weir.http.{ClientTls, TlsEngine, TlsProblem}

/** The TLS options of the commands that send HTTP requests (`weir load`, `weir worker --http`);
  * [[engine]] is `weir serve --tls`'s too.
  */
object TlsArgs:

  /** `--tls-engine jdk|openssl`; `None` when not given (the default engine, resolved only when a
    * TLS context is built: the help does not say which it is here, as finding out loads BoringSSL's
    * native library).
    */
  private[cli] def engine(what: String, more: String): Opts[Option[TlsEngine]] = Opts
    .option[String](
      "tls-engine",
      s"$what: the TLS implementation, jdk (the JDK's SSLEngine) or openssl (BoringSSL, native; Linux x86-64). Default: openssl where its native library loads, else jdk.$more",
      metavar = "ENGINE"
    )
    .mapValidated(TlsEngine.parse(_).leftMap(e => s"--tls-engine: ${e.getMessage}").toValidatedNel)
    .orNone

  /** A certificate (or a handshake) the client refused, said as its [[TlsProblem.describe]], then
    * how to get past it with these options.
    */
  def refusal(problem: TlsProblem): String = s"${problem.describe}; ${advice(problem)}"

  /** How to proceed past a refused certificate. */
  private def advice(problem: TlsProblem): String = problem match
    case TlsProblem.Untrusted(_) =>
      "give its CA with --cacert FILE.pem (weir serve --tls prints where its PEM copy is), or skip verification with --insecure"
    case TlsProblem.Expired(_, _) | TlsProblem.NotYetValid(_, _) =>
      "renew the server's certificate (or check this machine's clock), or skip verification with --insecure"
    case TlsProblem.WrongHost(_, _) =>
      "use a URL with one of the certificate's names, or skip verification with --insecure"
    case TlsProblem.Failed(_) =>
      "is it an https:// server? (--insecure skips certificate checks, not the handshake)"

  private def checks: Opts[ClientTls] = (
    Opts
      .options[Path](
        "cacert",
        "https://: also trust the certificate authorities of this PEM file (repeatable), besides the JDK's trust store (e.g. the PEM copy weir serve --tls writes).",
        metavar = "FILE"
      )
      .orEmpty,
    Opts
      .flag(
        "insecure",
        "https://: verify no certificate (any issuer, any host, expired); the report says so."
      )
      .orFalse
  ).tupled.mapValidated {
    case (Nil, insecure) =>
      (if insecure then ClientTls.default.insecure else ClientTls.default).validNel
    case (_, true) =>
      "give --cacert or --insecure, not both (--insecure verifies nothing)".invalidNel
    case (files, false) =>
      files
        .foldLeft(ClientTls.default.asRight[String])((t, f) =>
          t.flatMap(_.withCaFile(f).leftMap(e => s"--cacert: ${e.getMessage}"))
        )
        .toValidatedNel
  }

  /** `--cacert FILE` (repeatable) and `--insecure`: how https:// servers' certificates are checked;
    * `--tls-engine jdk|openssl`: which TLS implementation runs the connections.
    */
  val opts: Opts[ClientTls] =
    (checks, engine("https://", " Certificates are checked the same way on both.")).mapN((tls, e) =>
      e.fold(tls)(tls.withEngine)
    )
