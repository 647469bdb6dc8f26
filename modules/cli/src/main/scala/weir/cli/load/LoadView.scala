package weir.cli.load

import cats.effect.{IO, Ref, Resource}
import scala.concurrent.duration.*
import weir.cli.common.Console
import weir.Durations
import weir.http.{ErrorClass, LoadRecorder, LoadRun}

/** The live view of `weir load`, on stderr: a progress bar with done/total, current and average
  * req/s, requests in flight, p50/p99 of the last second, errors by class and the ETA.
  *
  * On a terminal the line is redrawn in place every second (colour unless NO_COLOR is set);
  * otherwise a plain line is printed every five seconds. While the client warms up (before the
  * load), the line says so; rates and the ETA count from the load's start ([[LoadRun.startedAt]]).
  * Reads the run's recorder only.
  */
object LoadView:

  private final case class Tick(at: FiniteDuration, finished: Long)

  /** Draws while in use; on release, clears the line (the report follows on stdout). */
  def resource(run: LoadRun[IO], planned: Option[Long], enabled: Boolean): Resource[IO, Unit] =
    if !enabled then Resource.unit
    else
      val every = if Console.interactive then 1.second else 5.seconds
      val erase = "\r\u001b[2K" // back to the line's start, and clear it
      val show = (text: String) =>
        if Console.interactive then IO.blocking(System.err.print(erase + text))
        else Console.error(text)
      val clear = if Console.interactive then IO.blocking(System.err.print(erase)) else IO.unit
      val warming =
        f"warming up the client: ${run.config.warmUp}%,d requests to weir's own server (--warm-up 0 skips this)"
      for
        now <- Resource.eval(IO.monotonic)
        last <- Resource.eval(Ref.of[IO, Tick](Tick(now, 0)))
        draw = IO.sleep(every) >> IO.monotonic.flatMap { now =>
          if run.warmingUp then show(warming)
          else
            run.startedAt.fold(IO.unit) { start =>
              val s = run.recorder.snapshot
              last.getAndSet(Tick(now, s.finished)).flatMap { prev =>
                // The rate since the previous line, or since the load's start if that is later.
                val since = if prev.at < start then start else prev.at
                val current =
                  (s.finished - prev.finished) * 1e9 / math.max(1L, (now - since).toNanos)
                show(line(s, planned, now - start, current))
              }
            }
        }
        _ <- Resource.make(draw.foreverM.void.start)(fiber => fiber.cancel >> clear)
      yield ()

  private def line(
      s: LoadRecorder.Snapshot,
      planned: Option[Long],
      elapsed: FiniteDuration,
      current: Double
  ): String =
    val seconds = math.max(1e-9, elapsed.toNanos / 1e9)
    val average = s.finished / seconds
    val progress = planned match
      case Some(total) =>
        val fraction = math.min(1.0, s.finished.toDouble / total)
        val width = 24
        val filled = (fraction * width).toInt
        val eta =
          if average > 0 then Durations.show(((total - s.finished) / average).seconds) else "?"
        f"[${"#" * filled}${"." * (width - filled)}] ${s.finished}%,d/$total%,d ${fraction * 100}%5.1f%%  ETA $eta"
      case None => f"${s.finished}%,d done"
    val errors =
      if s.errors.isEmpty then "errors 0"
      else
        ErrorClass.values.toList
          .flatMap(e => s.errors.get(e).map(k => s"${e.label} $k"))
          .mkString("errors: ", ", ", "")
    val painted =
      if Console.colour && s.errors.nonEmpty then s"\u001b[31m$errors\u001b[0m" else errors
    val latency =
      s"p50 ${Durations.showNanos(s.recent.p50.toDouble)} p99 ${Durations.showNanos(s.recent.p99.toDouble)}"
    f"$progress  $current%,.0f req/s (avg $average%,.0f)  in flight ${s.inFlight}%,d  $latency  $painted"
