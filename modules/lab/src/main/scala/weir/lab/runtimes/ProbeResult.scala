package weir.lab.runtimes

import scala.util.Try

/** What one forked probe JVM measured, and how it travels back: one tab-separated line on the
  * child's stdout, starting with [[ProbeResult.marker]].
  *
  * A probe runs the same burst several times in its JVM ([[Probe]]): the first, cold, burst
  * ([[coldMillis]]); warm-up bursts until the plan's warm-up calls are made; then the timed bursts
  * ([[roundsMillis]]).
  *
  * @param coldMillis
  *   the first burst in the fresh JVM (none when it did not complete)
  * @param roundsMillis
  *   each timed burst, from the first fiber's start to the last one's end, in order; the last one
  *   is until the watchdog gave up when the outcome is `Deadlocked`
  * @param warmUpRounds
  *   bursts run between the cold one and the timed ones
  * @param states
  *   platform threads alive at the end, by `Thread.State` (virtual threads are not listed by the
  *   JVM and not counted)
  * @param peakThreads
  *   the JVM's peak live platform-thread count (`ThreadMXBean.getPeakThreadCount`)
  * @param peakRssKb
  *   the process's peak resident set size (`VmHWM` in /proc/self/status); None off Linux
  */
final case class ProbeResult(
    outcome: ProbeResult.Outcome,
    coldMillis: Option[Double],
    roundsMillis: List[Double],
    warmUpRounds: Int,
    states: Map[String, Int],
    peakThreads: Int,
    peakRssKb: Option[Long]
):
  def completed: Boolean = outcome == ProbeResult.Outcome.Completed

  /** The median timed burst (the mean of the middle two for an even count), when it completed. */
  def millis: Option[Double] =
    if !completed || roundsMillis.isEmpty then None
    else
      val s = roundsMillis.sorted.toVector
      val n = s.size
      Some(if n % 2 == 1 then s(n / 2) else (s(n / 2 - 1) + s(n / 2)) / 2)

  def encode: String =
    val stateText = states.toList.sorted.map((k, v) => s"$k:$v").mkString(",")
    List(
      ProbeResult.marker,
      outcome.encode,
      coldMillis.fold("-")(_.toString),
      roundsMillis.mkString(","),
      warmUpRounds.toString,
      stateText,
      peakThreads.toString,
      peakRssKb.fold("-")(_.toString)
    ).mkString("\t")

object ProbeResult:
  val marker = "weir-probe"

  enum Outcome:
    case Completed
    case Deadlocked
    case Failed(message: String)
    case Skipped(reason: String)

    def encode: String = this match
      case Completed       => "completed"
      case Deadlocked      => "deadlocked"
      case Failed(message) => "failed:" + message.replaceAll("[\t\r\n]+", " ")
      case Skipped(reason) => "skipped:" + reason.replaceAll("[\t\r\n]+", " ")

    def describe: String = this match
      case Completed       => "completed"
      case Deadlocked      => "deadlocked"
      case Failed(message) => s"failed: $message"
      case Skipped(reason) => s"skipped: $reason"

  /** A result for a run that did not measure anything. */
  def nothing(outcome: Outcome): ProbeResult =
    ProbeResult(outcome, None, Nil, 0, Map.empty, 0, None)

  /** The result in a line of the child's stdout, if the line is one. */
  def decode(line: String): Option[ProbeResult] =
    line.split("\t", -1).toList match
      case `marker` :: outcome :: cold :: rounds :: warm :: states :: peak :: rss :: Nil =>
        for
          o <- decodeOutcome(outcome)
          rs <- Try(rounds.split(",").toList.filter(_.nonEmpty).map(_.toDouble)).toOption
          w <- warm.toIntOption
          st <- decodeStates(states)
          p <- peak.toIntOption
        yield ProbeResult(o, cold.toDoubleOption, rs, w, st, p, rss.toLongOption)
      case _ => None

  private def decodeOutcome(text: String): Option[Outcome] = text match
    case "completed"  => Some(Outcome.Completed)
    case "deadlocked" => Some(Outcome.Deadlocked)
    case failed if failed.startsWith("failed:") =>
      Some(Outcome.Failed(failed.stripPrefix("failed:")))
    case skipped if skipped.startsWith("skipped:") =>
      Some(Outcome.Skipped(skipped.stripPrefix("skipped:")))
    case _ => None

  private def decodeStates(text: String): Option[Map[String, Int]] =
    if text.isEmpty then Some(Map.empty)
    else
      Try(
        text
          .split(",")
          .toList
          .map { pair =>
            val Array(state, count) = pair.split(":")
            state -> count.toInt
          }
          .toMap
      ).toOption
