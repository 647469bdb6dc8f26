package weir.workload

/** The random draws of a run, from a user's seed.
  *
  * A task's handling time is a pure function of the seed and the task, not the next value of a
  * shared generator: so a run gives every task the same delay whatever order the handlers happen to
  * start in, and a real-time run and its virtual-time twin (`weir compare --vs-virtual`) handle
  * exactly the same work. Inputs are scattered with the SplitMix64 finaliser, so neighbouring seeds
  * (1, 2, 3, ...) and neighbouring tasks give independent-looking draws.
  */
object SeededRandom:

  /** A draw uniform in `[min, max)` (`min` when `max <= min`) for `task` under `seed`. */
  def between(seed: Long, task: Long, min: Long, max: Long): Long =
    if max <= min then min
    else min + java.lang.Long.remainderUnsigned(spread(spread(seed) + task), max - min)

  /** The seed for cats-effect's `TestControl` (its `TestContext` picks among tasks due at the same
    * instant at random): fixed per run seed, so a virtual-time run repeats exactly.
    */
  def schedulingSeed(seed: Long): String =
    java.util.Base64.getEncoder.encodeToString(spread(seed).toString.getBytes("UTF-8"))

  /** SplitMix64's finaliser: a bijection on `Long` that scatters neighbouring inputs. */
  def spread(seed: Long): Long =
    var z = seed + 0x9e3779b97f4a7c15L
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL
    z ^ (z >>> 31)
