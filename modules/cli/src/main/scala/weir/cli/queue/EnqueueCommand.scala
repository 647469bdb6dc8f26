package weir.cli.queue

import cats.effect.{ExitCode, IO, Ref}
import cats.syntax.all.*
import com.monovore.decline.Opts
import fs2.Stream
import fs2.io.file.{Files, Path as FPath}
import io.circe.Json
import java.time.Instant
import scala.concurrent.duration.*
import weir.cli.common.{Console, Exit, Interrupts, StatusLine}
import weir.postgres.PgSession
import weir.postgres.queue.{Enqueue, Enqueued, NewJob}

/** `weir enqueue`: payloads one per line (a file or stdin, streamed) or `--ids A..B`, into the
  * queue by COPY, a batch per statement; with `--unique-key`, one job per statement, each new or
  * finding the key taken (the output names the job holding it). Exit 0 done (a key found taken
  * too), 2 bad input or no database, 1 a failure part way (the batches before it stay), 130
  * interrupted (the batches committed stay).
  */
object EnqueueCommand:

  val opts: Opts[IO[ExitCode]] =
    Opts.subcommand(
      "enqueue",
      """Put jobs in a weir queue on PostgreSQL: payloads one per line from FILE or stdin (streamed; empty lines skipped), or --ids A..B. Jobs go in by COPY, --batch at a time, each batch committed and announced to idle workers with one notification; with --unique-key, one at a time, each saying whether its key was taken and by which job.
        |
        |Examples:
        |  weir enqueue urls.txt --queue fetch
        |  seq 1 1000 | weir enqueue --queue squares
        |  weir enqueue --ids 0..1000000                   a million jobs (payloads 0 .. 999999)
        |  weir enqueue feeds.txt --delay 10m --max-attempts 5
        |  echo '{"to":"a"}' | weir enqueue --queue mail --kind welcome --timeout 30s
        |  echo 42 | weir enqueue --kind report --unique-key report-42 --unique-for 1h""".stripMargin
    )(EnqueueOptions.opts(sys.env).map(run))

  def run(plan: EnqueuePlan): IO[ExitCode] =
    QueueArgs.connected("enqueue", plan.target, plan.schema) { session =>
      val at = plan.delay.map(d => Instant.now.plusMillis(d.toMillis))
      val job = (payload: String) =>
        val j = plan.template.withPayload(payload)
        at.fold(j)(j.withRunAt)
      val payloads: Stream[IO, String] = plan.input match
        case EnqueuePlan.Input.Ids(from, until) =>
          Stream.iterable(from until until).map(_.toString)
        case EnqueuePlan.Input.Lines(file) =>
          val bytes =
            file.fold(fs2.io.stdin[IO](64 * 1024))(p => Files[IO].readAll(FPath.fromNioPath(p)))
          bytes.through(fs2.text.utf8.decode).through(fs2.text.lines).filter(_.nonEmpty)
      for
        count <- Ref.of[IO, Long](0L)
        taken <- Ref.of[IO, Taken](Taken(0L, Vector.empty))
        start <- IO.monotonic
        stop <- IO.deferred[Unit]
        outcome <- Interrupts
          .resource(stop.complete(()).void, stop.complete(()).void)
          .surround(
            view(count, start, plan.live).surround(
              written(session, payloads.map(job), plan, count, taken)
                .interruptWhen(stop.get.attempt)
                .compile
                .drain
                .attempt
            )
          )
        interrupted <- stop.tryGet.map(_.isDefined)
        n <- count.get
        t <- taken.get
        took <- IO.monotonic.map(_ - start)
        _ <- outcome.left.toOption.traverse_(e => QueueArgs.failed("enqueue", e))
        _ <- Console.out(render(plan, n, t, took, interrupted, outcome.left.toOption))
      yield
        if outcome.isLeft then Exit.Failed
        else if interrupted then Exit.Interrupted
        else Exit.Ok
    }

  /** Jobs not enqueued because their unique key was taken, and the ids of the jobs holding it (the
    * first [[Taken.kept]] distinct ones).
    */
  final case class Taken(jobs: Long, holders: Vector[Long]):
    def add(e: Enqueued.Existing): Taken =
      val ids =
        if holders.contains(e.id) || holders.size >= Taken.kept then holders else holders :+ e.id
      Taken(jobs + 1, ids)

  object Taken:
    val kept: Int = 10

  // By COPY in batches (a running total per batch); with a unique key, one job per statement.
  private def written(
      session: PgSession[IO],
      jobs: Stream[IO, NewJob],
      plan: EnqueuePlan,
      count: Ref[IO, Long],
      taken: Ref[IO, Taken]
  ): Stream[IO, Unit] =
    if plan.template.uniqueKey.isEmpty then
      Enqueue.stream(session, jobs, plan.batch, plan.schema).evalMap(count.set)
    else
      jobs.evalMap(j =>
        Enqueue.one(session, j, plan.schema).flatMap {
          case Enqueued.New(_)      => count.update(_ + 1)
          case e: Enqueued.Existing => taken.update(_.add(e))
        }
      )

  private def render(
      plan: EnqueuePlan,
      n: Long,
      taken: Taken,
      took: FiniteDuration,
      interrupted: Boolean,
      error: Option[Throwable]
  ): String =
    val seconds = math.max(1e-9, took.toNanos / 1e9)
    if plan.json then
      Json
        .obj(
          "queue" -> Json.fromString(plan.template.queue),
          "enqueued" -> Json.fromLong(n),
          "seconds" -> Json.fromDoubleOrNull(seconds),
          "jobsPerSecond" -> Json.fromDoubleOrNull(n / seconds),
          "interrupted" -> Json.fromBoolean(interrupted),
          "uniqueKey" -> plan.template.uniqueKey.fold(Json.Null)(Json.fromString),
          "taken" -> Json.fromLong(taken.jobs),
          "heldBy" -> Json.fromValues(taken.holders.map(Json.fromLong)),
          "error" -> error.fold(Json.Null)(e => Json.fromString(String.valueOf(e.getMessage)))
        )
        .spaces2
    else
      val how = if interrupted then " (interrupted; the batches committed stay)" else ""
      val line =
        f"enqueued $n%,d jobs to queue ${plan.template.queue} in $seconds%.2f s (${n / seconds}%,.0f jobs/s)$how"
      (plan.template.uniqueKey, taken.holders) match
        case (Some(key), held) if taken.jobs > 0 =>
          val jobs = if taken.jobs == 1 then "1 job" else f"${taken.jobs}%,d jobs"
          val by = if held.size == 1 then s"job ${held.head}" else s"jobs ${held.mkString(", ")}"
          s"$line\nnot enqueued: $jobs whose unique key '$key' is taken by $by"
        case _ => line

  private def view(count: Ref[IO, Long], start: FiniteDuration, enabled: Boolean) =
    val lines = Stream
      .fixedRate[IO](StatusLine.every)
      .evalMap(_ => (count.get, IO.monotonic).tupled)
      .map { (n, now) =>
        val seconds = math.max(1e-9, (now - start).toNanos / 1e9)
        f"enqueue: $n%,d jobs  ${n / seconds}%,.0f jobs/s"
      }
    StatusLine.resource(lines, enabled)
