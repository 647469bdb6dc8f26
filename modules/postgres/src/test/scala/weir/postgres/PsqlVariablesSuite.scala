package weir.postgres

import cats.effect.{IO, Ref}
import munit.CatsEffectSuite

/** psql's variables: where `:x` is replaced and where not, quoting, `\set` values, and the stage
  * that carries them from piece to piece.
  */
class PsqlVariablesSuite extends CatsEffectSuite with TempPaths.Cleanup:

  private val vars = Map("x" -> "it's \"q\"", "n" -> "7", "b" -> "a\\b")

  test("replaced outside quotes and comments; :: and unset names are left as written") {
    val cases = List(
      "SELECT :n, :'x', :\"x\"" -> "SELECT 7, 'it''s \"q\"', \"it's \"\"q\"\"\"",
      "SELECT ':n', \":n\", $$:n$$, $t$ :n $t$, E'\\':n', e':n'" ->
        "SELECT ':n', \":n\", $$:n$$, $t$ :n $t$, E'\\':n', e':n'",
      "SELECT 1 -- :n\n, 2 /* :n /* :n */ :n */, :n" -> "SELECT 1 -- :n\n, 2 /* :n /* :n */ :n */, 7",
      "SELECT a::int, :n::int, :nope, :'nope', :\"nope\", :, :'', 1:n" ->
        "SELECT a::int, 7::int, :nope, :'nope', :\"nope\", :, :'', 17",
      "SELECT $1, :n, x$y:n" -> "SELECT $1, 7, x$y7",
      "SELECT :'b'" -> "SELECT  E'a\\\\b'",
      "SELECT :'x\" || :\"x'" -> "SELECT :'x\" || :\"x'"
    )
    cases.foreach((sql, expected) => assertEquals(PsqlVariables.interpolate(sql, vars), expected))
  }

  test("in a statement a value is read as SQL: its references replaced, its ; ending a statement") {
    val v = Map(
      "one" -> "INSERT INTO t VALUES (1)",
      "two" -> ":one; SELECT ':one;'",
      "self" -> "x :self",
      "open" -> "'a;",
      "meta" -> "1 \\gset",
      "copy" -> "SELECT 1; COPY t FROM stdin"
    )
    val at = SqlPosition("f.sql", 3, 1)
    def statement(sql: String) =
      new SqlPiece.Statement(sql, at, Mark(40, 3), copyFromStdin = false)
    def sent(sql: String) = PsqlExpansion.statements(statement(sql), v).map(_.map(_.sql))
    assertEquals(sent(":two"), Right(List("INSERT INTO t VALUES (1)", "SELECT ':one;'")))
    assertEquals(
      sent(":'two' :one"),
      Right(List("':one; SELECT '':one;''' INSERT INTO t VALUES (1)"))
    )
    assertEquals(sent("SELECT :self"), Right(List("SELECT x :self")))
    assertEquals(sent("SELECT :{?one}, :{?nope}, :{?}"), Right(List("SELECT TRUE, FALSE, :{?}")))
    assertEquals(sent("SELECT 1 :nope; 2"), Right(List("SELECT 1 :nope; 2")))
    assert(
      sent("SELECT :open").left.exists(_.contains("unterminated quoted string")),
      sent(":open")
    )
    assert(sent("SELECT :meta").left.exists(_.contains("psql command")), sent(":meta"))
    assert(sent(":copy").left.exists(_.contains("COPY ... FROM STDIN")), sent(":copy"))
    assertEquals(PsqlExpansion.statements(statement(":semi"), v + ("semi" -> ";")), Right(Nil))
    val empty = statement(":semi").copy(resultTo = Some(SqlPiece.ResultTo.Variables("")))
    assert(PsqlExpansion.statements(empty, v + ("semi" -> ";")).left.exists(_.contains("\\gset")))
    val gset = statement(":two").copy(resultTo = Some(SqlPiece.ResultTo.Variables("")))
    val parts = PsqlExpansion.statements(gset, v).getOrElse(Nil)
    assertEquals(parts.map(p => (p.at, p.resultTo)), List((at, None), (at, gset.resultTo)))
    assertEquals(PsqlVariables.interpolate(":two", v), ":one; SELECT ':one;'")
  }

  test("\\set values: words joined, quotes, escapes, variables; back quotes refused") {
    val cases = List(
      "a b  c" -> Right("abc"),
      "'it''s' 'a\\tb'" -> Right("it'sa\tb"),
      "\"Q R\" :n:n" -> Right("\"Q R\"77"),
      ":'x' :nope" -> Right("'it''s \"q\"':nope"),
      "" -> Right("")
    )
    cases.foreach((text, expected) => assertEquals(PsqlVariableLine.value(text, vars), expected))
    assertEquals(
      PsqlVariableLine.value("'Loading'   :n  rows, 'a  b'", vars, separator = " "),
      Right("Loading 7 rows, a  b")
    )
    assert(PsqlVariableLine.value("`date`", vars).left.exists(_.contains("back quotes")))
    assert(PsqlVariableLine.value("'open", vars).left.exists(_.contains("unterminated")))
  }

  test("a value quoted for a \\getenv reads back as it was, quotes, escapes and colons in it") {
    List("plain", "it's \\ :n :'x' `date`", "two\nlines\tand\r", "", "''").foreach { v =>
      assertEquals(PsqlVariableLine.value(PsqlVariableLine.quoted(v), vars), Right(v))
    }
  }

  /** What an apply would send of `text` (and of the files it includes), with `vars` set first. */
  private def sent(text: String, vars: Map[String, String] = Map.empty): IO[List[String]] =
    val file = SqlFile.text("f.sql", text)
    Ref.of[IO, PsqlScript](PsqlScript.start(vars)).flatMap { script =>
      file
        .pieces[IO]
        .through(
          SqlIncludes
            .expand(
              file,
              _.open(),
              SqlSplitter.defaultMaxChunk,
              FileBlocks.Tally(None),
              script,
              IO.unit
            )
        )
        .map {
          case s: SqlPiece.Statement => s.sql
          case e: SqlPiece.Echo      => s"echo ${e.text}"
          case other                 => other.toString
        }
        .compile
        .toList
    }

  private def refusal(text: String): IO[String] =
    sent(text).attempt.map(
      _.left.map(_.getMessage).swap.getOrElse(fail(s"expected a refusal: $text"))
    )

  test("\\set, \\unset and \\echo in order, across an included file's lines; refused at the line") {
    val inc = tempPaths.file("weir-vars-", ".sql")
    java.nio.file.Files.writeString(inc, "\\set c :'a'\nSELECT :c;\n")
    for
      out <- sent(
        s"SELECT :a;\n\\set a 1 2\nSELECT :a, :'a';\n\\i $inc\n\\unset a\nSELECT :a, :c;\n\\echo 'n =' :a\n"
      )
      autocommit <- refusal("SELECT 1;\n\\set v off\n\\set AUTOCOMMIT :v\n")
    yield
      assertEquals(
        out,
        List("SELECT :a", "SELECT 12, '12'", "SELECT '12'", "SELECT :a, '12'", "echo n = :a")
      )
      assert(autocommit.startsWith("f.sql:3:1: \\set AUTOCOMMIT: psql's AUTOCOMMIT"), autocommit)
  }

  test(
    "\\if, \\elif, \\else, \\endif: nested, by variables and :{?NAME}; a branch not taken sends, sets and includes nothing"
  ) {
    val text =
      """\if :{?load}
        |SELECT 'load';
        |\i /nonexistent/never-read.sql
        |\elif :big
        |  \if off
        |  SELECT 'never';
        |  \else
        |  SELECT 'big';
        |  \set picked big
        |  \endif
        |\else
        |SELECT 'small';
        |\set picked small
        |\endif
        |\echo picked :picked
        |""".stripMargin
    for
      big <- sent(text, Map("big" -> "Yes"))
      small <- sent(text, Map("big" -> "0"))
      notBool <- refusal("\\if maybe\n\\endif\n")
      open <- refusal("SELECT 1;\n\\if true\nSELECT 2;\n")
      stray <- refusal("\\if 1\n\\else\n\\elif 1\n\\endif\n")
      unmatched <- refusal("\\endif\n")
    yield
      assertEquals(big, List("SELECT 'big'", "echo picked big"))
      assertEquals(small, List("SELECT 'small'", "echo picked small"))
      assert(notBool.startsWith("f.sql:1:1: \\if maybe: not a boolean"), notBool)
      assert(open.startsWith("f.sql:2:1: \\if without \\endif"), open)
      assert(stray.startsWith("f.sql:3:1: \\elif after \\else"), stray)
      assert(unmatched.startsWith("f.sql:1:1: \\endif without \\if"), unmatched)
  }

  test(
    "the statements weir sends are the ones psql sends (psql -e echoes them), in every context"
  ) {
    // One statement a line, each valid, so that psql runs them all and echoes each on one line.
    val corpus =
      """\set t 'it''s "q" \\ x'
        |\set n 42
        |\set id my "id"
        |SELECT :n AS a, :'t' AS b, 1 AS :"id";
        |SELECT ':n', $$:n$$, $q$ :n $q$, E'\':n', e'x\\' || :'n';
        |SELECT 1 /* :n /* :n */ :n */ + :n;
        |SELECT '1'::int, :n::int, :'n'::int;
        |SELECT (array[1,2,3])[1:2], (array[1,2,3])[:n];
        |SELECT x$y:n FROM (SELECT 1) s(x$y42);
        |SELECT :'t' || :'n' AS ":n";
        |SELECT U&'\0041:n', B'1', X'1F';
        |SELECT $fn$ :n $fn$, $_$:n$_$, ':nope' = ':nope';
        |\unset n
        |\if :{?n}
        |SELECT 'never';
        |\elif :{?t}
        |SELECT :'t' AS t, ':n' AS n;
        |\endif
        |""".stripMargin
    for
      db <- TestPg.database("psql_vars")
      echoed <- TestPg.psql(db, corpus, "-e")
      ours <- sent(corpus)
    yield
      assertEquals(echoed.size, 10, echoed.mkString("\n"))
      assertEquals(ours.map(_ + ";"), echoed)
  }
