package weir.cli.common

/** One table, rendered three ways: aligned text for a terminal, a Markdown table, or CSV. The one
  * table renderer of every command's report.
  *
  * {{{
  * val table = Table(List(Table.left("strategy"), Table.right("ms")), List(List("weir", "520")))
  * table.text     // "strategy   ms\nweir      520"
  * table.markdown // "| strategy | ms |\n|---|---:|\n| weir | 520 |"
  * table.csv      // "strategy,ms\nweir,520"
  * }}}
  *
  * Rows shorter than the header are padded with empty cells; longer ones are cut to the header's
  * width. Pure: no effects.
  *
  * @param columns
  *   the header: a name and an alignment per column
  * @param rows
  *   the cells, already formatted, one list per row
  */
final case class Table(columns: List[Table.Column], rows: List[List[String]]):
  import Table.Align

  private def cells: List[List[String]] =
    rows.map(row => row.take(columns.size).padTo(columns.size, ""))

  /** Aligned text: columns two spaces apart, each as wide as its widest cell, numbers right; no
    * trailing spaces.
    */
  def text: String =
    val body = cells
    val widths =
      columns.indices.map(i => (columns(i).name :: body.map(_(i))).map(Table.width).max)
    def line(row: List[String]) =
      row
        .zip(columns)
        .zip(widths)
        .map { case ((cell, column), w) =>
          val pad = " " * (w - Table.width(cell))
          if column.align == Align.Right then pad + cell else cell + pad
        }
        .mkString("  ")
        .stripTrailing
    (line(columns.map(_.name)) :: body.map(line)).mkString("\n")

  /** A GitHub-flavoured Markdown table; `|` in a cell is escaped, line breaks become spaces. */
  def markdown: String =
    def line(row: List[String]) =
      row.map(_.replace("|", "\\|").replaceAll("[\r\n]+", " ")).mkString("| ", " | ", " |")
    val rule = columns
      .map(c => if c.align == Align.Right then "---:" else "---")
      .mkString("|", "|", "|")
    (line(columns.map(_.name)) :: rule :: cells.map(line)).mkString("\n")

  /** CSV (RFC 4180): a header line of the column names, then one line per row; a field is quoted
    * only when it holds a comma, a quote or a line break, with inner quotes doubled.
    */
  def csv: String =
    (columns.map(_.name) :: cells).map(_.map(Table.csvField).mkString(",")).mkString("\n")

object Table:

  /** How a column's cells line up in [[Table.text]] and [[Table.markdown]]. */
  enum Align:
    case Left, Right

  /** One column: its header name and alignment. */
  final case class Column(name: String, align: Align)

  /** A left-aligned column (names, notes). */
  def left(name: String): Column = Column(name, Align.Left)

  /** A right-aligned column (numbers). */
  def right(name: String): Column = Column(name, Align.Right)

  /** A CSV field, quoted only when it must be (RFC 4180). */
  def csvField(text: String): String =
    if text.exists(c => c == ',' || c == '"' || c == '\n' || c == '\r') then
      "\"" + text.replace("\"", "\"\"") + "\""
    else text

  // Characters as a terminal shows them: escape sequences (colour) take no room.
  private def width(text: String): Int =
    val shown = text.replaceAll("\u001b\\[[0-9;]*m", "")
    shown.codePointCount(0, shown.length)
