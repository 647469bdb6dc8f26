package weir.cli.common

import weir.runtime.RuntimePreset
import weir.runtime.RuntimePreset.{Fixed, Virtual, WorkStealing}

/** How the command line writes a [[RuntimePreset]] (`--runtime`): `wsp`, `fixed:N` or `virtual`.
  * Pure, except that [[parseRunnable]] asks this JVM whether the preset can run here.
  */
object RuntimeSyntax:

  /** Allowed values, for help texts and error messages. */
  val syntax: String = "wsp | fixed:N (N >= 1) | virtual"

  extension (preset: RuntimePreset)
    /** The name used on the command line and in reports: `wsp`, `fixed:N` or `virtual`. */
    def label: String = preset match
      case WorkStealing => "wsp"
      case Fixed(n)     => s"fixed:$n"
      case Virtual      => "virtual"

  /** Parses `wsp`, `fixed:N` or `virtual`; `Left` says what is allowed. */
  def parse(text: String): Either[String, RuntimePreset] = text.trim.toLowerCase match
    case "wsp" | "work-stealing" => Right(WorkStealing)
    case "virtual" | "vt"        => Right(Virtual)
    case fixed if fixed.startsWith("fixed:") =>
      fixed.stripPrefix("fixed:").toIntOption.filter(_ > 0) match
        case Some(n) => Right(Fixed(n))
        case None =>
          Left(s"runtime '$text': the thread count after 'fixed:' must be a positive integer")
    case _ => Left(s"runtime '$text' is not one of: $syntax")

  /** [[parse]], then `Left` with the reason when the preset cannot run on this JVM (virtual threads
    * before JDK 21 or with tracing on): for a command that runs it here, so that it refuses at
    * once, before anything ran.
    */
  def parseRunnable(text: String): Either[String, RuntimePreset] =
    parse(text).flatMap {
      case Virtual =>
        RuntimePreset.virtualThreadsAvailable
          .map(_ => Virtual)
          .left
          .map(unavailable => advised(unavailable.reason, RuntimePreset.javaFeatureVersion))
      case other => Right(other)
    }

  /** The library's reason why virtual threads cannot run, with where a newer JDK comes from when
    * `javaVersion` is too old.
    */
  private[common] def advised(reason: String, javaVersion: Int): String =
    if javaVersion < RuntimePreset.virtualThreadsSince then
      s"${reason.stripSuffix(".")} (./sbt and ./weir pick one when installed)."
    else reason
