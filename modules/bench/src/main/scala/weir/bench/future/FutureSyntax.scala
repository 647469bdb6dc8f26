package weir.bench.future

import scala.concurrent.{ExecutionContext, Future}
import scala.util.{Failure, Success, Try}
import scala.util.control.NonFatal

/** The `smartMap` fast path of seed 002: when a future has already completed, apply the function at
  * once on the calling thread instead of submitting it to an execution context; otherwise fall back
  * to the ordinary `map` on `ec`.
  *
  * {{{
  * import weir.bench.future.FutureSyntax.*
  * Future.successful(1).smartMap(_ + 1) // no task submitted anywhere
  * }}}
  *
  * '''Starvation caveat.''' On the fast path `f` runs on the caller's thread, which may be a thread
  * of a pool that is not meant for it; keep `f` short and non-blocking, exactly as for
  * [[DirectExecutionContext]]. A failed future is returned as it is; an exception thrown by `f`
  * becomes a failed future, as with `map`.
  */
object FutureSyntax:

  extension [A](future: Future[A])

    /** `map` that skips the execution context when `future` is already complete. */
    def smartMap[B](f: A => B)(using ec: ExecutionContext): Future[B] =
      future.value match
        case Some(Success(value)) => Future.fromTry(attempt(f(value)))
        case Some(Failure(_))     => future.asInstanceOf[Future[B]]
        case None                 => future.map(f)

    /** `flatMap` that skips the execution context when `future` is already complete. */
    def smartFlatMap[B](f: A => Future[B])(using ec: ExecutionContext): Future[B] =
      future.value match
        case Some(Success(value)) =>
          try f(value)
          catch case NonFatal(error) => Future.failed(error)
        case Some(Failure(_)) => future.asInstanceOf[Future[B]]
        case None             => future.flatMap(f)

  private def attempt[B](value: => B): Try[B] =
    try Success(value)
    catch case NonFatal(error) => Failure(error)
