package weir.bench.future

import java.util.ArrayDeque
import scala.concurrent.ExecutionContextExecutor

/** Like [[DirectExecutionContext]], on the submitting thread, but without growing its stack: the
  * outermost `execute` on a thread runs its runnable and then drains a per-thread queue of the
  * runnables submitted meanwhile (by callbacks of callbacks), one after another.
  *
  * The same starvation caveat applies as to [[DirectExecutionContext]]: it borrows whichever thread
  * submits, so callbacks must be short and never block. Order: runnables submitted while draining
  * run after the current one, in submission order.
  *
  * Errors: a runnable that throws is reported with `reportFailure` (stderr) and the queue goes on
  * draining, so one failing callback cannot strand the others.
  */
object TrampolineExecutionContext extends ExecutionContextExecutor:

  // null when no drain is running on this thread; the queue of the drain otherwise.
  private val pending = new ThreadLocal[ArrayDeque[Runnable] | Null]

  def execute(runnable: Runnable): Unit =
    val queue = pending.get()
    if queue != null then
      queue.addLast(runnable)
      ()
    else
      val fresh = new ArrayDeque[Runnable]
      pending.set(fresh)
      try
        var next: Runnable | Null = runnable
        while next != null do
          runSafely(next)
          next = fresh.pollFirst()
      finally pending.remove()

  def reportFailure(cause: Throwable): Unit = cause.printStackTrace()

  private def runSafely(runnable: Runnable): Unit =
    try runnable.run()
    catch case scala.util.control.NonFatal(error) => reportFailure(error)
