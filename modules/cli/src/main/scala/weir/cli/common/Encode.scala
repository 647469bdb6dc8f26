package weir.cli.common

/** Quoting for the machine-readable report formats, shared by every command's renderer. */
object Encode:

  /** A JSON string literal: quotes, backslashes and control characters escaped. */
  def json(text: String): String =
    "\"" + text.flatMap {
      case '"'          => "\\\""
      case '\\'         => "\\\\"
      case '\n'         => "\\n"
      case c if c < ' ' => f"\\u${c.toInt}%04x"
      case c            => c.toString
    } + "\""
