package weir.runtime

import cats.effect.{Async, Resource, Sync}
import java.util.concurrent.{ExecutorService, Executors}
import scala.concurrent.ExecutionContext
import weir.{Concurrency, Fatal}

/** A bounded pool of threads made for one blocking resource, sized to it: a JDBC connection pool of
  * 20 gets a `BlockingPool` of 20 threads, so at most 20 calls block at once and nobody blocks a
  * compute thread waiting for a connection.
  *
  * [[run]] moves to a pool thread for the blocking call only and comes back to the compute pool
  * before anything else happens: CPU work that follows (parsing the row, decoding JSON) runs on the
  * compute pool, sized to the cores, and never competes with the blocked threads for them. This is
  * the split the seed's `RobustDao` makes with two execution contexts.
  *
  * Calls beyond `threads` wait in the pool's queue (a waiting fiber holds no thread). Built with
  * [[BlockingPool.resource]], a [[cats.effect.kernel.Resource]]; release lets calls that already
  * started finish and stops the threads afterwards, without waiting for them.
  */
trait BlockingPool[F[_]]:

  /** How many calls can block at once. */
  def threads: Int

  /** The pool's threads as an execution context, for libraries that take one. */
  def executionContext: ExecutionContext

  /** Runs `thunk` on one of the pool's threads and resumes the caller on its compute pool.
    *
    * Errors thrown by `thunk` are raised in `F`, fatal ones too: an `OutOfMemoryError` or a
    * `StackOverflowError` on the pool's thread is raised as [[weir.WeirError.Fatal]] (cats-effect
    * would otherwise lose it with the fiber, and the caller would wait forever). Cancellation: a
    * call still queued is dropped; a call already running is not interrupted (a JDBC call rarely
    * survives an interrupt cleanly), and cancellation completes when it returns.
    */
  def run[A](thunk: => A): F[A]

object BlockingPool:

  /** The default thread-name prefix: `weir-blocking-0`, `weir-blocking-1`, ... */
  val defaultName: String = "weir-blocking"

  /** A pool of `threads` daemon threads named `name-N`. */
  def resource[F[_]: Async](
      threads: Concurrency,
      name: String = defaultName
  ): Resource[F, BlockingPool[F]] =
    Resource
      .make(Sync[F].delay(newPool(threads, name)))(pool => Sync[F].delay(pool.shutdown()))
      .map(pool => new Pooled[F](threads, pool))

  private def newPool(threads: Concurrency, name: String): ExecutorService =
    Executors.newFixedThreadPool(threads, RuntimePreset.daemonThreads(name))

  private final class Pooled[F[_]: Async](val threads: Int, pool: ExecutorService)
      extends BlockingPool[F]:
    val executionContext: ExecutionContext = ExecutionContext.fromExecutorService(pool)

    // `delay`, not `blocking`: `blocking` would move the call again, to cats-effect's own
    // unbounded blocking pool. This thread exists to block; `evalOn` shifts back afterwards.
    def run[A](thunk: => A): F[A] = Async[F].evalOn(Fatal.delay(thunk), executionContext)
