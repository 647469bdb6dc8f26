package weir.http

import weir.engine.Classified

/** How one attempt of a load's request failed, as the engine counts it
  * ([[weir.engine.Classified]]): its [[ErrorClass]]'s label (`refused`, `reset`, `timeout`,
  * `descriptors`, `input`, `other`) or `http-NNN` for a 5xx answer. Timeouts, resets, refusals and
  * 5xx answers are overload signals (they lower an adaptive concurrency) and are retried under
  * `--retries`; the others are not.
  */
sealed abstract class RequestFailed(message: String, cause: Throwable | Null)
// No stack trace: one may be raised per request, and where it was raised says nothing.
    extends Exception(message, cause, false, false)
    with Classified:
  def retryable: Boolean

object RequestFailed:

  /** No HTTP response: the connection failed, or the timeout fired. */
  final case class NoResponse(errorClass: ErrorClass, error: Throwable)
      extends RequestFailed(Option(error.getMessage).getOrElse(error.toString), error):
    def failureClass: String = errorClass.label
    override def overload: Boolean = errorClass.retryable
    def retryable: Boolean = errorClass.retryable

  /** The server answered with a 5xx status: counted as a response, retried if retries are on. */
  final case class ServerError(status: Int)
      extends RequestFailed(s"the server answered $status", null):
    def failureClass: String = s"http-$status"
    def retryable: Boolean = true

  /** A line of the URL file that is not a URL weir can request: never sent, never retried. */
  final case class BadLine(line: Long, text: String, reason: String)
      extends RequestFailed(s"line $line: $reason", null):
    def failureClass: String = ErrorClass.Input.label
    override def overload: Boolean = false
    def retryable: Boolean = false
