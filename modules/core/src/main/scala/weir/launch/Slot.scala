package weir.launch

import scala.concurrent.duration.FiniteDuration

/** One effect's place in a launch.
  *
  * @param index
  *   0 for the first input, 1 for the next, ...; every index is handed out exactly once
  * @param input
  *   the input (the index itself for counted launches)
  * @param scheduled
  *   the monotonic time (`Clock.monotonic`) the effect was due: its due time under a rate, else the
  *   time its worker picked it up. Measure latency from here.
  */
final case class Slot[+A](index: Long, input: A, scheduled: FiniteDuration)
