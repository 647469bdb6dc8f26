package weir.cli.applysql

import cats.data.ValidatedNel
import cats.syntax.all.*
import com.fasterxml.jackson.core.JacksonException
import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.dataformat.toml.TomlMapper
import java.io.StringReader
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, Paths}
import java.util.Locale.ROOT
import scala.jdk.CollectionConverters.*
import scala.util.matching.Regex
import weir.postgres.MigrationVersion

/** What `weir apply-sql --flyway-config FILE` takes from a Flyway configuration file
  * (`flyway.conf`, Java properties, backslashes kept as they are, as Flyway reads it), with the
  * `FLYWAY_URL`, `FLYWAY_USER`, `FLYWAY_PASSWORD` and `FLYWAY_LOCATIONS` variables over it, as
  * Flyway's command line takes them:
  *
  *   - `flyway.url` (`jdbc:postgresql://...`), `flyway.user`, `flyway.password`: the database;
  *   - `flyway.locations`: `filesystem:` directories (or bare paths), comma-separated, the
  *     migrations, taken together as Flyway takes them;
  *   - `flyway.table`, and `flyway.defaultSchema` (else the first of `flyway.schemas`): the history
  *     table, in that schema; migrations then run with that schema first in the search path, as
  *     Flyway runs them, and the schema is made first when missing (unless
  *     `flyway.createSchemas=false`);
  *   - `flyway.placeholders.NAME`, `flyway.placeholderReplacement`;
  *   - `flyway.baselineOnMigrate=true` with `flyway.baselineVersion` (default 1): `--baseline`.
  *
  * Settings that change nothing weir does (connection retries, `cleanDisabled`, `driver`...) are
  * passed over; any other `flyway.` setting not at Flyway's default is refused, naming it, since
  * weir would apply the directory differently from Flyway.
  */
final case class FlywayConfig(
    url: Option[String],
    user: Option[String],
    password: Option[String],
    locations: List[Path],
    table: Option[String],
    schema: Option[String],
    createSchema: Boolean,
    placeholders: Map[String, String],
    replacePlaceholders: Option[Boolean],
    baseline: Option[MigrationVersion]
):

  /** The history table as `--flyway-table` names it: `SCHEMA.TABLE` when a schema is set. */
  def historyTable: Option[String] =
    (schema, table) match
      case (Some(s), t) => Some(s"$s.${t.getOrElse("flyway_schema_history")}")
      case (None, t)    => t

