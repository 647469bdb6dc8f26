package weir.http

import cats.effect.kernel.Resource
import cats.effect.IO
import cats.effect.unsafe.IORuntime
import io.netty.channel.EventLoopGroup
import scala.concurrent.ExecutionContext
import scala.jdk.CollectionConverters.*

/** A cats-effect runtime whose compute pool is the load client's own Netty event loops.
  *
  * Why: on the work-stealing pool every response crosses threads twice (the event loop wakes a pool
  * thread, the pool thread hands the next request back to the loop), and idle pool threads spin; on
  * 2 cores that costs more than the requests themselves (see docs/adr/0003-http-stack.md). Here a
  * fiber resumed by a response runs on the loop that read it, and the next request is written from
  * that loop, without a wake-up.
  *
  * Fibers must not block: a blocked fiber stalls a loop's connections (`blocking` sections still go
  * to cats-effect's blocking pool, timers to its scheduler).
  */
object EventLoopRuntime:

  /** `threads` event loops and a runtime computing on them; both shut down on release. */
  def resource(threads: Int): Resource[IO, (EventLoopGroup, IORuntime)] =
    Transport.group[IO](threads, "weir-load").flatMap { group =>
      val loops = group.iterator.asScala.toArray
      val compute = new ExecutionContext:
        def execute(task: Runnable): Unit =
          val i = Transport.currentLoop(loops)
          if i >= 0 then loops(i).execute(task) else group.next().execute(task)
        def reportFailure(cause: Throwable): Unit = cause.printStackTrace()
      Resource
        .make(IO(IORuntime.builder().setCompute(compute, () => ()).build()))(rt =>
          IO(rt.shutdown())
        )
        .map(rt => (group, rt))
    }
