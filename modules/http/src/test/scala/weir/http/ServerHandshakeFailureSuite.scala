package weir.http

import cats.effect.{IO, Resource}
import java.net.{InetSocketAddress, Socket}
import java.nio.charset.StandardCharsets.US_ASCII
import java.util.logging.{Handler, Level, LogRecord, Logger}
import javax.net.ssl.{SSLContext, SSLException}
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.ConfigError

/** A TLS handshake that fails on `weir serve --tls --http2` (a client that does not trust the
  * certificate, bytes that are not TLS) closes the connection without a word, on either engine, as
  * it does without `--http2`: Netty's ALPN handler used to log each one as a warning with its stack
  * trace (seen on the server's stderr while a worker refused the certificate). Netty logs through
  * `java.util.logging` here (no SLF4J on this module's class path): the suite listens there.
  */
class ServerHandshakeFailureSuite extends CatsEffectSuite:

  override def munitIOTimeout: Duration = 60.seconds

  private def ok[A](e: Either[ConfigError, A]): A = e.fold(e => fail(e.getMessage), identity)

  // Held here: java.util.logging keeps only weak references to its loggers.
  private val negotiation =
    Logger.getLogger("io.netty.handler.ssl.ApplicationProtocolNegotiationHandler")

  /** What Netty's negotiation handler logs at WARNING or above while `body` runs. */
  private def warnings[A](body: IO[A]): IO[(A, List[String])] =
    val seen = new java.util.concurrent.ConcurrentLinkedQueue[String]
    val handler = new Handler:
      def publish(r: LogRecord): Unit =
        if r.getLevel.intValue >= Level.WARNING.intValue then seen.add(r.getMessage): Unit
      def flush(): Unit = ()
      def close(): Unit = ()
    Resource
      .make(IO(negotiation.addHandler(handler)))(_ => IO(negotiation.removeHandler(handler)))
      .surround(body)
      .map(a => (a, seen.toArray.toList.map(_.toString)))

  private def server(engine: TlsEngine): Resource[IO, DelayServer] =
    val (certificate, key) = LoopbackCertificate.make()
    val tls = ok(ServerTls.of(List(certificate), key)).withEngine(engine)
    val base = ok(ServerConfig.default.withDelay(Delay.Fixed(Duration.Zero)).withPort(0))
    DelayServer.resource[IO](ok(base.withThreads(1)).withTls(tls).withHttp2)

  /** A JDK client with the default trust store, which does not hold the server's certificate. */
  private def untrusted(port: Int): IO[Boolean] = IO.blocking {
    val socket = SSLContext.getDefault.getSocketFactory.createSocket("127.0.0.1", port)
    try
      socket.asInstanceOf[javax.net.ssl.SSLSocket].startHandshake()
      false
    catch case _: SSLException => true
    finally socket.close()
  }

  /** Plain HTTP to the TLS port: the server closes the connection (the read ends). */
  private def notTls(port: Int): IO[Int] = IO.blocking {
    val socket = new Socket()
    try
      socket.connect(new InetSocketAddress("127.0.0.1", port))
      socket.getOutputStream.write("GET /1 HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(US_ASCII))
      socket.getInputStream.readAllBytes().length
    finally socket.close()
  }

  /** Until the server has closed every connection (its counter runs after the failure's handling).
    */
  private def allClosed(s: DelayServer): IO[Unit] =
    s.stats[IO]
      .flatMap(st => if st.connections == 0 then IO.unit else IO.sleep(20.millis) >> allClosed(s))

  for engine <- List(TlsEngine.OpenSsl, TlsEngine.Jdk).filter(_.available) do
    test(s"on ${engine.name}: failed handshakes close their connections and log nothing") {
      server(engine).use { s =>
        warnings(
          for
            refused <- untrusted(s.port)
            read <- notTls(s.port)
            _ <- allClosed(s).timeout(10.seconds)
            stats <- s.stats[IO]
          yield (refused, read, stats.requests, s.handshakes.map(_.total))
        ).map { case ((refused, read, requests, handshakes), logged) =>
          assert(refused, "the client trusted a certificate it was never given")
          assertEquals(read, 0)
          assertEquals(requests, 0L)
          assertEquals(handshakes, Some(0L))
          assertEquals(logged, Nil)
        }
      }
    }
