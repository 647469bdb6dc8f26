package weir.postgres.queue.otel

import cats.data.NonEmptyList
import cats.effect.{Async, Resource}
import cats.effect.syntax.all.*
import cats.syntax.all.*
import io.opentelemetry.api.common.Attributes
import io.opentelemetry.api.metrics.Meter
import java.util.concurrent.ConcurrentHashMap
import weir.PositiveDuration
import weir.postgres.PgSession
import weir.postgres.queue.QueueAdmin

/** The depth of queues (their jobs due and waiting to be claimed, [[QueueAdmin.depth]]) as the
  * OpenTelemetry observable gauge `weir.queue.depth` (unit `{job}`, attribute `queue`), read on a
  * connection of its own every `every`.
  *
  * Not from the worker: no worker event says how many jobs wait (a claim sees only the jobs it
  * takes), and a statement cannot run in the SDK's collection callback (it is synchronous, on the
  * reader's thread, and would block it on the database). So a fiber reads the depths, one indexed
  * count per queue, and the callback reports the last ones read.
  */
object OtelQueueDepth:

  /** Reads the depth of each of `queues` on a session of `connect` every `every` (the first read at
    * once), from the moment the resource is acquired until it is released, and reports the last
    * depths read as `weir.queue.depth` on `meter` (nothing before the first read).
    *
    * '''Concurrency.''' One fiber reads, on the one session it opened (used by nothing else); the
    * SDK's reader calls the gauge's callback on its own thread, which only reads the last values.
    *
    * '''Errors.''' A read (or the opening of a session) that fails does not end the resource: the
    * session is closed, the gauge reports nothing (a gap in the series, not a stale number), and a
    * new session is opened after `every` (a PostgreSQL restarted is read again once it is back).
    *
    * '''Cancellation.''' Releasing it cancels the reading fiber (a statement in progress cancelled
    * on the server, then its session closed) and closes the gauge's callback.
    */
  def resource[F[_]](
      meter: Meter,
      connect: Resource[F, PgSession[F]],
      queues: NonEmptyList[String],
      every: PositiveDuration
  )(using F: Async[F]): Resource[F, Unit] =
    // queue -> its last depth read; empty after a failed read.
    val depths = new ConcurrentHashMap[String, java.lang.Long]
    val attributes =
      queues.toList.distinct.map(q => q -> Attributes.of(OtelWorkerMetrics.queueKey, q))
    def readAll(session: PgSession[F]): F[Unit] =
      attributes.traverse_((q, _) =>
        QueueAdmin.depth(session, q).flatMap(n => F.delay(depths.put(q, n)).void)
      )
    val session: F[Unit] =
      connect
        .use(s => (readAll(s) >> F.sleep(every)).foreverM[Unit])
        .handleErrorWith(_ => F.delay(depths.clear()) >> F.sleep(every))
    for
      _ <- Resource.fromAutoCloseable(F.delay {
        meter
          .gaugeBuilder("weir.queue.depth")
          .ofLongs()
          .setDescription("Jobs due and waiting to be claimed.")
          .setUnit("{job}")
          .buildWithCallback { m =>
            attributes.foreach { (q, a) =>
              val n = depths.get(q)
              if n != null then m.record(n.longValue, a)
            }
          }
      })
      _ <- session.foreverM[Unit].background
    yield ()
