package weir.postgres

import java.net.URLDecoder
import java.nio.charset.StandardCharsets.UTF_8
import java.util.Properties
import weir.ConfigError

/** Which PostgreSQL server and database to connect to, and as whom: from a URI
  * (`postgresql://user:password@host:port/db?sslmode=require`, also `postgres://` and
  * `jdbc:postgresql://`) or from libpq's environment (`PGHOST`, `PGPORT`, `PGUSER`, `PGPASSWORD`,
  * `PGDATABASE`, and `PGSSLMODE`, `PGSSLROOTCERT`, `PGSSLCERT`, `PGSSLKEY`, `PGCONNECT_TIMEOUT`,
  * `PGOPTIONS` for the URI's parameters), as psql reads them; what a URI leaves out comes from the
  * environment, then from libpq's defaults (port 5432, the user named after the operating-system
  * user, the database named after the user). A password not given either way is looked up by the
  * driver in `~/.pgpass` (or `PGPASSFILE`), as libpq does. weir names its connections itself
  * (`application_name`, seen in `pg_stat_activity`).
  *
  * The password is never shown: [[show]] and `toString` print `***` in its place. Unix-domain
  * sockets (a `PGHOST` that is a directory, psql's default without one) are not supported by the
  * JDBC driver: weir connects to `localhost` over TCP when no host is given.
  */
final case class PgTarget private (
    host: String,
    port: Int,
    database: String,
    user: String,
    password: Option[String],
    params: Map[String, String]
):

  /** The target as a URI without the password (`***` in its place), safe to print. */
  def show: String =
    val auth = user + password.fold("")(_ => ":***")
    val query = if params.isEmpty then "" else params.map((k, v) => s"$k=$v").mkString("?", "&", "")
    s"postgresql://$auth@$host:$port/$database$query"

  override def toString: String = show

  /** The target as a URI that [[PgTarget.parse]] reads back, without the password (give it to a
    * child process as `PGPASSWORD`, never on a command line).
    */
  def uriWithoutPassword: String =
    def enc(s: String) = java.net.URLEncoder.encode(s, UTF_8).replace("+", "%20")
    val query =
      if params.isEmpty then ""
      else params.map((k, v) => s"${enc(k)}=${enc(v)}").mkString("?", "&", "")
    s"postgresql://${enc(user)}@$host:$port/${enc(database)}$query"

  /** The JDBC URL (no credentials in it: they go in [[properties]]). */
  def jdbcUrl: String = s"jdbc:postgresql://$host:$port/$database"

  /** The driver's properties: user, password, the URI's parameters (libpq names translated). */
  def properties: Properties =
    val p = new Properties()
    p.setProperty("user", user)
    password.foreach(p.setProperty("password", _))
    params.foreach { (k, v) => p.setProperty(PgTarget.jdbcName(k), v) }
    p

  /** The same server and user, another database. */
  def withDatabase(name: String): PgTarget = copy(database = name)

  /** The same server and database, another user. */
  def withUser(name: String): PgTarget = copy(user = name)

  /** The same target with `password`. */
  def withPassword(password: Option[String]): PgTarget = copy(password = password)

  /** The same target whose sessions start with `search_path` set to `path` (`app,public`), added to
    * the `options` it has (as `PGOPTIONS='-c search_path=...'` would).
    */
  def withSearchPath(path: String): PgTarget =
    val option = s"-c search_path=${path.replace(" ", "\\ ")}"
    copy(params = params + ("options" -> params.get("options").fold(option)(o => s"$o $option")))

