package weir.cli.applysql

import cats.effect.{IO, Resource}
import cats.syntax.all.*
import scala.concurrent.duration.*
import weir.Durations
import weir.cli.common.AppliedText.plural
import weir.cli.common.StatusLine
import weir.engine.Snapshot
import weir.postgres.{ApplyRecorder, ApplyRun}

/** The live progress of `weir apply-sql` on stderr: bytes and lines applied, MB/s, the statement
  * being applied (file:line), the ETA from the files' size (none for standard input from a pipe),
  * and the steps the run has applied. On a terminal the line is redrawn every second; otherwise a
  * plain line every five seconds. psql's `\echo` lines print on stderr, above it. Reads the apply's
  * run alone: its snapshots (the clock, the steps) and its recorder (the rest).
  */
object ApplySqlView:

  /** Draws while in use; on release, clears the line (the summary follows on stdout). The files'
    * `\echo` lines go to stderr as they are reached (within [[echoEvery]]), above the line, even
    * without it (`enabled` false); the last ones on release.
    */
  def resource(applying: ApplyRun[IO], enabled: Boolean): Resource[IO, Unit] =
    val echoes = IO.defer(applying.progress.echoed().traverse_(StatusLine.warn))
    val saying = Resource.make((IO.sleep(echoEvery) >> echoes).foreverM.start)(_.cancel >> echoes)
    saying >> StatusLine.resource(
      applying.run.snapshots(StatusLine.every).map(line(applying.progress, _)),
      enabled
    )

  /** How often the `\echo` lines reached are printed. */
  private val echoEvery = 100.millis

  private def line(p: ApplyRecorder, s: Snapshot): String =
    val seconds = math.max(1e-9, s.elapsed.toNanos / 1e9)
    val mbPerSecond = p.bytes / 1e6 / seconds
    val total = p.total
    val fraction = if total > 0 then math.min(1.0, p.bytes.toDouble / total) else 0.0
    val width = 20
    val bar = "#" * (fraction * width).toInt + "." * (width - (fraction * width).toInt)
    val eta =
      if p.bytes > 0 && total > p.bytes then
        Durations.show(((total - p.bytes) / (p.bytes / seconds)).seconds)
      else "-"
    val at = p.at.fold("")(a => s"  at ${a.showLine}")
    // Standard input from a pipe has no size: what was read, with no bar or ETA.
    val read =
      if total > 0 then
        f"[$bar] ${fraction * 100}%5.1f%%  ${p.bytes / 1e6}%,.1f/${total / 1e6}%,.1f MB"
      else f"${p.bytes / 1e6}%,.1f MB read"
    val left = if total > 0 then s"  ETA $eta" else ""
    f"$read  ${p.lines}%,d lines  $mbPerSecond%,.1f MB/s  ${p.statements}%,d ${plural(p.statements, "statement")}  ${p.copyRows}%,d rows$at$left  (${s.succeeded}%,d pieces)"
