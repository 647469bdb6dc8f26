package weir.cli.queue

import cats.syntax.all.*
import com.monovore.decline.Opts
import java.nio.file.{Files, Path, Paths}
import scala.concurrent.duration.FiniteDuration
import weir.{Attempts, PositiveDuration}
import weir.cli.common.Args
import weir.postgres.PgTarget
import weir.postgres.queue.{NewJob, QueueSchemaName}

/** What `weir enqueue` will do, decided before anything connects. */
final case class EnqueuePlan(
    target: PgTarget,
    schema: QueueSchemaName,
    input: EnqueuePlan.Input,
    template: NewJob,
    delay: Option[FiniteDuration],
    batch: Int,
    json: Boolean,
    live: Boolean
)

object EnqueuePlan:
  enum Input:
    /** Payloads one per line from a file, or stdin when `None`. */
    case Lines(file: Option[Path])

    /** Payloads `from`, `from + 1`, ... `until - 1`. */
    case Ids(from: Long, until: Long)

/** The options of `weir enqueue`; every error names its option (exit 2). */
object EnqueueOptions:

  private val file = Opts.argument[String]("FILE").orNone
  private val ids = Opts
    .option[String](
      "ids",
      "Payloads A, A+1, ..., B-1 instead of lines (0..1000000: a million jobs). A benchmark's input.",
      metavar = "A..B"
    )
    .orNone
  private val priority =
    Args
      .int("priority", "Priority of every job: lower runs first (-32768..32767). Default: 0.")
      .withDefault(0)
  private val attempts = Args
    .int(
      "max-attempts",
      s"Attempts each job gets before it is discarded. Default: ${NewJob.defaultMaxAttempts}."
    )
    .withDefault(NewJob.defaultMaxAttempts)
  private val delay =
    Args
      .duration(
        "delay",
        "Schedule the jobs to run this long from now (e.g. 10s, 5m). Default: at once."
      )
      .orNone
  private val timeout =
    Args
      .duration(
        "timeout",
        "Each job's own timeout (e.g. 30s, 5m): a worker interrupts an attempt that runs longer and fails it (retried after its backoff, as any failure). The worker's own --timeout still applies; the shorter wins. Default: none of its own."
      )
      .orNone
  private val uniqueKey =
    Opts
      .option[String](
        "unique-key",
        "A unique key for the job: while a job of the same queue and key is unfinished (available or running), no second one is enqueued, and the output names the job that holds the key (exit 0). Every job of the run gets this key: meant for one payload. Jobs go in one at a time, not by COPY.",
        metavar = "KEY"
      )
      .orNone
  private val uniqueFor =
    Args
      .duration(
        "unique-for",
        "With --unique-key: the key also holds over periods of DURATION aligned to the epoch (e.g. 1h: clock hours in UTC), even once the first job of the period has finished."
      )
      .orNone
  private val batch = Args.positiveInt(
    "batch",
    "Jobs per COPY (each batch commits and notifies the workers once; memory holds one batch).",
    10000
  )

  def opts(env: Map[String, String]): Opts[EnqueuePlan] =
    (
      (QueueArgs.target(env), QueueArgs.schema).tupled,
      file,
      ids,
      QueueArgs.queue,
      QueueArgs.kind,
      priority,
      attempts,
      delay,
      timeout,
      uniqueKey,
      uniqueFor,
      batch,
      QueueArgs.json,
      QueueArgs.noLive
    ).tupled
      .mapValidated {
        case ((target, schema), f, range, queue, kind, p, n, d, t, key, period, b, json, q) =>
          val input = (f, range) match
            case (Some(_), Some(_)) => "give a FILE or --ids, not both".invalidNel
            case (_, Some(r))       => parseIds(r)
            case (Some("-"), None)  => EnqueuePlan.Input.Lines(None).validNel
            case (Some(name), None) =>
              val path = Paths.get(name)
              if !Files.isReadable(path) || Files.isDirectory(path) then
                s"FILE $name: not a readable file".invalidNel
              else EnqueuePlan.Input.Lines(Some(path)).validNel
            case (None, None) => EnqueuePlan.Input.Lines(None).validNel
          val template = NewJob("")
            .withQueue(queue)
            .flatMap(_.withKind(kind))
            .flatMap(_.withPriority(p))
            .leftMap(e => s"--priority: ${e.getMessage}")
            .flatMap(job => Args.named("max-attempts", Attempts.from(n)).map(job.withMaxAttempts))
            .toValidatedNel
          (input, template, own(t), unique(key, period)).mapN { (in, job, timed, keyed) =>
            val withTimeout = timed.fold(job)(job.withTimeout)
            EnqueuePlan(target, schema, in, keyed(withTimeout), d, b, json, !q)
          }
      }

  private def own(timeout: Option[FiniteDuration]) =
    timeout.traverse(d => Args.named("timeout", PositiveDuration.from(d, "timeout")).toValidatedNel)

  // The unique key and its period as a change to the template; --unique-for needs --unique-key.
  private def unique(key: Option[String], period: Option[FiniteDuration]) =
    (key, period) match
      case (None, None) => ((j: NewJob) => j).validNel
      case (None, Some(_)) =>
        "--unique-for needs --unique-key: give the key the period applies to, e.g. --unique-key report-42 --unique-for 1h".invalidNel
      case (Some(k), _) if k.trim.isEmpty =>
        "--unique-key must not be empty: give the key, e.g. --unique-key report-42".invalidNel
      case (Some(k), None) => ((j: NewJob) => j.withUniqueKey(k)).validNel
      case (Some(k), Some(d)) =>
        Args
          .named("unique-for", PositiveDuration.from(d, "unique period"))
          .map(p => (j: NewJob) => j.withUniqueKey(k, p))
          .toValidatedNel

  private def parseIds(text: String) =
    text.split("\\.\\.", -1) match
      case Array(a, b) =>
        (Args.parseLong("ids", a), Args.parseLong("ids", b)).tupled.andThen { (from, until) =>
          if from < 0 || until < from then
            s"--ids: '$text' must be A..B with 0 <= A <= B".invalidNel
          else EnqueuePlan.Input.Ids(from, until).validNel
        }
      case _ => s"--ids: '$text' is not A..B (e.g. 0..1000000)".invalidNel
