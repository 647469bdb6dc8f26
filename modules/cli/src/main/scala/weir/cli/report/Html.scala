package weir.cli.report

import io.circe.Json
import weir.cli.common.Table

/** Writing HTML that is also well-formed XML: text and attributes escaped, JSON made safe to embed,
  * tables from [[weir.cli.common.Table]]. Pure string functions.
  */
object Html:

  /** `text` with `&`, `<`, `>`, `"` and `'` escaped: safe as element text and as an attribute value
    * in double quotes.
    */
  def escape(text: String): String =
    val out = new StringBuilder(text.length + 16)
    text.foreach {
      case '&'                                                 => out ++= "&amp;"
      case '<'                                                 => out ++= "&lt;"
      case '>'                                                 => out ++= "&gt;"
      case '"'                                                 => out ++= "&quot;"
      case '\''                                                => out ++= "&#39;"
      case c if c < ' ' && c != '\n' && c != '\t' && c != '\r' => out ++= " "
      case c                                                   => out += c
    }
    out.toString

  /** `json` printed compactly with `<`, `>` and `&` written as `\u003c`, `\u003e`, `\u0026`: the
    * same JSON value, and text that can close no element and start no entity, so it can sit in a
    * `<script type="application/json">` of an HTML page that is also XML.
    */
  def embed(json: Json): String =
    json.noSpaces.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")

  /** A table element: the header row, then one row per table row; right-aligned columns get the
    * class `num`.
    */
  def table(t: Table, caption: Option[String] = None): String =
    def cls(c: Table.Column) = if c.align == Table.Align.Right then " class=\"num\"" else ""
    val head = t.columns.map(c => s"<th${cls(c)}>${escape(c.name)}</th>").mkString
    val body = t.rows
      .map { row =>
        row
          .take(t.columns.size)
          .padTo(t.columns.size, "")
          .zip(t.columns)
          .map((cell, c) => s"<td${cls(c)}>${escape(cell)}</td>")
          .mkString("<tr>", "", "</tr>")
      }
      .mkString("\n")
    val cap = caption.fold("")(c => s"<caption>${escape(c)}</caption>")
    s"""<div class="table"><table>$cap<thead><tr>$head</tr></thead><tbody>
       |$body
       |</tbody></table></div>""".stripMargin
