package weir.postgres.queue

import java.sql.{Connection, SQLWarning}
import scala.util.matching.Regex

/** The plans PostgreSQL really ran for one call of a queue function, read from `auto_explain`
  * (loaded on the probing connection, every nested statement logged to the client as JSON): the
  * call runs inside a transaction that is rolled back, so the database is left as it was.
  */
object PlanProbe:

  /** One statement's plan as it ran: its text, every node type, every index read, and the buffers
    * it touched (shared blocks hit or read, children included).
    */
  final case class Plan(query: String, nodes: List[String], indexes: Set[String], blocks: Long):
    override def toString: String =
      s"$blocks blocks, indexes ${indexes.toList.sorted.mkString(",")}, nodes ${nodes.mkString(" > ")}"

  /** Prepares `c` to report plans: `auto_explain` (a superuser may load it) logging every nested
    * statement's plan with its buffers (not its timings), as JSON, to the client.
    */
  def install(c: Connection): Unit =
    val s = c.createStatement()
    try
      s.execute("LOAD 'auto_explain'")
      s.execute("SET auto_explain.log_min_duration = 0")
      s.execute("SET auto_explain.log_nested_statements = on")
      s.execute("SET auto_explain.log_format = json")
      s.execute("SET auto_explain.log_analyze = on")
      s.execute("SET auto_explain.log_buffers = on")
      s.execute("SET auto_explain.log_timing = off")
      s.execute("SET client_min_messages = log"): Unit
    finally s.close()

  /** Runs `sql` (with `bind` setting its parameters) and rolls it back; the plans of the statements
    * it ran that read `weir.jobs`.
    */
  def plans(c: Connection, sql: String)(bind: java.sql.PreparedStatement => Unit): List[Plan] =
    c.setAutoCommit(false)
    try
      Jdbc.prepared(c, sql) { s =>
        bind(s)
        s.execute()
        warnings(s.getWarnings).flatMap(parse).filter(_.query.contains("weir.jobs"))
      }
    finally
      c.rollback()
      c.setAutoCommit(true)

  private def warnings(w: SQLWarning): List[String] =
    Iterator.iterate(w)(_.getNextWarning).takeWhile(_ != null).map(_.getMessage).toList

  // Unrolled ("plain characters, then an escape and plain characters, again and again"), with
  // possessive runs: `(?:[^"\\]|\\.)*` recurses once per character in java.util.regex and threw
  // StackOverflowError on a long query text, on a thread whose failure then hung the suite.
  private val queryText: Regex = "\"Query Text\": \"([^\"\\\\]*+(?:\\\\.[^\"\\\\]*+)*+)\"".r
  private val nodeType: Regex = "\"Node Type\": \"([^\"]+)\"".r
  private val indexName: Regex = "\"Index Name\": \"([^\"]+)\"".r
  private val hit: Regex = "\"Shared Hit Blocks\": ([0-9]+)".r
  private val read: Regex = "\"Shared Read Blocks\": ([0-9]+)".r

  private def parse(message: String): Option[Plan] =
    queryText.findFirstMatchIn(message).map { q =>
      Plan(
        q.group(1),
        nodeType.findAllMatchIn(message).map(_.group(1)).toList,
        indexName.findAllMatchIn(message).map(_.group(1)).toSet,
        // The first node is the statement's top one, which counts its children's blocks too.
        List(hit, read).map(_.findFirstMatchIn(message).fold(0L)(_.group(1).toLong)).sum
      )
    }
