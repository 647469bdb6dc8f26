package weir.cli.queue

import com.monovore.decline.Command
import munit.FunSuite
import weir.postgres.queue.{WorkerEvent, WorkerLog}

/** `weir worker --log LEVEL`: the option's levels, and the one line [[StderrLogger]] prints for a
  * [[WorkerLog]] entry (context sorted, values quoted when they must be, the error in one line).
  */
class StderrLoggerSuite extends FunSuite:

  private val worker = Command("worker", "")(WorkerOptions.opts(Map("PGHOST" -> "127.0.0.1")))

  test("--log takes warn, info, debug or trace (any case); nothing by default") {
    val parse = (args: List[String]) => worker.parse("--sleep" :: "0" :: args)
    assertEquals(parse(List("--log", "INFO")).map(_.log), Right(Some(WorkerLog.Level.Info)))
    assertEquals(parse(List("--log", "trace")).map(_.log), Right(Some(WorkerLog.Level.Trace)))
    assertEquals(parse(Nil).map(_.log), Right(None))
    assertEquals(
      parse(List("--log", "loud")).left.map(_.errors),
      Left(List("--log: 'loud' is not one of warn, info, debug, trace"))
    )
  }

  test(
    "a line: level, message, the context sorted and quoted where needed, the error's first line"
  ) {
    val error = new java.sql.SQLException("canceling statement due to lock timeout\nWhere: ...")
    val entry = WorkerLog.entry(
      "vm:1 \"a\"",
      WorkerEvent.UpkeepError(weir.postgres.queue.UpkeepPart.Claim, error, 2)
    )
    assertEquals(
      StderrLogger.line("warn", entry.message, entry.context, entry.error),
      """weir worker: warn statement failed, trying again attempt=2 part=claim worker="vm:1 \"a\"" error="SQLException: canceling statement due to lock timeout""""
    )
    assertEquals(
      StderrLogger.line("info", "x", Map("reason" -> ""), None),
      """weir worker: info x reason="""""
    )
  }
