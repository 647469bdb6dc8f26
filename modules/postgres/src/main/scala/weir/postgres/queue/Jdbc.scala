package weir.postgres.queue

import java.sql.{Connection, PreparedStatement, ResultSet}

/** The few JDBC moves the queue's statements share: prepared statements closed after use, arrays
  * bound as parameters, rows read into values.
  */
private[queue] object Jdbc:

  /** Runs `f` on a prepared `sql`, closing it after. */
  def prepared[A](c: Connection, sql: String)(f: PreparedStatement => A): A =
    val s = c.prepareStatement(sql)
    try f(s)
    finally s.close()

  /** The rows of `s`, each read by `row`. */
  def rows[A](s: PreparedStatement)(row: ResultSet => A): Vector[A] =
    val rs = s.executeQuery()
    try
      val out = Vector.newBuilder[A]
      while rs.next() do out += row(rs)
      out.result()
    finally rs.close()

  def longs(c: Connection, xs: Seq[Long]): java.sql.Array =
    c.createArrayOf("bigint", xs.map(x => java.lang.Long.valueOf(x): AnyRef).toArray)

  def ints(c: Connection, xs: Seq[Int]): java.sql.Array =
    c.createArrayOf("integer", xs.map(x => java.lang.Integer.valueOf(x): AnyRef).toArray)

  def texts(c: Connection, xs: Seq[String]): java.sql.Array =
    c.createArrayOf("text", xs.toArray[AnyRef])

  /** `sql` inside one transaction on `c` (autocommit off, committed, rolled back on error). */
  def transaction[A](c: Connection)(f: => A): A =
    c.setAutoCommit(false)
    try
      val a = f
      c.commit()
      a
    catch
      case e: Throwable =>
        try c.rollback()
        catch case _: Throwable => ()
        throw e
    finally
      try c.setAutoCommit(true)
      catch case _: Throwable => ()
