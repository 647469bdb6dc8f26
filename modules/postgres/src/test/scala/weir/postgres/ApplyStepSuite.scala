package weir.postgres

import fs2.Stream
import java.nio.file.Paths
import munit.FunSuite

/** [[ApplyStep.group]]: statements grouped into round trips by count and by size. */
class ApplyStepSuite extends FunSuite:

  private val file = SqlFile(Paths.get("t.sql"), "t.sql", 0L, transactional = true)

  private def statement(sql: String) =
    SqlPiece.Statement(sql, SqlPosition("t.sql", 1, 1), Mark(0, 0), false)

  private def groups(pipeline: Int, sqls: String*): List[List[String]] =
    Stream
      .emits(sqls.map(statement))
      .through(ApplyStep.group[fs2.Pure](file, pipeline))
      .toList
      .collect { case ApplyStep.Run(_, statements) => statements.map(_.sql).toList }

  test("up to `pipeline` statements a round trip") {
    assertEquals(groups(2, "a", "b", "c"), List(List("a", "b"), List("c")))
  }

  test("a round trip stays under 64 KB of SQL; a larger statement goes alone") {
    val big = "x" * ApplySettings.pipelineBytes
    val half = "y" * (ApplySettings.pipelineBytes / 2)
    assertEquals(
      groups(256, "a", "b", big, "c", half, half, "d"),
      List(List("a", "b"), List(big), List("c", half), List(half, "d"))
    )
  }

  test("a SET client_encoding to anything but UTF-8 is not sent, with the reason") {
    val steps = Stream
      .emits(
        List(
          "SET client_encoding = 'LATIN1'",
          "SET client_encoding TO 'UTF8'",
          "set session client_encoding to win1252",
          "SET NAMES 'SQL_ASCII'",
          "SET client_encoding = DEFAULT",
          "SET client_min_messages = warning"
        ).map(statement)
      )
      .through(ApplyStep.group[fs2.Pure](file, 256))
      .toList
    val shown = steps.collect {
      case ApplyStep.Unsent(_, s, reason) =>
        s"unsent ${s.sql}: ${reason.drop(reason.indexOf("iconv"))}"
      case ApplyStep.Run(_, ss) => ss.map(_.sql).mkString("run ", "; ", "")
    }
    assertEquals(
      shown,
      List(
        "unsent SET client_encoding = 'LATIN1': iconv -f LATIN1 -t UTF-8 first)",
        "run SET client_encoding TO 'UTF8'",
        "unsent set session client_encoding to win1252: iconv -f WIN1252 -t UTF-8 first)",
        "unsent SET NAMES 'SQL_ASCII': iconv -f SQL_ASCII -t UTF-8 first)",
        "run SET client_encoding = DEFAULT; SET client_min_messages = warning"
      )
    )
  }
