package weir.cli.common

import cats.effect.IO
import io.circe.Json
import java.time.{Instant, ZoneOffset}
import java.time.format.DateTimeFormatter

/** How a report was made, as its HTML page shows it: enough to run it again and to know what ran.
  *
  * @param command
  *   the command line, quoted for a shell
  * @param version
  *   weir's version and the commit it was built from
  * @param jdk
  *   the JVM's vendor and runtime version
  * @param cores
  *   processors available to the JVM
  * @param os
  *   operating system and architecture
  * @param date
  *   when the report was made, ISO 8601 in UTC, to the second
  */
final case class Provenance(
    command: String,
    version: String,
    jdk: String,
    cores: Int,
    os: String,
    date: String
):
  /** The fields as label and value, in display order. */
  def fields: List[(String, String)] = List(
    "command" -> command,
    "weir" -> version,
    "JDK" -> jdk,
    "cores" -> cores.toString,
    "OS" -> os,
    "date" -> date
  )

  /** The same fields as a JSON object, embedded in the page beside the report's own JSON. */
  def json: Json = Json.obj(
    "command" -> Json.fromString(command),
    "weir" -> Json.fromString(version),
    "jdk" -> Json.fromString(jdk),
    "cores" -> Json.fromInt(cores),
    "os" -> Json.fromString(os),
    "date" -> Json.fromString(date)
  )

object Provenance:

  /** This JVM's provenance for `invocation`, dated now. */
  def current(invocation: Invocation): IO[Provenance] =
    IO.realTimeInstant.map(now => of(invocation, now))

  /** The provenance of `invocation` in this JVM at `now`. */
  def of(invocation: Invocation, now: Instant): Provenance =
    def prop(name: String) = Option(System.getProperty(name)).getOrElse("?")
    Provenance(
      command = invocation.commandLine,
      version = s"${BuildInfo.version} (${BuildInfo.commit})",
      jdk = s"${prop("java.vendor")} ${prop("java.runtime.version")}",
      cores = Runtime.getRuntime.availableProcessors(),
      os = s"${prop("os.name")} ${prop("os.version")} ${prop("os.arch")}",
      date = DateTimeFormatter.ISO_INSTANT.format(
        now.atOffset(ZoneOffset.UTC).toInstant.truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
      )
    )
