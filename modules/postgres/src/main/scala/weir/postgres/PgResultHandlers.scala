package weir.postgres

import java.nio.charset.StandardCharsets.UTF_8
import org.postgresql.core.{Field, Query, ResultCursor, ResultHandlerBase, Tuple}
import scala.jdk.CollectionConverters.*

/** What [[PgSession]] keeps of the server's answers to a query, as pgjdbc hands them over on the
  * pool's thread (one query at a time: not thread-safe).
  */
private[postgres] object PgResultHandlers:

  /** Counts statements that completed, in order, and keeps the last one's rows: the server reports
    * one command tag per statement (after its rows, if it returns any).
    */
  final class Counting extends Hearing:
    var rows = 0L
    override def handleCommandStatus(status: String, updateCount: Long, insertOID: Long): Unit =
      super.handleCommandStatus(status, updateCount, insertOID)
      rows = math.max(0L, updateCount)

  /** Keeps the server's notices and warnings (`RAISE NOTICE`), each with the index of the statement
    * it came in (the statements completed before it).
    */
  abstract class Hearing extends ResultHandlerBase:
    var completed = 0
    val notices = scala.collection.mutable.ArrayBuffer.empty[(Int, String)]
    override def handleCommandStatus(status: String, updateCount: Long, insertOID: Long): Unit =
      completed += 1
    override def handleWarning(warning: java.sql.SQLWarning): Unit =
      notices += completed -> PgResultHandlers.said(warning)

  /** A notice as psql says it: its severity and message (`NOTICE: migrated 5 rows`). */
  def said(warning: java.sql.SQLWarning): String = warning match
    case w: org.postgresql.util.PSQLWarning if w.getServerErrorMessage != null =>
      val m = w.getServerErrorMessage
      s"${Option(m.getSeverity).getOrElse("NOTICE")}: ${Option(m.getMessage).getOrElse("")}"
    case w => s"NOTICE: ${w.getMessage}"

  /** Keeps the last result's columns and rows, as text (the simple protocol's format). */
  final class Rows extends Hearing:
    var result: PgSession.Result = PgSession.Result(Vector.empty, Vector.empty)
    override def handleResultRows(
        fromQuery: Query,
        fields: Array[Field],
        tuples: java.util.List[Tuple],
        cursor: ResultCursor | Null
    ): Unit =
      val text = (b: Array[Byte] | Null) => Option(b).map(new String(_, UTF_8))
      result = PgSession.Result(
        fields.toVector.map(_.getColumnLabel),
        tuples.asScala.toVector.map(t => Vector.tabulate(fields.length)(i => text(t.get(i))))
      )
