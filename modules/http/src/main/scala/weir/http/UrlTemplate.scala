package weir.http

import weir.ConfigError

/** A URL with `{id}` placeholders, e.g. `http://127.0.0.1:8000/{id}`: request `i` goes to the URL
  * with every `{id}` replaced by `i`. `http://` or `https://` (`secure`).
  */
final case class UrlTemplate private (
    text: String,
    host: String,
    port: Int,
    parts: Vector[String],
    secure: Boolean
):

  /** True when the template contains `{id}`. */
  def hasId: Boolean = parts.length > 1

  /** The target of request `id`. */
  def target(id: Long): Target =
    if parts.length == 1 then Target(host, port, parts(0), secure)
    else
      val s = new java.lang.StringBuilder(parts(0))
      var i = 1
      while i < parts.length do
        s.append(id).append(parts(i))
        i += 1
      Target(host, port, s.toString, secure)

object UrlTemplate:

  /** Parses a template; a `Left` ([[weir.ConfigError.Unreadable]]) says what is wrong (not a URL,
    * neither http nor https, no host).
    */
  def parse(text: String): Either[ConfigError, UrlTemplate] =
    val trimmed = text.trim
    Target
      .split(trimmed)
      .map(t =>
        UrlTemplate(trimmed, t.host, t.port, t.path.split("\\{id\\}", -1).toVector, t.secure)
      )
      .left
      .map(ConfigError.Unreadable("URL template", text, _))

  /** `http://127.0.0.1:port/{id}` (`https://` when `secure`): weir's own loopback server (a
    * warm-up's target).
    */
  private[http] def loopback(port: Int, secure: Boolean = false): UrlTemplate =
    val scheme = if secure then "https" else "http"
    UrlTemplate(s"$scheme://127.0.0.1:$port/{id}", "127.0.0.1", port, Vector("/", ""), secure)
