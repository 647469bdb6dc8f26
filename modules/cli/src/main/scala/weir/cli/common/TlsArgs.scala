package weir.cli.common

import cats.syntax.all.*
import com.monovore.decline.Opts
import java.nio.file.Path
import weir.http.ClientTls

/** The TLS options of the commands that send HTTP requests (`weir load`, `weir worker --http`). */
object TlsArgs:

  /** `--cacert FILE` (repeatable) and `--insecure`: how https:// servers' certificates are checked.
    */
  val opts: Opts[ClientTls] = (
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
