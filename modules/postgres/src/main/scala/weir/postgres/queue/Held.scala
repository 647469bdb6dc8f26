package weir.postgres.queue

import java.util.concurrent.ConcurrentHashMap
import scala.jdk.CollectionConverters.*

/** The claims a worker holds: claimed and not yet written back (completed, failed) or given back,
  * each with the way to interrupt its handler once it has started. The heartbeat renews them and
  * interrupts those it learns are no longer held ([[lose]]); a graceful stop releases what is left.
  *
  * A concurrent map rather than a `Ref` over an immutable one: every job passes through it three
  * times (claimed, started, written), from as many fibers as there are tasks in flight, and a
  * `Ref`'s compare-and-set loop over one shared map retries under that contention. Each step is one
  * atomic operation on the job's key, so a handler that starts while its job is being lost is
  * either interrupted by [[lose]] or told by [[started]] that its job is gone: never neither.
  */
private[queue] final class Held[F[_]]:
  import Held.Entry

  private val claims = new ConcurrentHashMap[Long, Entry[F]]

  def add(jobs: Seq[Job]): Unit = jobs.foreach(j => claims.put(j.id, Entry(j, None)))

  /** True while `job` is held under its attempt. */
  def holds(job: Job): Boolean =
    val e = claims.get(job.id)
    e != null && e.job.attempt == job.attempt

  /** Records that `job`'s handler started at `at` (monotonic nanoseconds), `interrupt` cancelling
    * it; false when the job is no longer held (the caller interrupts it then).
    */
  def started(job: Job, interrupt: F[Unit], at: Long): Boolean =
    claims.computeIfPresent(
      job.id,
      (_, held) =>
        if held.job.attempt == job.attempt then Entry(held.job, Some(interrupt), at) else held
    ) match
      case null => false
      case e    => e.job.attempt == job.attempt && e.interrupt.isDefined

  /** Marks every handler that started at or before `startedBy` and is not yet marked as expired
    * (its job's time is up: [[JobDeadlines]]); the ways to interrupt them. Each mark is one atomic
    * step on its job's key, so a job is marked and interrupted once.
    */
  def expire(startedBy: Long): List[F[Unit]] =
    claims.values.asScala.iterator
      .filter(e => e.interrupt.isDefined && !e.expired && e.startedAt <= startedBy)
      .flatMap { seen =>
        var marked = false // set by the remapping, which runs once, atomically for the key
        claims.computeIfPresent(
          seen.job.id,
          (_, held) =>
            if held eq seen then
              marked = true
              held.copy(expired = true)
            else held
        ): Unit
        if marked then seen.interrupt else None
      }
      .toList

  /** True when `job` is held and was marked by [[expire]]. */
  def expired(job: Job): Boolean =
    val e = claims.get(job.id)
    e != null && e.job.attempt == job.attempt && e.expired

  def remove(claim: Job.Claim): Unit =
    claims.computeIfPresent(
      claim.id,
      (_, held) => if held.job.attempt == claim.attempt then null else held
    ): Unit

  /** Forgets `id`: the job and how to interrupt its handler (if it started), when it was held. */
  def lose(id: Long): Option[(Job, Option[F[Unit]])] =
    Option(claims.remove(id)).map(e => (e.job, e.interrupt))

  def size: Int = claims.size

  /** How many claims are held of each queue (queues with none absent). */
  def byQueue: Map[String, Int] =
    claims.values.asScala.iterator.toVector.groupMapReduce(_.job.queue)(_ => 1)(_ + _)

  def current: Vector[Job.Claim] =
    claims.values.asScala.iterator.map(_.job.claim).toVector

  /** Every claim still held, with whether its handler started; empties the map. */
  def takeAll: Vector[(Job.Claim, Boolean)] =
    val all = claims.values.asScala.iterator.map(e => (e.job.claim, e.interrupt.isDefined)).toVector
    all.foreach((c, _) => remove(c))
    all

private[queue] object Held:
  private final case class Entry[F[_]](
      job: Job,
      interrupt: Option[F[Unit]],
      startedAt: Long = 0L,
      expired: Boolean = false
  )
