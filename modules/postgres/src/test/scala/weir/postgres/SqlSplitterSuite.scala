package weir.postgres

import cats.effect.IO
import cats.syntax.all.*
import fs2.{Chunk, Stream}
import java.nio.charset.StandardCharsets.UTF_8
import munit.CatsEffectSuite
import weir.Capacity

/** The splitter on hand-written files: each rule of PostgreSQL's syntax, positions, COPY bodies,
  * and every error with the place it names.
  */
class SqlSplitterSuite extends CatsEffectSuite:

  private def capacity(n: Int): Capacity = Capacity.from(n).fold(e => fail(e.getMessage), identity)

  private def split(text: String, chunk: Int = 4096, maxChunk: Int = 64 * 1024) =
    splitBytes(text.getBytes(UTF_8), chunk, maxChunk)

  private def splitBytes(bytes: Array[Byte], chunk: Int = 4096, maxChunk: Int = 64 * 1024) =
    Stream
      .chunk(Chunk.array(bytes))
      .covary[IO]
      .rechunkRandomlyWithSeed(0.1, 1.0)(1L)
      .chunkLimit(chunk)
      .unchunks
      .through(SqlSplitter.pipe[IO]("f.sql", capacity(maxChunk)))
      .compile
      .toList

  private def statements(text: String) = split(text).map(_.collect {
    case SqlPiece.Statement(sql, at, _, _, _, _, _) => (sql, at.line, at.column)
  })

  test("semicolons inside quotes, identifiers, dollar quotes and comments do not end statements") {
    val text =
      """SELECT 'a;b''c;' AS x;
        |SELECT E'it\'s; \\' , e'x\';y';
        |SELECT "we;ird""name" FROM t;
        |CREATE FUNCTION f() RETURNS int AS $fn$ SELECT 1; $x$ ; $fn$ LANGUAGE sql;
        |SELECT $$;$$, $1, a$b$c; -- a comment; here
        |/* outer /* inner; */ still; */ SELECT 2;
        |SELECT 3 -- tail;
        |;""".stripMargin
    statements(text).map(got =>
      assertEquals(
        got,
        List(
          ("SELECT 'a;b''c;' AS x", 1L, 1),
          ("SELECT E'it\\'s; \\\\' , e'x\\';y'", 2L, 1),
          ("SELECT \"we;ird\"\"name\" FROM t", 3L, 1),
          ("CREATE FUNCTION f() RETURNS int AS $fn$ SELECT 1; $x$ ; $fn$ LANGUAGE sql", 4L, 1),
          ("SELECT $$;$$, $1, a$b$c", 5L, 1),
          ("SELECT 2", 6L, 33),
          ("SELECT 3 -- tail;", 7L, 1)
        )
      )
    )
  }

  test("as psql 15: no end inside parentheses, nor in a function's or procedure's BEGIN ATOMIC") {
    val text =
      """CREATE RULE r AS ON UPDATE TO t DO ALSO (INSERT INTO a VALUES (1); DELETE FROM b);
        |create or replace function f(x int) returns int language sql
        |begin atomic
        |  select case when x > 0 then 1 else (select 2; ) end;
        |  select x;
        |end;
        |CREATE PROCEDURE p() BEGIN ATOMIC INSERT INTO a VALUES (1); END;
        |BEGIN;
        |CREATE TABLE "begin" (id int); CREATE FUNCTION g() RETURNS int AS $$ BEGIN; $$ LANGUAGE sql;
        |CREATE TABLE e (end_at int); SELECT E'begin', "case"; COMMIT;
        |CREATE VIEW v AS SELECT 1 AS begin; SELECT 2;
        |SELECT (1;
        |SELECT 3);
        |SELECT 4;""".stripMargin
    statements(text).map(got =>
      assertEquals(
        got.map(_._1),
        List(
          "CREATE RULE r AS ON UPDATE TO t DO ALSO (INSERT INTO a VALUES (1); DELETE FROM b)",
          """create or replace function f(x int) returns int language sql
            |begin atomic
            |  select case when x > 0 then 1 else (select 2; ) end;
            |  select x;
            |end""".stripMargin,
          "CREATE PROCEDURE p() BEGIN ATOMIC INSERT INTO a VALUES (1); END",
          "BEGIN",
          "CREATE TABLE \"begin\" (id int)",
          "CREATE FUNCTION g() RETURNS int AS $$ BEGIN; $$ LANGUAGE sql",
          "CREATE TABLE e (end_at int)",
          "SELECT E'begin', \"case\"",
          "COMMIT",
          "CREATE VIEW v AS SELECT 1 AS begin",
          "SELECT 2",
          "SELECT (1;\nSELECT 3)",
          "SELECT 4"
        )
      )
    )
  }

  test("a standard string is not an E string: a backslash before the quote ends it") {
    statements("SELECT 'a\\'; SELECT 'b';").map(got =>
      assertEquals(got.map(_._1), List("SELECT 'a\\'", "SELECT 'b'"))
    )
  }

  test("columns count characters, not bytes; a byte order mark and CRLF are fine") {
    val text = "\uFEFFSELECT 'é';  SELECT 1;\r\n  SELECT 2;\r\n"
    statements(text).map(got =>
      assertEquals(got, List(("SELECT 'é'", 1L, 1), ("SELECT 1", 1L, 14), ("SELECT 2", 2L, 3)))
    )
  }

  test("text after the last semicolon is a statement; empty statements are skipped") {
    statements(";;SELECT 1;\n;\nSELECT 2").map(got =>
      assertEquals(got.map(_._1), List("SELECT 1", "SELECT 2"))
    )
  }

  test("a COPY body is streamed in chunks of whole lines up to \\. (CRLF too)") {
    val body = (1 to 10).map(i => s"$i\tname;'$i\n").mkString
    val text = s"COPY t (a, b) FROM stdin;\n$body\\.\r\nSELECT 1;"
    split(text, chunk = 7, maxChunk = 32).map { pieces =>
      val data = pieces.collect { case SqlPiece.CopyData(bytes, _, _) => bytes }
      assertEquals(data.map(c => new String(c.toArray, UTF_8)).mkString, body)
      assert(data.forall(c => c.size <= 32 && c.last.contains('\n'.toByte)), data.toString)
      assertEquals(pieces.collect { case SqlPiece.CopyData(_, rows, _) => rows }.sum, 10)
      val ends = pieces.collect { case e: SqlPiece.CopyEnd => (e.copy.line, e.terminated) }
      assertEquals(ends, List((1L, true)))
      assertEquals(
        pieces.collect { case s: SqlPiece.Statement => (s.sql, s.at.line, s.copyFromStdin) },
        List(("COPY t (a, b) FROM stdin", 1L, true), ("SELECT 1", 13L, false))
      )
      assertEquals(pieces.last.end.bytes, text.length.toLong)
    }
  }

  test("a line longer than a chunk is cut; a body may end at the end of the file") {
    val long = "x" * 100 + "\n"
    split(s"COPY t FROM STDIN;\n$long\\.x\n", maxChunk = 32).map { pieces =>
      val data = pieces.collect { case SqlPiece.CopyData(bytes, _, _) => bytes }
      assertEquals(data.map(c => new String(c.toArray, UTF_8)).mkString, long + "\\.x\n")
      assert(data.forall(_.size <= 32))
      assertEquals(pieces.collect { case e: SqlPiece.CopyEnd => e.terminated }, List(false))
    }
  }

  test(
    "\\restrict, \\unrestrict, the commands that only shape psql's output and \\o to nowhere are skipped"
  ) {
    val lines = "\\restrict abc\n\\pset pager off\n\\timing on\n\\x auto\n\\a\n\\t on\n" +
      "\\f ','\n\\H\n\\T border=1\n\\C title\n\\o /dev/null\nSELECT 1;\n\\o\n" +
      "\\out '/dev/null'\n\\unrestrict abc\n"
    statements(lines).map(got => assertEquals(got.map(_._1), List("SELECT 1")))
  }

  test("\\set and \\unset are variables; ON_ERROR_STOP off and AUTOCOMMIT are refused") {
    val on = List("on", "ON", "1", "true", "t", "Yes", "y")
    def variables(text: String) = split(text).map(_.collect {
      case SqlPiece.Variable(name, value, at, _) => (name, value, at.line)
    })
    for
      kept <- on.traverse(v => statements(s"\\set ON_ERROR_STOP $v\r\nSELECT 1;\n"))
      off <- failure("SELECT 1;\n\\set ON_ERROR_STOP off\nSELECT 2;\n")
      other <- failure("\\set AUTOCOMMIT off\n")
      badName <- failure("\\set a-b 1\n")
      inside <- failure("SELECT\n\\set x 1\n1;\n")
      set <- variables("\\set x 'it''s' two\nSELECT :x;\n\\unset x\n\\set\n\\set e")
    yield
      kept.foreach(got => assertEquals(got.map(_._1), List("SELECT 1")))
      assert(
        off.startsWith(
          "f.sql:2:1: \\set ON_ERROR_STOP: going on past failed statements is set for the whole apply"
        ),
        off
      )
      assert(other.startsWith("f.sql:1:1: \\set AUTOCOMMIT: psql's AUTOCOMMIT changes"), other)
      assert(badName.startsWith("f.sql:1:1: \\set a-b: a variable's name"), badName)
      assert(inside.startsWith("f.sql:2:1: \\set inside a statement"), inside)
      assertEquals(
        set,
        List(("x", Some("'it''s' two"), 1L), ("x", None, 3L), ("e", Some(""), 5L))
      )
  }

  test("\\g, \\gset and \\gexec end a statement where they stand; a mid-line \\ starts a command") {
    import SqlPiece.ResultTo.*
    def ended(text: String) = split(text).map(_.collect {
      case s: SqlPiece.Statement => (s.sql, s.resultTo, s.end.lines)
      case e: SqlPiece.Echo      => (s"echo ${e.text}", None, e.end.lines)
    })
    for
      got <- ended(
        "SELECT 1 AS a \\gset\nSELECT 2 AS b,\n  3 AS c\n\\gset p_\nSELECT 4 \\g\nSELECT 5; \\echo hi\n" +
          "SELECT 'SELECT 6'\\gexec\n"
      )
      again <- failure("SELECT 1 AS a;\n\\gset\n")
      gexec <- failure("SELECT 'SELECT 1' \\gexec x\n")
      gx <- failure("SELECT 1 \\gx\n")
      two <- failure("SELECT 1 AS a \\gset p q\n")
      copy <- failure("COPY t FROM STDIN \\gset\n")
      inside <- failure("SELECT 1 \\echo x\n;\n")
    yield
      assertEquals(
        got,
        List(
          ("SELECT 1 AS a", Some(Variables("")), 1L),
          ("SELECT 2 AS b,\n  3 AS c", Some(Variables("p_")), 4L),
          ("SELECT 4", None, 5L),
          ("SELECT 5", None, 5L),
          ("echo hi", None, 6L),
          ("SELECT 'SELECT 6'", Some(Statements(echo = false)), 7L)
        )
      )
      assert(again.startsWith("f.sql:2:1: \\gset: no statement before it"), again)
      assert(gexec.startsWith("f.sql:1:1: \\gexec: no argument"), gexec)
      assert(gx.startsWith("f.sql:1:1: \\gx: weir prints no results"), gx)
      assert(two.startsWith("f.sql:1:1: \\gset: one prefix at most"), two)
      assert(copy.startsWith("f.sql:1:1: a COPY ... FROM STDIN ended by \\gset or \\gexec"), copy)
      assert(inside.startsWith("f.sql:1:1: \\echo inside a statement"), inside)
  }

  test("psql's \\; keeps a ; in the statement, which it marks; a plain ; still ends one") {
    split("SELECT 1 \\; SELECT ';'\\;\nSELECT 2; SELECT 3;\n\\; SELECT 4;").map { pieces =>
      val shown = pieces.collect { case s: SqlPiece.Statement => (s.sql, s.at.line, s.joined) }
      assertEquals(
        shown,
        List(
          ("SELECT 1 ; SELECT ';';\nSELECT 2", 1L, true),
          ("SELECT 3", 2L, false),
          ("; SELECT 4", 3L, true)
        )
      )
    }
  }

  private def failure(text: String): IO[String] =
    split(text).attempt.map {
      case Left(e: SplitError) => e.getMessage
      case other               => fail(s"expected a SplitError, got $other")
    }

  test("errors name file, line (and column) and what to do") {
    for
      meta <- failure("SELECT 1;\n  \\o other\nSELECT 2;")
      quote <- failure("SELECT 1;\nSELECT 'abc;\n;")
      ident <- failure("SELECT \"abc;")
      dollar <- failure("SELECT 1;\n\n  SELECT $body$ abc;")
      comment <- failure("SELECT 1; /* /* */ ")
      stdout <- failure("COPY t TO STDOUT;")
      scs <- failure("SET standard_conforming_strings = off;")
      joined <- failure("SELECT 1 \\;\n  COMMIT;")
      latin <- failure("\\encoding SQL_ASCII\n\\encoding 'utf8'\nSELECT 1;\n\\encoding LATIN1\n")
      utf8 <- splitBytes(
        "SELECT 1;\nSELECT '\u00e9".getBytes(UTF_8) ++ Array(0xff.toByte, '\''.toByte)
      ).attempt.map(_.left.map(_.getMessage))
      cut <- splitBytes("SELECT 1;\nSELECT '".getBytes(UTF_8) ++ Array(0xc3.toByte)).attempt
        .map(_.left.map(_.getMessage))
    yield
      assert(meta.startsWith("f.sql:2: psql meta-command \\o other"), meta)
      assert(quote.startsWith("f.sql:2:8: unterminated quoted string"), quote)
      assert(ident.startsWith("f.sql:1:8: unterminated quoted identifier"), ident)
      assert(dollar.startsWith("f.sql:3:10: unterminated dollar-quoted string $body$"), dollar)
      assert(comment.startsWith("f.sql:1:11: unterminated block comment"), comment)
      assert(stdout.startsWith("f.sql:1:1: COPY ... TO STDOUT is not supported"), stdout)
      assert(scs.contains("standard_conforming_strings = off is not supported"), scs)
      assert(
        joined.startsWith("f.sql:1:1: COMMIT put together with other statements by \\;"),
        joined
      )
      assert(latin.startsWith("f.sql:4:1: \\encoding LATIN1: weir reads files as UTF-8"), latin)
      assert(utf8.left.exists(_.startsWith("f.sql:2: invalid UTF-8 (byte 0xff)")), utf8.toString)
      assert(
        cut.left.exists(_.startsWith("f.sql:2: invalid UTF-8 (the file ends inside a character)")),
        cut.toString
      )
  }

  test("a pg_dump archive or a compressed file is refused by its first bytes, short files split") {
    val gzipped = new java.io.ByteArrayOutputStream
    val gzip = new java.util.zip.GZIPOutputStream(gzipped)
    gzip.write("SELECT 1;".getBytes(UTF_8))
    gzip.close()
    // A byte at a time: the first bytes are looked at wherever blocks are cut. (fs2's random
    // rechunking never ends on a file this short.)
    def byByte(bytes: Array[Byte]) = Stream
      .emits(bytes.toSeq)
      .covary[IO]
      .through(SqlSplitter.pipe[IO]("f.sql"))
      .compile
      .toList
    def refused(bytes: Array[Byte]) = byByte(bytes).attempt.map(_.left.map(_.getMessage))
    def sql(bytes: Array[Byte]) = byByte(bytes).map(_.collect { case s: SqlPiece.Statement =>
      s.sql
    })
    for
      custom <- refused("PGDMP\u0001\u000e\u0000".getBytes(UTF_8) ++ Array.fill(100)(0.toByte))
      tar <- refused("toc.dat".getBytes(UTF_8) ++ Array.fill(505)(0.toByte))
      gz <- refused(gzipped.toByteArray)
      short <- sql("x;".getBytes(UTF_8))
      eight <- sql("SELECT 1".getBytes(UTF_8))
      bom <- sql(Array(0xef, 0xbb, 0xbf, 'x', ';').map(_.toByte))
      empty <- sql(Array.emptyByteArray)
    yield
      assertEquals(
        custom,
        Left(
          "f.sql is a pg_dump archive in custom format (pg_dump -Fc), not SQL text: restore it with pg_restore -d DATABASE FILE, or turn it into SQL and apply that: pg_restore -f - FILE | weir apply-sql -"
        )
      )
      assert(tar.left.exists(_.startsWith("f.sql is a pg_dump archive in tar format")), tar)
      assertEquals(
        gz,
        Left(
          "f.sql is gzip-compressed, not SQL text: weir reads SQL text: gzip -dc FILE | weir apply-sql -"
        )
      )
      assertEquals(short, List("x"))
      assertEquals(eight, List("SELECT 1"))
      assertEquals(bom, List("x"))
      assertEquals(empty, Nil)
  }

  test("statements before an error are emitted before it") {
    split("SELECT 1;\n\\o x\n").attempt.map(r => assert(r.isLeft)) >>
      Stream
        .emits("SELECT 1;\n\\o x\n".getBytes(UTF_8))
        .covary[IO]
        .through(SqlSplitter.pipe[IO]("f.sql"))
        .attempt
        .compile
        .toList
        .map(r =>
          assertEquals(r.head.map(_.asInstanceOf[SqlPiece.Statement].sql), Right("SELECT 1"))
        )
  }
