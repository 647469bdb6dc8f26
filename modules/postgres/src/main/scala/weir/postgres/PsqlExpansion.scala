package weir.postgres

import java.nio.charset.StandardCharsets.UTF_8

/** A statement as psql sends it once its variables are replaced ([[PsqlVariables.interpolate]]):
  * psql reads a value put in by `:NAME` as SQL, so a `;` in it ends a statement there, and the text
  * after it is another statement: `\set both 'SELECT 1; SELECT 2'` then `:both;` sends two.
  *
  * The file was cut into statements before the values were known ([[SqlSplitter]] runs ahead), so
  * what psql would read differently from that cut is refused, with the reason: a value that opens a
  * quote or comment it does not close (psql would read on into the file), a value holding a psql
  * command (a `\`), and a `COPY ... FROM STDIN` made of a value with a `;`. Pure.
  */
private[postgres] object PsqlExpansion:

  /** The statements `st` stands for with `vars` set: itself when nothing is replaced, else the
    * statements of its text with the values put in, each at `st`'s position; the last keeps how
    * `st` ended (`\gset`, `\gexec`). Left: why psql's reading cannot be followed here.
    */
  def statements(
      st: SqlPiece.Statement,
      vars: Map[String, String]
  ): Either[String, List[SqlPiece.Statement]] =
    if vars.isEmpty || !st.sql.contains(':') then Right(List(st))
    else
      val sql = PsqlVariables.interpolate(st.sql, vars, Some(Set.empty))
      if sql == st.sql then Right(List(st))
      else if !sql.contains(';') && !sql.contains('\\') then Right(List(st.copy(sql = sql)))
      else split(st, sql)

  private def split(st: SqlPiece.Statement, sql: String): Either[String, List[SqlPiece.Statement]] =
    val lexer = new SqlLexer(st.at.file, SqlSplitter.defaultMaxChunk, 0L)
    val read =
      try
        val bytes = sql.getBytes(UTF_8)
        lexer.feed(bytes, 0, bytes.length)
        lexer.finish()
        Right(lexer.drain().toList)
      catch
        case e: SplitError =>
          val why = e.getMessage.dropWhile(_ != ' ').trim
          Left(
            s"with its variables' values put in, the statement reads differently from how weir cut the file ($why): quote the value (:'NAME') or close in it what it opens"
          )
    read.flatMap { pieces =>
      val parts = pieces.collect { case s: SqlPiece.Statement => s }
      val copies = parts.count(_.copyFromStdin)
      val commands = pieces.exists {
        case _: SqlPiece.Statement | _: SqlPiece.CopyData | _: SqlPiece.CopyEnd => false
        case _                                                                  => true
      }
      if commands || parts.exists(_.resultTo.nonEmpty) then
        Left(
          "a variable's value holds a psql command (a \\): weir reads psql's commands from the file only"
        )
      else if copies != 0 && !(st.copyFromStdin && copies == 1 && parts.sizeIs == 1) then
        Left(
          "a variable's value with a ; makes or splits a COPY ... FROM STDIN: write the COPY in the file"
        )
      else
        val last = parts.size - 1
        Right(parts.zipWithIndex.map { (part, i) =>
          if i < last then part.copy(at = st.at, end = st.end)
          else part.copy(at = st.at, end = st.end, bodyFrom = st.bodyFrom, resultTo = st.resultTo)
        })
    }
