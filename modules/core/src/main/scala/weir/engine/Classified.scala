package weir.engine

/** An error that names the class it is counted under in the statistics and results (instead of its
  * simple class name), for example an HTTP client's `timeout`, `refused` or `status-503`.
  *
  * `overload` says whether the failure is a sign that the downstream is overloaded, which makes
  * [[AdaptiveConcurrency]] lower its limit (true by default: timeouts, resets, 5xx); an error in
  * the task itself (a malformed input) is not.
  */
trait Classified:
  def failureClass: String
  def overload: Boolean = true
