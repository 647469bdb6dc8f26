package weir.lab.workload

import weir.SplitMix64

/** The random draws of a run, from a user's seed.
  *
  * A task's handling time is a pure function of the seed and the task, not the next value of a
  * shared generator: so a run gives every task the same delay whatever order the handlers happen to
  * start in, and a real-time run and its virtual-time twin (`weir compare --vs-virtual`) handle
  * exactly the same work. Inputs are scattered with [[weir.SplitMix64]], so neighbouring seeds (1,
  * 2, 3, ...) and neighbouring tasks give independent-looking draws.
  */
object SeededRandom:

  /** A draw uniform in `[min, max)` (`min` when `max <= min`) for `task` under `seed`. */
  def between(seed: Long, task: Long, min: Long, max: Long): Long =
    if max <= min then min
    else
      min + java.lang.Long
        .remainderUnsigned(SplitMix64.next(SplitMix64.next(seed) + task), max - min)

  /** The seed for cats-effect's `TestControl` (its `TestContext` picks among tasks due at the same
    * instant at random): fixed per run seed, so a virtual-time run repeats exactly.
    */
  def schedulingSeed(seed: Long): String =
    java.util.Base64.getEncoder.encodeToString(SplitMix64.next(seed).toString.getBytes("UTF-8"))
