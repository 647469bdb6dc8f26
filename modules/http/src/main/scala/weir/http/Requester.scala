package weir.http

/** What a load sends its requests with: [[HttpClient]] over real sockets; in tests of the load's
  * timing under virtual time, a function of the target.
  */
trait Requester[F[_]]:

  /** Sends one request; the status code, or the error it ended with (see [[ErrorClass.of]]). Never
    * fails. Cancelling it abandons the request.
    */
  def send(target: Target, spec: RequestSpec): F[Either[Throwable, Int]]
