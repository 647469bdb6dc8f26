package weir.lab.strategy

import cats.effect.Async
import cats.effect.implicits.*
import cats.syntax.all.*
import weir.{Limits, Source}
import weir.strategy.Strategy

/** Seed approach 1: pull one batch, run all its handlers at once, wait for every one of them, then
  * pull the next batch. Producing and consuming never overlap, and the batch size, not
  * `limits.concurrency`, bounds the calls in flight.
  */
object BatchIo extends Strategy:
  val name = "batch-io"
  val summary = "one batch at a time, its handlers all in parallel (seed)"

  def run[F[_]: Async, A](source: Source[F, A], limits: Limits)(handler: A => F[Unit]): F[Unit] =
    source.sequential.chunks.evalMap(_.parTraverse_(handler)).compile.drain
