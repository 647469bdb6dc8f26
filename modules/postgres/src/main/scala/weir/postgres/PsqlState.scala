package weir.postgres

import cats.effect.{Concurrent, Ref}
import cats.effect.std.Queue
import cats.syntax.all.*

/** psql's client-side state of one apply, shared by its source and its handler: the [[PsqlScript]]
  * (variables, open `\if` blocks) the source reads the files with, and the hand-over of a `\gset`.
  * The source, having given out a statement that `\gset` ends, waits ([[awaitGset]]) until the
  * handler has applied it and set the variables its row holds ([[gset]]), so that the lines after
  * it read them, as in psql; the source runs ahead of the server everywhere else.
  *
  * '''Concurrency.''' One source and one handler, the handler one step at a time: at most one
  * `\gset` is awaited at once. '''Errors and cancellation.''' A `\gset` that fails fails the apply,
  * and the run cancels its source, waiting or not.
  */
private[postgres] final class PsqlState[F[_]: Concurrent] private (
    val script: Ref[F, PsqlScript],
    gsets: Queue[F, Unit]
):

  /** Sets the variables `assigned` names, then lets the waiting source go on. */
  def gset(assigned: PsqlGset.Assigned): F[Unit] =
    script.update(s => s.copy(vars = assigned.applyTo(s.vars))) >> gsets.offer(())

  /** Waits until the handler has applied the statement `\gset` ends and set its variables. */
  def awaitGset: F[Unit] = gsets.take

private[postgres] object PsqlState:

  /** A session's start, with the variables of `psql -v` ([[ApplySettings.withVariables]]). */
  def create[F[_]: Concurrent](vars: Map[String, String]): F[PsqlState[F]] =
    (Ref.of[F, PsqlScript](PsqlScript.start(vars)), Queue.unbounded[F, Unit])
      .mapN(new PsqlState(_, _))
