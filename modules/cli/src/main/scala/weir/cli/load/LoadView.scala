package weir.cli.load

import cats.effect.{IO, Resource}
import scala.concurrent.duration.*
import weir.Durations
import weir.cli.common.{Console, StatusLine}
import weir.engine.Snapshot
import weir.http.LoadRun

/** The live view of `weir load`, on stderr: a progress bar with done/total and the ETA, the rate of
  * the last interval and since the start, requests in flight (and the adaptive limit), p50/p99 of
  * the last interval, and failures by class.
  *
  * It reads the load alone ([[LoadRun.progress]]: while the client warms up, a line that says so;
  * then its run's live statistics, the same [[Snapshot]]s any engine user gets), nothing else. On a
  * terminal the line is redrawn in place every second (colour unless NO_COLOR is set); otherwise a
  * plain line is printed every five seconds.
  */
object LoadView:

  /** Draws while in use; on release, clears the line (the report follows on stdout). */
  def resource(run: LoadRun[IO], planned: Option[Long], enabled: Boolean): Resource[IO, Unit] =
    val warming =
      f"warming up the client: ${run.config.warmUp}%,d requests to weir's own server (--warm-up 0 skips this)"
    val lines = run.progress(StatusLine.every).map {
      case LoadRun.Progress.WarmingUp  => warming
      case LoadRun.Progress.Loading(s) => line(s, planned)
    }
    StatusLine.resource(lines, enabled)

  private[load] def line(s: Snapshot, planned: Option[Long]): String =
    val seconds = math.max(1e-9, s.elapsed.toNanos / 1e9)
    val average = s.ended / seconds
    val progress = planned match
      case Some(total) =>
        val fraction = math.min(1.0, s.ended.toDouble / total)
        val width = 24
        val filled = (fraction * width).toInt
        val eta =
          if average > 0 then Durations.show(((total - s.ended) / average).seconds) else "?"
        f"[${"#" * filled}${"." * (width - filled)}] ${s.ended}%,d/$total%,d ${fraction * 100}%5.1f%%  ETA $eta"
      case None => f"${s.ended}%,d done"
    val failures = s.failed.filter((_, n) => n > 0)
    val errors =
      if failures.isEmpty then "errors 0"
      else
        failures.toList
          .map((k, n) => (k.label, n))
          .sorted
          .map((k, n) => f"$k $n%,d")
          .mkString("errors: ", ", ", "")
    val painted =
      if Console.colour && failures.nonEmpty then s"\u001b[31m$errors\u001b[0m" else errors
    val latency = s.recentLatency
    val p = s"p50 ${Durations.show(latency.p50)} p99 ${Durations.show(latency.p99)}"
    val retried = if s.retried > 0 then f"  retried ${s.retried}%,d" else ""
    f"$progress  ${s.ratePerSecond}%,.0f req/s (avg $average%,.0f)  in flight ${s.inFlight}%,d/${s.concurrencyLimit}%,d  $p  $painted$retried"
