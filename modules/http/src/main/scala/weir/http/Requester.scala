package weir.http

/** What a load sends its requests with: [[HttpClient]] over real sockets; in tests of the load's
  * timing under virtual time, a function of the target.
  */
trait Requester[F[_]]:

  /** Sends one request; the status code, or the error it ended with (see [[ErrorClass.of]]). Never
    * fails. Cancelling it abandons the request.
    */
  def send(target: Target, spec: RequestSpec): F[Either[Throwable, Int]]

  /** The connections the requester has opened, by protocol (e.g. `h2` → 4), for a report; empty
    * when it does not say (the HTTP/1.1 client).
    */
  def protocols: Map[String, Long] = Map.empty

  /** The TLS handshakes of the requester's connections, for a report; `None` when it does not say
    * (no TLS connection yet, or a requester that does not count them).
    */
  def tlsSessions: Option[TlsSessions] = None

  /** Builds now what the requester would otherwise build on its first `https://` connection (its
    * TLS context: trust stores, the engine), so that a load's clock does not count it. Blocking; a
    * failure is thrown here and again on that first connection. Nothing by default.
    */
  private[weir] def prepareTls(): Unit = ()
