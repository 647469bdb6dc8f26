package weir.bench.future

import scala.concurrent.ExecutionContextExecutor

/** An execution context that runs every runnable at once, on the thread that submits it: no queue,
  * no hand-off, no context switch (Guava's `directExecutor`). A `Future.map` on an
  * already-completed future then costs about as much as calling the function.
  *
  * '''Starvation caveat.''' Nothing here is concurrent: a callback runs on whichever thread
  * completes the future, often a pool that belongs to someone else (an HTTP client's event loop, a
  * JDBC pool). Long or blocking callbacks then starve that pool, and deep chains of callbacks grow
  * that thread's stack (use [[TrampolineExecutionContext]] when chains are long). Use it only for
  * short, non-blocking transformations, and have every resource move its futures back to an
  * application pool before returning them, as seed 002 advises.
  *
  * Errors: an exception thrown by a runnable propagates to the submitter; `reportFailure` prints to
  * stderr.
  */
object DirectExecutionContext extends ExecutionContextExecutor:

  def execute(runnable: Runnable): Unit = runnable.run()

  def reportFailure(cause: Throwable): Unit = cause.printStackTrace()
