package weir.postgres

import cats.effect.IO
import java.nio.file.Files
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import scala.sys.process.*

/** A plain-format `pg_dump` file applies with weir exactly as with `psql -1 -f`: both databases
  * dump to the same text afterwards. The source database has what dumps are made of: quoting,
  * escapes, COPY data with tabs, newlines, backslashes and NULLs, dollar-quoted functions,
  * triggers, views, sequences, enums, domains, comments, constraints, and what psql reads past a
  * `;`: SQL-standard function and procedure bodies (`BEGIN ATOMIC`) and a rule of two actions; and
  * a partitioned table, a materialized view, a policy, an aggregate, a range type, an operator,
  * extended statistics and a large object (its data between the dump's own `BEGIN` and `COMMIT`).
  */
class PgDumpSuite extends CatsEffectSuite with TempPaths.Cleanup:

  override def munitIOTimeout: Duration = 3.minutes

  private val source =
    """CREATE SCHEMA app;
      |CREATE TYPE app.mood AS ENUM ('sad', 'ok', 'happy');
      |CREATE DOMAIN app.positive AS integer CHECK (VALUE > 0);
      |CREATE TABLE app.people (
      |  id serial PRIMARY KEY,
      |  name text NOT NULL,
      |  note text,
      |  mood app.mood DEFAULT 'ok',
      |  age app.positive,
      |  data jsonb,
      |  tags text[],
      |  photo bytea,
      |  born timestamptz,
      |  score numeric(10, 3),
      |  upper_name text GENERATED ALWAYS AS (upper(name)) STORED
      |);
      |CREATE TABLE app.visits (id bigint PRIMARY KEY, person int REFERENCES app.people (id), at date);
      |CREATE INDEX people_name ON app.people (lower(name));
      |COMMENT ON TABLE app.people IS 'people; with ''quotes'' and $$dollars$$';
      |CREATE FUNCTION app.touch() RETURNS trigger LANGUAGE plpgsql AS $fn$
      |BEGIN
      |  -- a comment; with a semicolon
      |  NEW.note := coalesce(NEW.note, E'added;\ttab');
      |  RETURN NEW;
      |END;
      |$fn$;
      |CREATE TRIGGER people_touch BEFORE INSERT ON app.people FOR EACH ROW EXECUTE FUNCTION app.touch();
      |CREATE VIEW app.happy AS SELECT id, name FROM app.people WHERE mood = 'happy';
      |INSERT INTO app.people (name, note, mood, age, data, tags, photo, born, score) VALUES
      |  ('O''Brien', E'line1\nline2\\back\tslash', 'happy', 41, '{"a": [1, "x;y"]}', ARRAY['a;b', 'c"d'], '\xdeadbeef', '2024-01-05 10:00+02', 3.141),
      |  ('Zoë', NULL, 'sad', NULL, NULL, '{}', NULL, NULL, NULL),
      |  (E'\\.', E'\\.', 'ok', 7, 'null', NULL, '\x', 'infinity', -0.5);
      |INSERT INTO app.visits SELECT g, 1 + g % 3, DATE '2024-01-01' + g FROM generate_series(1, 3000) g;
      |CREATE TABLE app.audit (what text);
      |CREATE FUNCTION app.grade(score numeric) RETURNS text LANGUAGE sql
      |BEGIN ATOMIC
      |  SELECT CASE WHEN score > 2 THEN 'high; good' ELSE 'low' END;
      |END;
      |CREATE PROCEDURE app.note(t text) LANGUAGE sql
      |BEGIN ATOMIC INSERT INTO app.audit VALUES (t); INSERT INTO app.audit VALUES (t || '!'); END;
      |CREATE RULE forget AS ON DELETE TO app.visits
      |  DO ALSO (INSERT INTO app.audit VALUES ('gone'); INSERT INTO app.audit VALUES ('again'));
      |CREATE TABLE app.parted (id int GENERATED ALWAYS AS IDENTITY, at date NOT NULL, v text)
      |  PARTITION BY RANGE (at);
      |CREATE TABLE app.p2024 PARTITION OF app.parted FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
      |INSERT INTO app.parted (at, v) SELECT DATE '2024-06-01' + g, 'v;' || g FROM generate_series(1, 50) g;
      |CREATE MATERIALIZED VIEW app.per_day AS SELECT at, count(*) FROM app.parted GROUP BY at;
      |ALTER TABLE app.parted ENABLE ROW LEVEL SECURITY;
      |CREATE POLICY not_x ON app.parted USING (v <> 'x; y');
      |CREATE AGGREGATE app.total(int) (SFUNC = int4pl, STYPE = int, INITCOND = '0');
      |CREATE TYPE app.span AS RANGE (subtype = float8);
      |CREATE OPERATOR app.=== (LEFTARG = int, RIGHTARG = int, FUNCTION = int4eq);
      |CREATE STATISTICS app.st (dependencies) ON id, at FROM app.parted;
      |CREATE TABLE app.blobs (id int, data oid);
      |INSERT INTO app.blobs VALUES (1, lo_from_bytea(0, '\x00010203'::bytea));
      |""".stripMargin

  private def tool(name: String): String = TestPg.bin.resolve(name).toString

  /** psql or pg_dump's connection arguments for `target`. */
  private def dsn(target: PgTarget): String =
    s"host=${target.host} port=${target.port} user=${target.user} dbname=${target.database}"

  private def env(target: PgTarget): Seq[(String, String)] =
    target.password.map("PGPASSWORD" -> _).toSeq

  private def run(command: Seq[String], target: PgTarget): IO[String] = IO.blocking {
    val out = new StringBuilder
    val err = new StringBuilder
    val code = Process(command, None, env(target)*).!(
      ProcessLogger(l => out.append(l).append('\n'): Unit, l => err.append(l).append('\n'): Unit)
    )
    if code != 0 then fail(s"${command.head} failed ($code): $err")
    out.toString
  }

  /** `psql -X -q -v ON_ERROR_STOP=1 -1 -f file`, the reference way to apply a file. */
  private def psqlFile(file: java.nio.file.Path, target: PgTarget): IO[String] =
    run(
      Seq(
        tool("psql"),
        "-X",
        "-q",
        "-v",
        "ON_ERROR_STOP=1",
        "-1",
        "-f",
        file.toString,
        dsn(target)
      ),
      target
    )

  private def dump(target: PgTarget): IO[String] =
    run(Seq(tool("pg_dump"), "--no-owner", "--no-privileges", dsn(target)), target)

  /** A dump without its `\restrict` key lines, which pg_dump draws at random for every dump. */
  private def comparable(dump: String): String =
    dump.linesIterator
      .filterNot(l => l.startsWith("\\restrict") || l.startsWith("\\unrestrict"))
      .mkString("\n")

  test("a pg_dump file applied by weir dumps the same as the same file applied by psql") {
    for
      src <- TestPg.database("dump_src")
      viaPsql <- TestPg.database("dump_psql")
      viaWeir <- TestPg.database("dump_weir")
      setup <- IO.blocking {
        val p = tempPaths.file("weir-src-", ".sql")
        Files.writeString(p, source)
      }
      _ <- psqlFile(setup, src)
      file <- IO.blocking(tempPaths.file("weir-dump-", ".sql"))
      text <- dump(src)
      _ <- IO.blocking(Files.writeString(file, text))
      _ <- psqlFile(file, viaPsql)
      report <- PgSession.open[IO](viaWeir).use { session =>
        SqlApplier
          .create[IO](session, ApplySettings.default)
          .flatMap(_.run(List(SqlFile(file, "dump.sql", Files.size(file), transactional = true))))
      }
      psqlDump <- dump(viaPsql)
      weirDump <- dump(viaWeir)
    yield
      assertEquals(report.outcome, ApplyReport.Outcome.Completed)
      assert(text.contains("COPY app.visits"), "the dump has COPY bodies")
      assert(text.contains("BEGIN ATOMIC"), "the dump has SQL-standard bodies")
      assert(text.contains("DO ( INSERT"), "the dump has a rule of two actions")
      assert(text.contains("lo_open"), "the dump has a large object")
      assertEquals(report.copyRows, 3054L) // 3 people, 3 000 visits, 50 parted rows, 1 blob row
      assertEquals(comparable(weirDump), comparable(psqlDump))
      assert(psqlDump.contains("O'Brien\t"), "the data made it")
  }

  /** Applies `file` (named `db.dump`) to `target` in one transaction. */
  private def apply(file: java.nio.file.Path, target: PgTarget): IO[ApplyReport] =
    PgSession.open[IO](target).use { session =>
      SqlApplier
        .create[IO](session, ApplySettings.default)
        .flatMap(_.run(List(SqlFile(file, "db.dump", Files.size(file), transactional = true))))
    }

  test("pg_dump's custom and tar archives are refused as what they are, with nothing applied") {
    def archive(format: String, target: PgTarget): IO[java.nio.file.Path] =
      IO.blocking(tempPaths.file("weir-archive-", s".$format")).flatTap { file =>
        run(Seq(tool("pg_dump"), s"-F$format", "-f", file.toString, dsn(target)), target)
      }
    for
      src <- TestPg.database("archive_src")
      into <- TestPg.database("archive_into")
      _ <- PgSession.open[IO](src).use(_.update("CREATE TABLE kept AS SELECT 1 AS a"))
      custom <- archive("c", src).flatMap(apply(_, into))
      tar <- archive("t", src).flatMap(apply(_, into))
      tables <- PgSession
        .open[IO](into)
        .use(_.result("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"))
    yield
      def error(report: ApplyReport) = report.outcome match
        case ApplyReport.Outcome.Failed(e: SplitError.NotSql) => e.getMessage
        case other                                            => fail(other.toString)
      assert(error(custom).startsWith("db.dump is a pg_dump archive in custom format"))
      assert(error(tar).startsWith("db.dump is a pg_dump archive in tar format"))
      assertEquals(custom.statements + tar.statements, 0L)
      assertEquals(tables.map(_.rows), Right(Vector(Vector(Some("0")))))
  }

  test(
    "a LATIN1 database's dump, converted to UTF-8 as weir's message says, applies: its SET client_encoding is not sent"
  ) {
    for
      src <- TestPg.database("latin_src")
      name = s"weir_latin_${ProcessHandle.current.pid}"
      _ <- PgSession
        .open[IO](TestPg.admin)
        .use(
          _.update(
            s"CREATE DATABASE $name ENCODING 'LATIN1' TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C'"
          )
        )
      latin = TestPg.targetFor(name)
      _ <- PgSession.open[IO](latin).use { s =>
        s.update("CREATE TABLE cafe (name text)") >> s.update(
          "INSERT INTO cafe VALUES ('caf\u00e9')"
        )
      }
      raw <- IO.blocking(tempPaths.file("weir-latin-", ".sql")).flatTap { file =>
        run(Seq(tool("pg_dump"), "--no-owner", "-f", file.toString, dsn(latin)), latin)
      }
      converted <- IO.blocking {
        val text = new String(Files.readAllBytes(raw), java.nio.charset.StandardCharsets.ISO_8859_1)
        Files.writeString(tempPaths.file("weir-utf8-", ".sql"), text)
      }
      rawReport <- apply(raw, src)
      report <- apply(converted, src)
      value <- PgSession.open[IO](src).use(_.query("SELECT name FROM cafe"))
      _ <- PgSession.open[IO](TestPg.admin).use(_.update(s"DROP DATABASE $name"))
    yield
      rawReport.outcome match
        case ApplyReport.Outcome.Failed(_: SplitError.InvalidUtf8) => ()
        case other                                                 => fail(other.toString)
      assert(Files.readString(converted).contains("SET client_encoding = 'LATIN1';"))
      assertEquals(report.outcome, ApplyReport.Outcome.Completed)
      assert(
        report.warnings.exists(_.contains("SET client_encoding = 'LATIN1' was not sent")),
        report.warnings.toString
      )
      assertEquals(value, Vector(Vector(Some("caf\u00e9"))))
  }
