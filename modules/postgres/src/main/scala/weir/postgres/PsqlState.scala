package weir.postgres

import cats.effect.{Concurrent, Ref}
import cats.effect.std.Queue
import cats.syntax.all.*

/** psql's client-side state of one apply, shared by its source and its handler: the [[PsqlScript]]
  * (variables, open `\if` blocks) the source reads the files with, and the hand-over of what only
  * the server can say. The source, having given out a statement that `\gset` ends, or a `\connect`,
  * waits ([[awaitAnswer]]) until the handler has applied it and set the variables it sets
  * ([[gset]], [[connected]]), so that the lines after it read them, as in psql, and so does a line
  * that reads the last statement's result ([[results]], [[PsqlResults]]); the source runs ahead of
  * the server everywhere else. Every answer sets the variables for the last statement applied, if
  * any (`rowCount`).
  *
  * '''Concurrency.''' One source and one handler, the handler one step at a time: at most one
  * answer is awaited at once. '''Errors and cancellation.''' A `\gset` or `\connect` that fails
  * fails the apply, and the run cancels its source, waiting or not.
  */
private[postgres] final class PsqlState[F[_]: Concurrent] private (
    val script: Ref[F, PsqlScript],
    answers: Queue[F, Unit]
):

  /** Sets the variables `assigned` names (its statement's one row), then lets the waiting source go
    * on.
    */
  def gset(assigned: PsqlGset.Assigned, results: Map[String, String]): F[Unit] =
    answer(vars => assigned.applyTo(vars) ++ results)

  /** psql's variables for the connection a `\connect` opened ([[PsqlVariables.connection]]) are
    * set; then the waiting source goes on.
    */
  def connected(vars: Map[String, String], results: Map[String, String]): F[Unit] =
    answer(_ ++ vars ++ results)

  /** Sets `results` ([[PsqlResults.after]]), then lets the source waiting at a
    * [[SqlPiece.Results]], or at a `\gset` whose statement failed and was gone past, go on.
    */
  def results(results: Map[String, String]): F[Unit] = answer(_ ++ results)

  private def answer(change: Map[String, String] => Map[String, String]) =
    script.update(s => s.copy(vars = change(s.vars), fresh = true)) >> answers.offer(())

  /** Waits until the handler has applied the `\gset` statement or the `\connect` just given out and
    * set their variables.
    */
  def awaitAnswer: F[Unit] = answers.take

private[postgres] object PsqlState:

  /** A session's start, with `vars`: those of `psql -v` ([[ApplySettings.withVariables]]), then
    * psql's own for the connection ([[PsqlVariables.connection]]).
    */
  def create[F[_]: Concurrent](vars: Map[String, String]): F[PsqlState[F]] =
    (Ref.of[F, PsqlScript](PsqlScript.start(vars)), Queue.unbounded[F, Unit])
      .mapN(new PsqlState(_, _))
