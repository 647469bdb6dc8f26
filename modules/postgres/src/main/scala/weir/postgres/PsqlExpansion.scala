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
    if !st.sql.contains(':') then Right(List(st))
    else
      val sql = PsqlVariables.interpolate(st.sql, vars, Some(Set.empty))
      if sql == st.sql then Right(List(st))
      else if readAsSql(st.sql, vars) then split(st, sql)
      else Right(List(st.copy(sql = sql)))

  /** Whether a value that `sql` may put in as it is holds what SQL's lexer reads (a `;`, a quote, a
    * comment's start, a `\\`, another reference): only then is the statement cut again, as reading
    * every statement with a variable again would cost an apply with `-v schema=app` on each
    * statement a third of its time (measured on 100 000 statements).
    */
  private def readAsSql(sql: String, vars: Map[String, String]): Boolean =
    val seen = lastSeen.get
    val references =
      if seen._1 eq vars then seen._2
      else
        val found = vars.collect {
          case (name, value) if value.exists(c => lexed.indexOf(c) >= 0) => ":" + name
        }.toList
        lastSeen.set((vars, found))
        found
    references.exists(sql.contains)

  private val lexed = ";'\"$-/\\:"

  // The references to such values, for the last variables seen: they change only at a `\\set`, a
  // `\\gset` or a `\\connect`, and looking through every value for each statement cost as much as
  // reading the statement again. Shared by every apply in the JVM: a race only finds them again.
  private val lastSeen =
    new java.util.concurrent.atomic.AtomicReference[(Map[String, String], List[String])](
      (Map.empty, Nil)
    )

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
      else if parts.isEmpty && st.resultTo.nonEmpty then
        Left(
          "with its variables' values put in, no statement is left for its \\gset or \\gexec (psql would run the statement before it again)"
        )
      else
        val last = parts.size - 1
        Right(parts.zipWithIndex.map { (part, i) =>
          if i < last then part.copy(at = st.at, end = st.end)
          else part.copy(at = st.at, end = st.end, bodyFrom = st.bodyFrom, resultTo = st.resultTo)
        })
    }
