package weir.engine

import cats.effect.kernel.{Ref, Temporal}
import cats.syntax.all.*
import scala.concurrent.duration.*

/** The running side of a [[RateLimit]]: hands out start times no closer than the limit allows.
  *
  * A generic cell-rate algorithm on one `Ref`: `due` is when the next token is due, so waiting
  * callers are served in the order they asked, each at an exact instant (no polling, no drift).
  * Safe under any number of concurrent callers. A caller cancelled while it waits gives its token
  * up (the time it reserved passes unused); the limit is never exceeded.
  */
private[weir] final class TokenBucket[F[_]] private (limit: RateLimit, due: Ref[F, Option[Long]])(
    using F: Temporal[F]
):
  private val interval = limit.intervalNanos
  private val tolerance = (limit.burst - 1).toLong * interval

  /** Waits until a token is free, then takes it. */
  def acquire: F[Unit] =
    F.monotonic.flatMap { now0 =>
      val now = now0.toNanos
      due
        .modify { next =>
          // The theoretical arrival time: a bucket idle for long is full, not in credit.
          val tat = math.max(next.getOrElse(now), now)
          val startAt = math.max(now, tat - tolerance)
          (Some(tat + interval), startAt - now)
        }
        .flatMap(wait => if wait > 0 then F.sleep(wait.nanos) else F.unit)
    }

private[weir] object TokenBucket:

  /** A full bucket for `limit`. */
  def create[F[_]: Temporal](limit: RateLimit): F[TokenBucket[F]] =
    Ref.of[F, Option[Long]](None).map(new TokenBucket(limit, _))
