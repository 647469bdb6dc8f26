package weir.postgres.queue

import java.util.concurrent.ConcurrentHashMap
import scala.jdk.CollectionConverters.*

/** The claims a worker holds: claimed and not yet written back (completed, failed) or given back.
  * The heartbeat renews them; a graceful stop releases what is left.
  *
  * A concurrent map rather than a `Ref` over an immutable one: every job passes through it three
  * times (claimed, started, written), from as many fibers as there are tasks in flight, and a
  * `Ref`'s compare-and-set loop over one shared map retries under that contention.
  */
private[queue] final class Held:
  // id -> (attempt, started); an entry is replaced (never mutated) when its handler starts.
  private val claims = new ConcurrentHashMap[Long, (Int, Boolean)]

  def add(jobs: Seq[Job]): Unit = jobs.foreach(j => claims.put(j.id, (j.attempt, false)))

  def started(job: Job): Unit =
    claims.computeIfPresent(
      job.id,
      (_, held) => if held._1 == job.attempt then (held._1, true) else held
    ): Unit

  def remove(claim: Job.Claim): Unit =
    claims.computeIfPresent(
      claim.id,
      (_, held) => if held._1 == claim.attempt then null else held
    ): Unit

  /** Forgets `id`; true when it was still held. */
  def removeAny(id: Long): Boolean = claims.remove(id) != null

  def size: Int = claims.size

  def current: Vector[Job.Claim] =
    claims.entrySet.asScala.iterator.map(e => Job.Claim(e.getKey, e.getValue._1)).toVector

  /** Every claim still held, with whether its handler started; empties the map. */
  def takeAll: Vector[(Job.Claim, Boolean)] =
    val all = claims.entrySet.asScala.iterator
      .map(e => (Job.Claim(e.getKey, e.getValue._1), e.getValue._2))
      .toVector
    all.foreach((c, _) => claims.remove(c.id))
    all
