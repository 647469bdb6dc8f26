package weir.stream

import cats.effect.kernel.Concurrent
import cats.effect.std.Queue
import cats.syntax.all.*
import fs2.{Pipe, Pull, Stream}
import scala.compiletime.{codeOf, error, requireConst}
import weir.ConfigError

/** Runs a stream ahead of its consumer: a background fiber pulls the upstream into a bounded buffer
  * while the consumer works on the elements it already has (seed 003's "force a stream
  * concurrently": parse the next SQL statement while PostgreSQL applies this one).
  *
  * The elements come out exactly as without it, in order. The upstream's result, or its error, is
  * delivered in order too: an error raised after `k` elements reaches the consumer only after it
  * has received those `k` elements ([[fs2.Stream.prefetchN]] runs the upstream under
  * `concurrently`, which raises an upstream error in the consumer at once, dropping elements still
  * buffered).
  *
  * '''How far ahead.''' `Prefetch(n)` buffers up to `n` elements; the fiber then holds one more
  * while it waits for room. So the upstream's effects run up to `n + 1` elements ahead of what the
  * consumer has received (for a stream of one element per effect, such as `repeatEval`; a chunk's
  * elements are made by one effect, so a chunk of `k` runs ahead as a whole). `n = 0` is a
  * hand-off: the next element is made while the consumer works on this one.
  *
  * '''The caveat (seed 003's "launch missiles").''' Effects that run ahead are not undone:
  * `Stream.repeatEval(launchMissile).through(Prefetch(3)).take(2)` launches up to five missiles,
  * not two; effects that must keep their timing (rate limits, `sleep`s between calls) or that
  * interleave with the consumer's own effects (both writing to one file) change order or timing.
  * Use it on upstreams whose effects are reads and pure work, like parsing a file.
  *
  * '''Cancellation.''' When the consumer stops pulling (`take`, an error downstream, cancellation),
  * the background fiber is cancelled and the upstream's finalizers run before the returned stream
  * completes; no fiber outlives it.
  *
  * Costs one queue hand-off per element: meant for coarse elements (statements, 256 KB chunks). For
  * millions of tiny elements prefetch chunks instead (`chunks`, then this, then `unchunks`).
  */
object Prefetch:

  /** How many elements [[Prefetch]] buffers: an `Int` of zero or more (0: a hand-off). A `Depth` is
    * an `Int` wherever one is expected; making one checks it.
    */
  opaque type Depth <: Int = Int

  object Depth:

    /** `n` as a depth; `Left(ConfigError.Negative)` when `n < 0`. */
    def from(n: Int): Either[ConfigError, Depth] =
      if n >= 0 then Right(n) else Left(ConfigError.Negative("prefetch", n.toString))

    /** The literal `n`, checked at compile time: it must be a constant of zero or more. */
    inline def apply(inline n: Int): Depth =
      requireConst(n)
      inline if n >= 0 then n else error("prefetch must not be negative, got " + codeOf(n))

  /** The pipe that runs its input up to `n + 1` elements ahead (see [[Prefetch]]). */
  def apply[F[_]: Concurrent, A](n: Depth): Pipe[F, A, A] =
    upstream =>
      Stream.eval(Queue.bounded[F, Item[A]](n)).flatMap { buffer =>
        val produce: F[Unit] = upstream
          .foreach(a => buffer.offer(Item.Next(a)))
          .compile
          .drain
          .attempt
          .flatMap {
            case Right(())   => buffer.offer(Item.Done)
            case Left(error) => buffer.offer(Item.Failed(error))
          }
        def deliver: Pull[F, A, Unit] = Pull.eval(buffer.take).flatMap {
          case Item.Next(a)       => Pull.output1(a) >> deliver
          case Item.Done          => Pull.done
          case Item.Failed(error) => Pull.raiseError[F](error)
        }
        // `produce` never fails (errors travel through the buffer), so `concurrently` is used only
        // for its lifecycle: the fiber is started with the consumer and cancelled when it stops.
        deliver.stream.concurrently(Stream.exec(produce))
      }

  private enum Item[+A]:
    case Next(a: A)
    case Done
    case Failed(error: Throwable)