object PgTarget:

  /** The target from libpq's environment alone. */
  def fromEnv(env: Map[String, String]): Either[ConfigError, PgTarget] = parse(None, env)

  /** The target of `uri` (or of the environment when `None`), filled in from `env`; `Left` says
    * what is wrong, without the password.
    */
  def parse(uri: Option[String], env: Map[String, String]): Either[ConfigError, PgTarget] =
    read(uri, env).left.map(ConfigError.Unreadable("database URI", uri.fold("")(redact), _))

  private def read(uri: Option[String], env: Map[String, String]): Either[String, PgTarget] =
    val osUser = sys.props.getOrElse("user.name", "postgres")
    for
      fromUri <- uri.fold(Right(Parts()))(parseUri)
      host = fromUri.host.orElse(env.get("PGHOST").filter(_.nonEmpty)).getOrElse("localhost")
      _ <-
        if host.startsWith("/") then
          Left(
            s"host '$host' is a Unix-domain socket directory, which the JDBC driver cannot use: give a TCP host, e.g. postgresql://localhost:5432/db or PGHOST=localhost"
          )
        else Right(())
      portText = fromUri.port.orElse(env.get("PGPORT").filter(_.nonEmpty)).getOrElse("5432")
      port <- portText.toIntOption
        .filter(p => p > 0 && p < 65536)
        .toRight(s"port '$portText' is not a TCP port (1..65535)")
      user = fromUri.user.orElse(env.get("PGUSER").filter(_.nonEmpty)).getOrElse(osUser)
      password = fromUri.password.orElse(env.get("PGPASSWORD"))
      database = fromUri.database.orElse(env.get("PGDATABASE").filter(_.nonEmpty)).getOrElse(user)
    yield PgTarget(host, port, database, user, password, fromEnvironment(env) ++ fromUri.params)

  /** libpq's variables for connection parameters a URI's query also sets (the URI's win). */
  private val parameterVariables = List(
    "PGSSLMODE" -> "sslmode",
    "PGSSLROOTCERT" -> "sslrootcert",
    "PGSSLCERT" -> "sslcert",
    "PGSSLKEY" -> "sslkey",
    "PGCONNECT_TIMEOUT" -> "connect_timeout",
    "PGOPTIONS" -> "options"
  )

  private def fromEnvironment(env: Map[String, String]): Map[String, String] =
    parameterVariables
      .flatMap((variable, param) => env.get(variable).filter(_.nonEmpty).map(param -> _))
      .toMap

  private final case class Parts(
      host: Option[String] = None,
      port: Option[String] = None,
      database: Option[String] = None,
      user: Option[String] = None,
      password: Option[String] = None,
      params: Map[String, String] = Map.empty
  )

  private def decode(s: String): String = URLDecoder.decode(s.replace("+", "%2B"), UTF_8)

  private def parseUri(uri: String): Either[String, Parts] =
    val schemes = List("postgresql://", "postgres://", "jdbc:postgresql://")
    schemes.find(uri.startsWith) match
      case None =>
        Left(
          s"'${redact(uri)}' is not a PostgreSQL URI: write postgresql://user:password@host:port/database"
        )
      case Some(scheme) =>
        val rest = uri.drop(scheme.length)
        val (beforeQuery, query) = rest.span(_ != '?')
        val (authority, path) = beforeQuery.span(_ != '/')
        val (userInfo, hostPort) =
          val at = authority.lastIndexOf('@')
          if at < 0 then (None, authority) else (Some(authority.take(at)), authority.drop(at + 1))
        val (user, password) = userInfo match
          case None => (None, None)
          case Some(info) =>
            val colon = info.indexOf(':')
            if colon < 0 then (Some(decode(info)), None)
            else (Some(decode(info.take(colon))), Some(decode(info.drop(colon + 1))))
        val (host, port) =
          if hostPort.startsWith("[") then
            val close = hostPort.indexOf(']')
            (hostPort.slice(1, close), hostPort.drop(close + 1).stripPrefix(":"))
          else
            val colon = hostPort.lastIndexOf(':')
            if colon < 0 then (hostPort, "") else (hostPort.take(colon), hostPort.drop(colon + 1))
        val params = query
          .stripPrefix("?")
          .split('&')
          .toList
          .filter(_.nonEmpty)
          .map { kv =>
            val eq = kv.indexOf('=')
            if eq < 0 then decode(kv) -> "" else decode(kv.take(eq)) -> decode(kv.drop(eq + 1))
          }
        val (credentials, others) = params.partition((k, _) => k == "user" || k == "password")
        val database = decode(path.stripPrefix("/"))
        if hostPort.contains(",") then Left("several hosts in one URI are not supported")
        else
          Right(
            Parts(
              Option(host).filter(_.nonEmpty).map(decode),
              Option(port).filter(_.nonEmpty),
              Option(database).filter(_.nonEmpty),
              user.filter(_.nonEmpty).orElse(credentials.collectFirst { case ("user", u) => u }),
              password.orElse(credentials.collectFirst { case ("password", p) => p }),
              others.toMap
            )
          )

  /** `uri` with any password replaced by `***`, for messages about a URI that did not parse. */
  def redact(uri: String): String =
    uri
      .replaceAll("(://[^:/@?]*):[^@/?]*@", "$1:***@")
      .replaceAll("(?i)(password=)[^&]*", "$1***")

  /** libpq parameter names the JDBC driver spells differently. */
  private def jdbcName(libpq: String): String = libpq match
    case "connect_timeout"  => "connectTimeout"
    case "application_name" => "ApplicationName"
    case "sslrootcert"      => "sslrootcert"
    case other              => other
