package weir.postgres

import java.sql.{Connection, SQLException}
import org.postgresql.PGConnection

/** What [[PgSession.borrowed]] does to a connection of the application's pool: borrowed (checked to
  * be pgjdbc's, in autocommit, renamed), given back as it was, and named for messages. Blocking;
  * each call on the session's own thread.
  */
private[postgres] object PgBorrowing:

  private def notPgjdbc(name: String) =
    new IllegalArgumentException(
      s"$name hands out connections that are not PostgreSQL's pgjdbc ones (org.postgresql): weir needs them to listen and to cancel statements"
    )

  /** Throws the `IllegalArgumentException` of [[PgSession.borrowed]] when a connection borrowed
    * from `pool` is not pgjdbc's underneath; nothing when it is, or when none can be borrowed now.
    * Blocking.
    */
  def check(pool: javax.sql.DataSource): Unit =
    val name = s"the application's pool (${pool.getClass.getName})"
    val c =
      try Some(pool.getConnection)
      catch case _: SQLException => None
    c.foreach { c =>
      try if !c.isWrapperFor(classOf[PGConnection]) then throw notPgjdbc(name)
      finally c.close()
    }

  // Borrowed, checked to be pgjdbc's underneath, in autocommit, renamed; the previous name.
  def borrow(pool: javax.sql.DataSource, name: String, application: String) =
    val c =
      try pool.getConnection
      catch
        case e: SQLException =>
          throw ApplyError.ConnectFailed(name, Option(e.getMessage).getOrElse(e.toString))
    try
      if !c.isWrapperFor(classOf[PGConnection]) then throw notPgjdbc(name)
      if !c.getAutoCommit then c.setAutoCommit(true)
      val before = Option(c.getClientInfo("ApplicationName"))
      c.setClientInfo("ApplicationName", application)
      (c, before)
    catch
      case e: Throwable =>
        try c.close()
        catch case _: Throwable => ()
        e match
          case f: ApplyError.ConnectFailed => throw f
          case f: IllegalArgumentException => throw f
          case other =>
            throw ApplyError.ConnectFailed(name, Option(other.getMessage).getOrElse(other.toString))

  def giveBack(c: Connection, before: Option[String]): Unit =
    try
      if !c.isClosed then
        val s = c.createStatement()
        try s.execute("UNLISTEN *")
        finally s.close()
        c.setClientInfo("ApplicationName", before.getOrElse(""))
    catch case _: Throwable => ()
    finally c.close()

  // What a borrowed connection is connected to, for messages: from its metadata when it says.
  def pooledTarget(c: Connection): PgTarget =
    val meta = c.getMetaData
    PgTarget
      .parse(Some(meta.getURL.takeWhile(_ != '?')), Map("PGUSER" -> meta.getUserName))
      .getOrElse(
        PgTarget.parse(Some("postgresql://pool@pool/pool"), Map.empty).toOption.get
      )
