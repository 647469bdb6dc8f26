package weir.strategy

import cats.effect.Async
import cats.effect.std.{Queue, Semaphore}
import cats.effect.Ref
import cats.effect.implicits.*
import cats.syntax.all.*
import weir.{Limits, Source}
import weir.strategy.Strategy

/** Work stealing, as the seed proposes: each of `concurrency` workers has its own bounded queue
  * (`queueCapacity / concurrency`, at least 1); producers (every partition at once) deal tasks
  * round robin to them; a worker takes from its own queue first and, when that is empty, steals
  * from the others.
  *
  * A semaphore counts the tasks sitting in all queues, so an idle worker sleeps on it instead of
  * polling. Invariant: permits released = tasks offered (+ one per worker once every producer has
  * finished); a worker holding a permit finds a task by scanning, or, once producers are done,
  * finds every queue empty and stops. A failing handler fails its worker, which cancels the other
  * workers and the producers.
  */
object WorkStealing extends Strategy:
  val name = "work-stealing"
  val summary = "per-worker queues fed round robin, idle workers steal from the others"

  def run[F[_]: Async, A](source: Source[F, A], limits: Limits)(handler: A => F[Unit]): F[Unit] =
    val workers = limits.concurrency
    val perWorker = math.max(1, limits.queueCapacity / workers)
    for
      queues <- Queue.bounded[F, A](perWorker).replicateA(workers).map(_.toVector)
      available <- Semaphore[F](0)
      finished <- Ref.of[F, Boolean](false)
      _ <- (
        produce(source, queues, available) >> finished.set(true) >>
          available.releaseN(workers.toLong),
        (0 until workers).toList.parTraverse_ { index =>
          work(index, queues, available, finished, handler)
        }
      ).parTupled
    yield ()

  /** Deals every partition's tasks round robin; a full queue passes the task to the next one, and
    * only when all are full does the producer wait on its chosen queue.
    */
  private def produce[F[_]: Async, A](
      source: Source[F, A],
      queues: Vector[Queue[F, A]],
      available: Semaphore[F]
  ): F[Unit] =
    source.partitions.zipWithIndex.parTraverse_ { (partition, offset) =>
      partition.zipWithIndex
        .foreach { (task, index) =>
          val first = ((index + offset) % queues.size).toInt
          offerSomewhere(queues, first, task) >> available.release
        }
        .compile
        .drain
    }

  private def offerSomewhere[F[_]: Async, A](
      queues: Vector[Queue[F, A]],
      first: Int,
      task: A
  ): F[Unit] =
    def attempt(step: Int): F[Unit] =
      if step == queues.size then queues(first).offer(task)
      else
        queues((first + step) % queues.size).tryOffer(task).flatMap { offered =>
          if offered then Async[F].unit else attempt(step + 1)
        }
    attempt(0)

  private def work[F[_]: Async, A](
      index: Int,
      queues: Vector[Queue[F, A]],
      available: Semaphore[F],
      finished: Ref[F, Boolean],
      handler: A => F[Unit]
  ): F[Unit] =
    // Own queue first, then the others starting from the next one.
    def find(step: Int): F[Option[A]] =
      if step == queues.size then Async[F].pure(None)
      else
        queues((index + step) % queues.size).tryTake.flatMap {
          case found @ Some(_) => Async[F].pure(found)
          case None            => find(step + 1)
        }
    // Holding a permit: a task is in some queue unless producers are done. A scan can miss one
    // only while another worker races it, so retrying after a cede terminates.
    def takeOne: F[Option[A]] = find(0).flatMap {
      case found @ Some(_) => Async[F].pure(found)
      case None =>
        finished.get.flatMap(done => if done then Async[F].pure(None) else Async[F].cede >> takeOne)
    }
    def loop: F[Unit] = available.acquire >> takeOne.flatMap {
      case Some(task) => handler(task) >> loop
      case None       => Async[F].unit
    }
    loop
