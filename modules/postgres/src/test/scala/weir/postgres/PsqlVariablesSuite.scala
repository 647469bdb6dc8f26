package weir.postgres

import cats.effect.{IO, Ref}
import fs2.Stream
import munit.CatsEffectSuite

/** psql's variables: where `:x` is replaced and where not, quoting, `\set` values, and the stage
  * that carries them from piece to piece.
  */
class PsqlVariablesSuite extends CatsEffectSuite:

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

  test("the stage sets, unsets and interpolates in order, and refuses at the \\set's line") {
    val at = SqlPosition("f.sql", 1, 1)
    def stmt(sql: String) = SqlPiece.Statement(sql, at, Mark(0, 0), false)
    val pieces = List(
      stmt("SELECT :a"),
      SqlPiece.Variable("a", Some("1 2"), at, Mark(0, 0)),
      stmt("SELECT :a, :'a'"),
      SqlPiece.Variable("c", Some(":'a'"), at, Mark(0, 0)),
      SqlPiece.Variable("a", None, at, Mark(0, 0)),
      stmt("SELECT :a, :c")
    )
    def through(ps: List[SqlPiece]) =
      Ref.of[IO, Map[String, String]](Map.empty).flatMap { ref =>
        Stream.emits(ps).chunkLimit(2).unchunks.through(PsqlVariables.pipe(ref)).compile.toList
      }
    val refused = List(
      stmt("SELECT 1"),
      SqlPiece.Variable("v", Some("off"), at, Mark(0, 0)),
      SqlPiece.Variable("AUTOCOMMIT", Some(":v"), SqlPosition("f.sql", 9, 1), Mark(0, 0))
    )
    for
      out <- through(pieces)
      failed <- through(refused).attempt
    yield
      assertEquals(
        out.collect { case s: SqlPiece.Statement => s.sql },
        List("SELECT :a", "SELECT 12, '12'", "SELECT :a, '12'")
      )
      assert(
        failed.left.exists(
          _.getMessage.startsWith("f.sql:9:1: \\set AUTOCOMMIT: psql's AUTOCOMMIT")
        ),
        failed.toString
      )
  }
