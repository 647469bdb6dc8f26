package weir.cli.common

import munit.FunSuite

/** The one table renderer: alignment, Markdown escaping, CSV quoting, ragged rows. */
class TableSuite extends FunSuite:

  private val table = Table(
    List(Table.left("name"), Table.right("ms"), Table.left("note")),
    List(List("weir", "520", ""), List("batch-io", "1113", "a, b"), List("x|y", "7", "say \"hi\""))
  )

  test("text: names left, numbers right, two spaces apart, no trailing spaces") {
    assertEquals(
      table.text,
      """name        ms  note
        |weir       520
        |batch-io  1113  a, b
        |x|y          7  say "hi"""".stripMargin
    )
  }

  test("markdown: a rule with right-aligned numbers, | escaped") {
    assertEquals(
      table.markdown,
      """#| name | ms | note |
        #|---|---:|---|
        #| weir | 520 |  |
        #| batch-io | 1113 | a, b |
        #| x\|y | 7 | say "hi" |""".stripMargin('#')
    )
  }

  test("csv: fields quoted only when they must be, quotes doubled") {
    assertEquals(
      table.csv,
      """name,ms,note
        |weir,520,
        |batch-io,1113,"a, b"
        |x|y,7,"say ""hi"""""".stripMargin
    )
  }

  test("short rows are padded, long rows cut to the header") {
    val ragged =
      Table(List(Table.left("a"), Table.right("b")), List(List("1"), List("2", "3", "4")))
    assertEquals(ragged.csv, "a,b\n1,\n2,3")
    assertEquals(ragged.text, "a  b\n1\n2  3")
  }

  test("colour escapes take no width in text") {
    val coloured =
      Table(List(Table.left("x"), Table.right("y")), List(List("\u001b[33mP\u001b[0m", "1")))
    assertEquals(coloured.text.linesIterator.toList.last, "\u001b[33mP\u001b[0m  1")
  }
