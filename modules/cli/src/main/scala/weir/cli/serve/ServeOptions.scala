package weir.cli.serve

import cats.syntax.all.*
import com.monovore.decline.Opts
import java.lang.management.ManagementFactory
import weir.cli.common.Args
import weir.http.{Delay, Faults, ServerConfig}

/** The options of `weir serve`, turned into a [[ServerConfig]]. */
object ServeOptions:

  private val host = Opts
    .option[String]("host", "Address to listen on. Default: 127.0.0.1.")
    .withDefault("127.0.0.1")
  private val port = Opts
    .option[Int]("port", "Port to listen on (0: any free port). Default: 8000.")
    .withDefault(8000)
    .mapValidated(p =>
      if p >= 0 && p <= 65535 then p.validNel else s"--port must be in 0..65535, got $p".invalidNel
    )
  private val delay = Opts
    .option[String](
      "delay",
      s"Delay before each answer: ${Delay.syntax}. Default: 0..3s (mean 1.5 s).",
      metavar = "DIST"
    )
    .withDefault("0..3s")
    .mapValidated(t => Delay.parse(t).leftMap(msg => s"--delay: $msg").toValidatedNel)
  private val seed = Opts
    .option[Long](
      "seed",
      "Seed of the delays and faults (request i always gets the same). Default: 1."
    )
    .withDefault(1L)
  private def fraction(name: String, what: String) = Opts
    .option[Double](
      name,
      s"Fraction of requests that $what (0..1). Default: 0.",
      metavar = "FRACTION"
    )
    .withDefault(0.0)
    .mapValidated(f =>
      if f >= 0 && f <= 1 then f.validNel else s"--$name must be between 0 and 1, got $f".invalidNel
    )
  private val errors = fraction("errors", "get a 500")
  private val drops = fraction("drops", "get their connection reset, without an answer")
  private val stalls = fraction("stalls", "are never answered")
  private val maxConnections = Opts
    .option[Int](
      "max-connections",
      "Close connections beyond this many at once, so that descriptors never run out. Default: the open-file limit minus 256."
    )
    .mapValidated(n =>
      if n > 0 then n.validNel else s"--max-connections must be positive, got $n".invalidNel
    )
    .orNone
  private val threads =
    Args.positiveInt("threads", "Event loop threads.", Runtime.getRuntime.availableProcessors)

  val opts: Opts[ServerConfig] =
    (host, port, delay, seed, (errors, drops, stalls).tupled, threads, maxConnections).tupled
      .mapValidated { case (h, p, d, s, (e, dr, st), t, max) =>
        Faults.of(e, dr, st).leftMap(msg => s"--errors/--drops/--stalls: $msg").toValidatedNel.map {
          faults =>
            val limit = max.orElse(
              openFileLimit.map(n => math.max(1L, math.min(n - 256, Int.MaxValue.toLong)).toInt)
            )
            val config = ServerConfig.default
              .withHost(h)
              .withPort(p)
              .withDelay(d)
              .withSeed(s)
              .withFaults(faults)
              .withThreads(t)
            limit.fold(config)(config.withMaxConnections)
        }
      }

  def describeFaults(config: ServerConfig): String =
    val f = config.faults
    if f.none then "" else s", faults: ${f.errors} errors, ${f.drops} drops, ${f.stalls} stalls"

  /** The process's open-file limit, when the JVM can tell. */
  def openFileLimit: Option[Long] = ManagementFactory.getOperatingSystemMXBean match
    case unix: com.sun.management.UnixOperatingSystemMXBean => Some(unix.getMaxFileDescriptorCount)
    case _                                                  => None
