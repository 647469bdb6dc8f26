package weir.http

import cats.effect.kernel.{Async, Resource}
import cats.syntax.all.*
import io.netty.channel.EventLoopGroup
import java.security.cert.X509Certificate
import scala.concurrent.duration.*
import weir.{Concurrency, PositiveDuration}

/** What the client's warm-up did before a load (see [[LoadConfig.withWarmUp]]): `requests` finished
  * against weir's own in-process server in `elapsed`. Neither is part of the load's counts or its
  * clock. `problem` says why a warm-up that failed was skipped (the load runs anyway).
  */
final case class WarmUp(requests: Long, elapsed: FiniteDuration, problem: Option[String] = None)

/** The client's warm-up: a load of its own against weir's own server, before the real one.
  *
  * Why: on the JVM the first requests run cold code while the JIT compiles it (about 2.5 s of
  * compilation over a 2 000 000-request run here), and on two cores shared with the server that
  * slowed the start of every load and showed up as the target's latency. Warmed first, a c = 5 000
  * load ran at 48 621 / 48 737 req/s against 47 285 / 47 375 without (measured in
  * docs/adr/0003-http-stack.md, "the client warms up before the clock").
  */
object WarmUp:

  /** The warm-up's concurrency at most: enough connections to run the connect path hot, few enough
    * (twice as many descriptors, the server's end included) to leave a 19 000-connection load its
    * descriptors.
    */
  val MaxConcurrency: Concurrency = Concurrency(1000)

  /** The warm-up's limit in time, whatever its count: a slow machine starts its load anyway. */
  val MaxTime: PositiveDuration = PositiveDuration.seconds(5)

  /** A warm-up of more requests than this runs a first round of this many, at most
    * [[FirstRoundConcurrency]] at once, to its end (its connections closed, its workers ended),
    * then the rest.
    *
    * Why: the end of a warm-up took paths its requests never had (closing connections over TLS, the
    * strategy's workers finding no more tasks), and C2, which had compiled the request path without
    * them, threw that code away there: in the second before a load over TLS, 40 class checks, 21
    * type checks and 34 branches trapped in `SslHandler.wrap`, cats-effect's run loop, the
    * strategy's work loop, and the load began by compiling them again (0.47 s of C2 in its first
    * half second at zero delay, c = 100). A short first round runs those paths before C2 compiles
    * anything, so the second round's code already allows for them. Measured at c = 100 over TLS
    * against Go's server, against one round, in turn: 0..200 ms, CPU per request in the load
    * 0.80–0.95x in four pairs (0.106–0.122 against 0.127–0.137 ms; a first trial: less in seven
    * pairs of eight, more in one); zero delay and c = 1 000, no change beyond the spread
    * (docs/adr/0012-tls.md, stop 52).
    */
  val FirstRound: Long = 500

  /** The first round's concurrency at most (the concurrency it was measured at). */
  val FirstRoundConcurrency: Concurrency = Concurrency(100)

  /** The first round's limit in time; the second has the rest of [[MaxTime]]. */
  val FirstRoundTime: PositiveDuration = PositiveDuration.seconds(1)
  private val SecondRoundTime = PositiveDuration.seconds(4) // MaxTime - FirstRoundTime

  /** The warm-up's rounds for `load` on `own` ([[config]]): one, or two above [[FirstRound]]
    * requests, together `load.warmUp` of them, launching for [[MaxTime]] at most in all.
    */
  private[http] def rounds(load: LoadConfig, own: OwnServer): List[LoadConfig] =
    if load.warmUp <= FirstRound then List(config(load, own, MaxConcurrency, MaxTime, load.warmUp))
    else
      List(
        config(load, own, FirstRoundConcurrency, FirstRoundTime, FirstRound),
        config(load, own, MaxConcurrency, SecondRoundTime, load.warmUp - FirstRound)
      )

  /** weir's own server for the warm-up: an ephemeral loopback port, one event loop, no delay. */
  private[http] val server: ServerConfig = ServerConfig.loopback

  /** weir's own server for a warm-up, bound: its `port`, and the `certificate` it serves when it
    * serves TLS.
    */
  private[http] final case class OwnServer(port: Int, certificate: Option[X509Certificate] = None)

  /** weir's own server for the warm-up, bound while in use. With `http2`, it speaks HTTP/2 too.
    * With `tls`, it serves `https://` on that engine with a certificate made now
    * ([[LoopbackCertificate]]), so that an `https://` load's client warms its TLS code too (over
    * TLS, HTTP/2 is chosen by ALPN); without, plain HTTP (h2c with `http2`).
    */
  private[http] def ownServer[F[_]](
      http2: Boolean = false,
      tls: Option[TlsEngine] = None
  )(using F: Async[F]): Resource[F, OwnServer] =
    val plain = if http2 then server.withHttp2 else server
    tls match
      case None => DelayServer.resource[F](plain).map(s => OwnServer(s.port))
      case Some(engine) =>
        Resource.eval(F.blocking(LoopbackCertificate.make())).flatMap { (certificate, key) =>
          val served = ServerTls.of(List(certificate), key).map(_.withEngine(engine))
          Resource
            .eval(F.fromEither(served))
            .flatMap(t => DelayServer.resource[F](plain.withTls(t)))
            .map(s => OwnServer(s.port, Some(certificate)))
        }

  /** weir's own server as `load` needs it: over TLS on the load's engine for an `https://` load. */
  private[http] def ownServerFor[F[_]: Async](load: LoadConfig): Resource[F, OwnServer] =
    ownServer[F](load.http2.isDefined, Option.when(load.secure)(load.tls.engine))

  /** The load that warms the client for `load`: `load`'s request (method, headers, body) sent
    * `requests` times to `own` (`http://127.0.0.1:port/{id}`, or `https://` when it serves TLS, its
    * certificate then trusted besides `load`'s), closed model, at `load`'s concurrency up to
    * `most`, on as many event loops; it stops launching after `within` and waits one more second at
    * most for its requests in flight.
    */
  private[http] def config(
      load: LoadConfig,
      own: OwnServer,
      most: Concurrency,
      within: PositiveDuration,
      requests: Long
  ): LoadConfig =
    val target = UrlTemplate.loopback(own.port, secure = own.certificate.isDefined)
    val warming = load.warmingUp(target, most, within, requests)
    own.certificate.fold(warming)(c =>
      warming.withTls(load.tls.withCa(List(c), "weir's warm-up certificate"))
    )

  /** Warms the HTTP/1.1 client's code on `group` with no load of the caller's to follow in the same
    * run: `requests` requests to weir's own server (loopback, no delay) at `concurrency` (at most
    * [[MaxConcurrency]]), stopping after [[MaxTime]]; with `tls` (the caller's `https://`
    * settings), over TLS on that engine, as [[ownServer]] says. What `weir worker --http` does
    * before its first claim, so that no job waits on cold code while it holds a lease: without it,
    * a burn-down of 20 000 jobs at c = 500 took 2 s to reach 500 requests in flight
    * (bench/queue/http-worker.sh).
    *
    * Never raises: a warm-up that fails is reported in `problem` (the caller goes on cold).
    * Cancelable: cancelling it stops its requests and closes its server and connections.
    */
  private[weir] def on[F[_]](
      group: EventLoopGroup,
      requests: Long,
      concurrency: Concurrency,
      tls: Option[ClientTls] = None
  )(using F: Async[F]): F[WarmUp] =
    val template = UrlTemplate.loopback(0, secure = tls.isDefined)
    val load = LoadConfig(LoadConfig.Source.Template(template, None))
      .withTls(tls.getOrElse(ClientTls.default))
      .withConcurrency(if concurrency > MaxConcurrency then MaxConcurrency else concurrency)
      .flatMap(_.withWarmUp(requests))
    F.fromEither(load)
      .flatMap(l =>
        ownServerFor[F](l).use(own =>
          LoadRun
            .create[F](config(l, own, MaxConcurrency, MaxTime, l.warmUp))
            .flatMap(_.runOn(group))
        )
      )
      .map(r => WarmUp(r.finished, r.elapsed))
      .handleError(e => WarmUp(0, Duration.Zero, Some(Option(e.getMessage).getOrElse(e.toString))))
