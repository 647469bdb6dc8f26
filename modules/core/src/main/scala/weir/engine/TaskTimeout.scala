package weir.engine

import java.util.concurrent.TimeoutException
import scala.concurrent.duration.FiniteDuration

/** Raised into the retry decision when an attempt ran past the per-task timeout `after` (a
  * `TimeoutException`, so a [[RetryPolicy]] predicate may match either).
  */
final class TaskTimeout(val after: FiniteDuration)
    extends TimeoutException(s"the task ran past its timeout of $after")
    with Classified:
  def failureClass: String = "timeout"
