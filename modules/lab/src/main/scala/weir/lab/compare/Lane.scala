package weir.lab.compare

import weir.engine.Snapshot

/** The seed's lane of events for one run, drawn from the engine's statistics: a `P` for every batch
  * the strategy took from a producer (`Snapshot.batches` grew) and a `C` for every
  * [[Lane.consumeMark]]-th task that ended.
  *
  * Only the latest `width` events are kept, so a lane is the same size after ten tasks or ten
  * million; [[next]] builds a new value from the previous one and a later snapshot. Between two
  * snapshots, the `P`s are placed before the `C`s (a batch is taken before its tasks end).
  *
  * @param width
  *   events kept, at least 1
  * @param shown
  *   the latest events, oldest first, at most `width`
  * @param batches
  *   `Snapshot.batches` of the last snapshot seen
  * @param ended
  *   `Snapshot.ended` of the last snapshot seen
  */
final case class Lane private (width: Int, shown: String, batches: Long, ended: Long):

  /** This lane with the events between the last snapshot seen and `snapshot`. A snapshot with
    * smaller counts than the last one (none should come) adds nothing.
    */
  def next(snapshot: Snapshot): Lane =
    val newBatches = math.max(0L, snapshot.batches - batches)
    val newMarks =
      math.max(0L, snapshot.ended / Lane.consumeMark - ended / Lane.consumeMark)
    // Never build more than `width` characters, however many events arrived at once.
    val cs = math.min(newMarks, width.toLong).toInt
    val ps = math.min(newBatches, (width - cs).toLong).toInt
    val added = "P" * ps + "C" * cs
    copy(
      shown = (shown + added).takeRight(width),
      batches = math.max(batches, snapshot.batches),
      ended = math.max(ended, snapshot.ended)
    )

object Lane:

  /** The seed printed a `C` for every 15th task handled. */
  val consumeMark: Int = 15

  /** A lane with no event yet that keeps the latest `width` events (at least 1). */
  def empty(width: Int): Lane = Lane(math.max(1, width), "", 0L, 0L)