object FlywayConfig:

  // Read and used.
  private val used = Set(
    "url",
    "user",
    "password",
    "locations",
    "table",
    "schemas",
    "defaultSchema",
    "placeholderReplacement",
    "baselineOnMigrate",
    "baselineVersion",
    "createSchemas"
  )

  // Settings that change nothing weir does: passed over.
  private val passedOver = Set(
    "driver",
    "connectRetries",
    "connectRetriesInterval",
    "initSql",
    "cleanDisabled",
    "cleanOnValidationError",
    "baselineDescription",
    "installedBy",
    "validateMigrationNaming",
    "validateOnMigrate",
    "lockRetryCount",
    "jarDirs",
    "loggers",
    "outputQueryResults",
    "postgresql.transactional.lock",
    "reportEnabled",
    "communityDBSupportEnabled"
  )

  // Settings weir follows only at Flyway's default value (lower case).
  private val defaults = Map(
    "sqlMigrationPrefix" -> "v",
    "repeatableSqlMigrationPrefix" -> "r",
    "sqlMigrationSeparator" -> "__",
    "sqlMigrationSuffixes" -> ".sql",
    "placeholderPrefix" -> "${",
    "placeholderSuffix" -> "}",
    "outOfOrder" -> "false",
    "mixed" -> "false",
    "group" -> "false",
    "target" -> "latest",
    "skipDefaultCallbacks" -> "false",
    "skipDefaultResolvers" -> "false",
    "ignoreMigrationPatterns" -> "*:future",
    "executeInTransaction" -> "true",
    "encoding" -> "utf-8"
  )

  /** The configuration in the file at `path`, with Flyway's variables of `env` over it; every
    * problem named (the file, or `flyway.KEY`).
    */
  def read(path: String, env: Map[String, String]): ValidatedNel[String, FlywayConfig] =
    val file = Paths.get(path)
    if !Files.isRegularFile(file) then
      s"--flyway-config: $path: no such file (Flyway's flyway.conf)".invalidNel
    else
      val text = new String(Files.readAllBytes(file), UTF_8)
      val fromFile =
        if path.endsWith(".toml") then toml(text, env).leftMap(e => s"--flyway-config $path: $e")
        else Right(conf(text))
      val fromEnv = List("url", "user", "password", "locations").flatMap(k =>
        env.get(s"FLYWAY_${k.toUpperCase(ROOT)}").filter(_.nonEmpty).map(k -> _)
      )
      fromFile.toValidatedNel.andThen(settings => of(settings ++ fromEnv, file))

  // flyway.conf: Java properties, backslashes kept (Flyway doubles them before reading).
  private def conf(text: String): Map[String, String] =
    val properties = new java.util.Properties()
    properties.load(new StringReader(text.replace("\\", "\\\\")))
    properties.asScala.toMap.collect {
      case (k, v) if k.startsWith("flyway.") => k.stripPrefix("flyway.") -> v.trim
    }

  // flyway.toml (Flyway 10 and later): the [flyway] table and the chosen environment's
  // connection ([environments.NAME], flyway.environment, default "default"), ${env.NAME} replaced;
  // other tables (Flyway Desktop's, Redgate's) are another tool's.
  private def toml(text: String, env: Map[String, String]): Either[String, Map[String, String]] =
    tomlSettings(text).flatMap { all =>
      val chosen = all.getOrElse("flyway.environment", "default")
      val flyway = all.collect {
        case (k, v) if k.startsWith("flyway.") && k != "flyway.environment" =>
          k.stripPrefix("flyway.") -> v
      }
      val connection = all.collect {
        case (k, v) if k.startsWith(s"environments.$chosen.") =>
          k.stripPrefix(s"environments.$chosen.") -> v
      }
      (flyway ++ connection).toList.traverse((k, v) => expand(k, v, env).map(k -> _)).map(_.toMap)
    }

  // A TOML file's settings as flat keys (`flyway.placeholders.who`), an array's items joined
  // with `,`; Left: what is wrong, and where.
  private def tomlSettings(text: String): Either[String, Map[String, String]] =
    def flat(node: JsonNode, key: String): List[(String, String)] =
      if node.isObject then
        node.properties.asScala.toList.flatMap { e =>
          flat(e.getValue, if key.isEmpty then e.getKey else s"$key.${e.getKey}")
        }
      else if node.isArray then List(key -> node.elements.asScala.map(_.asText).mkString(","))
      else List(key -> node.asText)
    try Right(flat(new TomlMapper().readTree(text), "").toMap)
    catch
      case e: JacksonException =>
        val where = Option(e.getLocation).fold("")(l => s"line ${l.getLineNr}: ")
        Left(where + Option(e.getOriginalMessage).getOrElse(e.toString))

  private val variable = "\\$\\{env\\.([A-Za-z_][A-Za-z0-9_]*)\\}".r

  // Flyway's ${env.NAME} in a TOML value: the variable's value; one that is not set is refused.
  private def expand(key: String, value: String, env: Map[String, String]): Either[String, String] =
    variable.findAllMatchIn(value).map(_.group(1)).find(!env.contains(_)) match
      case Some(name) => Left(s"$key: $${env.$name}: the variable $name is not set")
      case None => Right(variable.replaceAllIn(value, m => Regex.quoteReplacement(env(m.group(1)))))

  private def of(settings: Map[String, String], file: Path): ValidatedNel[String, FlywayConfig] =
    def named(key: String) = s"--flyway-config $file: flyway.$key"
    val refused = settings.toList.sortBy(_._1).traverse_ { (key, value) =>
      val default = defaults.get(key)
      if used(key) || key.startsWith("placeholders.") then ().validNel
      else if default.exists(_ == value.toLowerCase(ROOT)) || passedOver(key) && default.isEmpty
      then ().validNel
      else if default.isDefined then
        s"${named(key)}=$value: weir applies Flyway's directories as Flyway's defaults name and run them (${key}=${default.get}); remove the setting, or keep Flyway for this directory".invalidNel
      else
        s"${named(key)}: weir does not read this setting; remove it from the file given to weir, or keep Flyway for this directory".invalidNel
    }
    val location = settings.get("locations").traverse { text =>
      text.split(",").map(_.trim).filter(_.nonEmpty).toList match
        case Nil => s"${named("locations")} is empty: give a directory".invalidNel
        case all =>
          all.traverse { one =>
            if one.startsWith("classpath:") then
              s"${named("locations")}=$one: weir reads directories; give --migrations DIR (the directory the classpath location is in, e.g. src/main/resources/db/migration)".invalidNel
            else if one.contains(":") && !one.startsWith("filesystem:") then
              s"${named("locations")}=$one: weir reads filesystem: locations (directories)".invalidNel
            else Paths.get(one.stripPrefix("filesystem:")).validNel
          }
    }
    val schema = settings
      .get("defaultSchema")
      .orElse(
        settings.get("schemas").flatMap(_.split(",").map(_.trim).find(_.nonEmpty))
      )
    val schemaName = schema.traverse(s =>
      if s.matches("[A-Za-z_][A-Za-z0-9_]*") then s.validNel
      else
        s"${named("defaultSchema")}=$s: weir takes a schema name of letters, digits and _".invalidNel
    )
    def flag(key: String) = settings
      .get(key)
      .traverse(v =>
        v.toLowerCase(ROOT) match
          case "true"  => true.validNel
          case "false" => false.validNel
          case _       => s"${named(key)}=$v: write true or false".invalidNel
      )
    val baseline =
      if !settings.get("baselineOnMigrate").exists(_.equalsIgnoreCase("true")) then None.validNel
      else
        MigrationVersion
          .parse(settings.getOrElse("baselineVersion", "1"))
          .map(Some(_))
          .leftMap(e => s"${named("baselineVersion")}: $e")
          .toValidatedNel
    (refused, location, schemaName, flag("placeholderReplacement"), flag("createSchemas"), baseline)
      .mapN { (_, dir, s, r, create, base) =>
        FlywayConfig(
          url = settings.get("url").filter(_.nonEmpty),
          user = settings.get("user").filter(_.nonEmpty),
          password = settings.get("password"),
          locations = dir.getOrElse(Nil),
          table = settings.get("table").filter(_.nonEmpty),
          schema = s,
          createSchema = create.getOrElse(true),
          placeholders = settings.collect {
            case (k, v) if k.startsWith("placeholders.") => k.stripPrefix("placeholders.") -> v
          },
          replacePlaceholders = r,
          baseline = base
        )
      }
