package weir.http

/** Deterministic pseudo-random numbers keyed by (seed, request key, purpose): the same request id
  * gets the same delay and the same fault on every run and on every thread, so a test can predict
  * what the server will do to each request.
  */
object Keyed:

  /** A double in `[0, 1)` for this seed, key and purpose (SplitMix64's finaliser). */
  def uniform(seed: Long, key: Long, purpose: Int): Double =
    (mix(
      seed * 0x9e3779b97f4a7c15L + key * 0xbf58476d1ce4e5b9L + purpose
    ) >>> 11) * (1.0 / (1L << 53))

  /** The request id of a path: the number after its last `/`, if that is a number. */
  def id(path: String): Option[Long] =
    path.substring(path.lastIndexOf('/') + 1).toLongOption

  private def mix(z0: Long): Long =
    var z = z0
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL
    z ^ (z >>> 31)
