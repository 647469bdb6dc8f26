package weir

/** SplitMix64's mixing, the one behind every seeded draw in weir (the lab's handling times, the
  * delay server's keyed delays and faults): it scatters neighbouring inputs, so that seeds 1, 2, 3,
  * ... or consecutive keys give independent-looking values. Pure and thread-safe.
  */
private[weir] object SplitMix64:

  /** The generator's increment, 2^64 / golden ratio. */
  val GoldenGamma: Long = 0x9e3779b97f4a7c15L

  /** The finaliser: a bijection on `Long`. */
  def mix(z0: Long): Long =
    var z = z0
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL
    z ^ (z >>> 31)

  /** The value SplitMix64 yields from state `state`: [[mix]] of `state + GoldenGamma`. */
  def next(state: Long): Long = mix(state + GoldenGamma)

  /** A double uniform in `[0, 1)` from the top 53 bits of `mix(z)`. */
  def unit(z: Long): Double = (mix(z) >>> 11) * (1.0 / (1L << 53))
