package weir.http

import java.net.URI
import weir.ConfigError

/** One request's address: where to connect, over TLS or not (`secure`: an `https://` URL), and what
  * to ask for.
  */
final case class Target(host: String, port: Int, path: String, secure: Boolean = false):

  /** True when the port is the scheme's own (80, or 443 with TLS): the `Host` header leaves it out.
    */
  def defaultPort: Boolean = port == (if secure then 443 else 80)

object Target:

  /** Parses an absolute `http://` or `https://` URL; a `Left` ([[weir.ConfigError.Unreadable]])
    * says what is wrong with it.
    */
  def parse(url: String): Either[ConfigError, Target] =
    UrlTemplate.parse(url).flatMap { t =>
      if t.hasId then unreadable(url, s"'$url' contains {id}, which only a URL template may")
      else Right(t.target(0))
    }

  private[http] def unreadable[A](text: String, reason: String): Either[ConfigError, A] =
    Left(ConfigError.Unreadable("URL", text, reason))

  /** The host, port, path and whether it is `https://`, of an absolute URL. */
  private[http] def split(url: String): Either[String, Target] =
    val uri =
      try Right(new URI(url.replace("{id}", "0")))
      catch case e: java.net.URISyntaxException => Left(s"'$url' is not a URL: ${e.getReason}")
    uri.flatMap { u =>
      val scheme = Option(u.getScheme).map(_.toLowerCase)
      if scheme.isEmpty then
        Left(s"'$url' is not an absolute URL; write e.g. http://127.0.0.1:8000/{id}")
      else if !scheme.contains("http") && !scheme.contains("https") then
        Left(s"'$url': only http:// and https:// are supported")
      else if u.getHost == null then Left(s"'$url' has no host")
      else
        val start = url.indexOf("//") + 2
        val slash = url.indexOf('/', start)
        val path = if slash < 0 then "/" else url.substring(slash)
        val secure = scheme.contains("https")
        val port = if u.getPort >= 0 then u.getPort else if secure then 443 else 80
        Right(Target(u.getHost, port, path, secure))
    }
