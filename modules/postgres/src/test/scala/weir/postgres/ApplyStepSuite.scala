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
