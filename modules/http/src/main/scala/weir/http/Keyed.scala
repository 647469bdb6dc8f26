package weir.http

import weir.SplitMix64

/** Deterministic pseudo-random numbers keyed by (seed, request key, purpose): the same request id
  * gets the same delay and the same fault on every run and on every thread, so a test can predict
  * what the server will do to each request.
  */
private[weir] object Keyed:

  /** A double in `[0, 1)` for this seed, key and purpose ([[weir.SplitMix64]]). */
  def uniform(seed: Long, key: Long, purpose: Int): Double =
    SplitMix64.unit(seed * SplitMix64.GoldenGamma + key * 0xbf58476d1ce4e5b9L + purpose)

  /** The request id of a path: the number after its last `/`, if that is a number. */
  def id(path: String): Option[Long] =
    path.substring(path.lastIndexOf('/') + 1).toLongOption
