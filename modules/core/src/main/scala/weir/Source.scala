package weir

import cats.effect.Concurrent
import fs2.Stream

/** Where tasks come from: one or more partitions, each the stream of one producer.
  *
  * A partition's chunks are the batches its producer yields: a strategy that works batch by batch
  * (for example the seed's `batch-io`, `weir.lab.strategy.BatchIo`) pulls one chunk at a time, and
  * nothing is produced before a strategy pulls it, so a slow producer is only as far ahead as the
  * strategy lets it be.
  *
  * Partitions are independent: a strategy may run them one after another ([[Source.sequential]]) or
  * at the same time ([[Source.concurrent]]). An error raised by a partition fails the strategy that
  * pulls it; cancelling the strategy stops every partition.
  */
final class Source[F[_], A] private (val partitions: Vector[Stream[F, A]]):

  /** How many partitions, hence how many producers can run at once. */
  def producers: Int = partitions.size

  /** Every partition in order, one after another: the view of a single producer. */
  def sequential: Stream[F, A] = partitions.reduce(_ ++ _)

  /** Every partition running at once, their elements merged as they arrive (order across partitions
    * is not kept). Fails when any partition fails; cancelling it stops them all.
    */
  def concurrent(using Concurrent[F]): Stream[F, A] =
    if producers == 1 then partitions.head
    else Stream.emits(partitions).covary[F].parJoin(producers)

  /** The same partitions, each passed through `f` (as many producers as before). */
  private[weir] def mapPartitions[B](f: Stream[F, A] => Stream[F, B]): Source[F, B] =
    new Source(partitions.map(f))

object Source:

  /** A source of one producer. */
  def single[F[_], A](stream: Stream[F, A]): Source[F, A] = new Source(Vector(stream))

  /** A source of several producers that may run concurrently; at least one is required. */
  def partitioned[F[_], A](first: Stream[F, A], rest: Stream[F, A]*): Source[F, A] =
    new Source(first +: rest.toVector)

  /** A source from a non-empty list of partitions; `Left(ConfigError.Invalid)` when it is empty. */
  def fromPartitions[F[_], A](partitions: Seq[Stream[F, A]]): Either[ConfigError, Source[F, A]] =
    if partitions.isEmpty then Left(ConfigError.Invalid("source", "needs at least one partition"))
    else Right(new Source(partitions.toVector))
