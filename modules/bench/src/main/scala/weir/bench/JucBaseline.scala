package weir.bench

import java.util.concurrent.{ArrayBlockingQueue, CountDownLatch}
import org.openjdk.jmh.infra.Blackhole

/** The hand-written java.util.concurrent baseline of [[TaskOverheadBench]]: the calling thread puts
  * tasks into an `ArrayBlockingQueue(200)`, two long-lived platform threads take and handle them. A
  * run ends with one end marker per thread; each thread counts down a latch on its marker, and the
  * caller waits for the latch. Threads are started once, by [[JucBaseline.start]].
  */
final class JucBaseline private (queue: ArrayBlockingQueue[AnyRef], threads: Vector[Thread]):

  /** Hands `tasks` tasks to the threads and returns once all are handled. */
  def runOnce(tasks: Int): Unit =
    val done = new CountDownLatch(threads.size)
    var i = 0
    while i < tasks do
      queue.put(JucBaseline.boxed(i % JucBaseline.boxed.length))
      i += 1
    threads.foreach(_ => queue.put(done))
    done.await()

  /** Interrupts the threads. */
  def stop(): Unit = threads.foreach(_.interrupt())

object JucBaseline:
  private val boxed: Array[Integer] = Array.tabulate(1024)(Integer.valueOf)

  /** Starts 2 daemon threads; `cpu` makes each task burn `tokens` of `Blackhole.consumeCPU`. */
  def start(cpu: Boolean, tokens: Long): JucBaseline =
    val queue = new ArrayBlockingQueue[AnyRef](200)
    val threads = Vector.tabulate(2) { index =>
      val thread = new Thread(() => work(queue, cpu, tokens), s"juc-baseline-$index")
      thread.setDaemon(true)
      thread.start()
      thread
    }
    new JucBaseline(queue, threads)

  private def work(queue: ArrayBlockingQueue[AnyRef], cpu: Boolean, tokens: Long): Unit =
    try
      while true do
        queue.take() match
          case latch: CountDownLatch => latch.countDown()
          case _                     => if cpu then Blackhole.consumeCPU(tokens)
    catch case _: InterruptedException => ()
