package weir.workload

import cats.effect.Sync
import cats.effect.std.Random

/** The random source of a run, from a user's seed.
  *
  * `java.util.Random` started from neighbouring seeds (1, 2, 3, ...) yields correlated first draws,
  * so runs over consecutive seeds would not be independent samples and their mean would be biased.
  * The seed is therefore first spread with the SplitMix64 finaliser; the same seed still gives the
  * same draws on every run.
  */
object SeededRandom:

  def apply[F[_]: Sync](seed: Long): F[Random[F]] = Random.scalaUtilRandomSeedLong[F](spread(seed))

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
