package weir.http

import cats.effect.{IO, Resource}
import cats.syntax.all.*
import io.netty.bootstrap.ServerBootstrap
import io.netty.channel.{
  Channel,
  ChannelHandler,
  ChannelHandlerContext,
  ChannelInboundHandlerAdapter,
  ChannelInitializer
}
import io.netty.channel.socket.SocketChannel
import java.net.InetSocketAddress
import java.nio.file.Paths
import java.util.concurrent.atomic.AtomicInteger
import munit.CatsEffectSuite
import scala.collection.mutable.ArrayBuffer
import scala.concurrent.duration.*
import weir.ConfigError

/** The client's bound on TLS handshakes in flight, against a real TLS server whose gate holds every
  * connection it accepts (reading nothing, so no handshake can end) until the test opens it: with
  * `c` far above the bound, exactly `bound` connections reach the server while the gate is shut,
  * and the client's gauge peaks at exactly `bound`; then every request is answered.
  */
class HandshakeBoundSuite extends CatsEffectSuite:

  override def munitIOTimeout: Duration = 120.seconds

  private def ok[A](e: Either[ConfigError, A]): A = e.fold(e => fail(e.getMessage), identity)

  private def resource(name: String) = Paths.get(getClass.getResource(s"/tls/$name").toURI)

  /** Holds every connection accepted while shut: auto-read off, so the server reads no ClientHello.
    */
  @ChannelHandler.Sharable
  private final class Gate extends ChannelInboundHandlerAdapter:
    private var open = false
    private val held = ArrayBuffer.empty[Channel]
    private val heldCount = new AtomicInteger

    /** Connections accepted while the gate was shut. */
    def whileShut: Int = heldCount.get

    override def channelActive(ctx: ChannelHandlerContext): Unit =
      synchronized {
        if !open then
          ctx.channel.config.setAutoRead(false)
          held += ctx.channel
          heldCount.incrementAndGet(): Unit
      }
      ctx.fireChannelActive(): Unit

    /** Lets every held connection (and every later one) read: their handshakes go on. */
    def openNow(): Unit = synchronized {
      open = true
      held.foreach(_.config.setAutoRead(true): Unit)
    }

  /** weir's delay server pipeline (TLS on the JDK's engine, HTTP/1.1, no delay) behind a gate. */
  private def gatedServer(gate: Gate, stats: ServerStats): Resource[IO, (Int, Handshakes)] =
    val tls = ok(ServerTls.pem(resource("cert.pem"), resource("key.pem"))).withEngine(TlsEngine.Jdk)
    val config = ok(ServerConfig.default.withDelay(Delay.Fixed(Duration.Zero)).withPort(0))
    val handshakes = new Handshakes
    val pipeline =
      new ServerPipeline(config, stats, None, Some(tls.context(alpn = false)), Some(handshakes))
    for
      boss <- Transport.group[IO](1, "gated-accept")
      workers <- Transport.group[IO](1, "gated")
      channel <- Resource.make(
        Transport.await[IO](
          new ServerBootstrap()
            .group(boss, workers)
            .channel(Transport.serverChannel)
            .childHandler(
              new ChannelInitializer[SocketChannel]:
                def initChannel(ch: SocketChannel): Unit =
                  ch.pipeline.addLast(gate)
                  pipeline.init(ch)
            )
            .bind("127.0.0.1", 0)
        )
      )(ch => IO.blocking(ch.close().awaitUninterruptibly()).void)
    yield (channel.localAddress.asInstanceOf[InetSocketAddress].getPort, handshakes)

  test("the default bound is 32 per core") {
    assertEquals(HandshakeBound.default, 32 * Runtime.getRuntime.availableProcessors)
    assertEquals(HttpClient.Settings(1.second).handshakes, HandshakeBound.default)
  }

  test("c = 200, bound 8: exactly 8 connections handshake at once, then all 200 are answered") {
    val bound = 8
    val c = 200
    val gate = new Gate
    val stats = new ServerStats
    val settings = HttpClient
      .Settings(60.seconds)
      .withTls(ClientTls.default.insecure)
      .withHandshakes(bound)
    gatedServer(gate, stats).use { (port, handshakes) =>
      HttpClient.resource[IO](2, settings).use { client =>
        val sends = (0 until c).toList.parTraverse(i =>
          client.send(Target("127.0.0.1", port, s"/$i", secure = true), RequestSpec.default)
        )
        def shutUntilFull: IO[Unit] =
          IO(gate.whileShut)
            .flatMap(n => if n >= bound then IO.unit else IO.sleep(10.millis) >> shutUntilFull)
        sends.both(shutUntilFull.timeout(30.seconds) >> IO(gate.openNow())).map { (results, _) =>
          assertEquals(results.count(_ == Right(200)), c, results.filter(_ != Right(200)).take(3))
          // While the gate was shut no handshake could end, so no permit came back: the client
          // opened exactly `bound` connections, and no more, whatever the 192 others wanted.
          assertEquals(gate.whileShut, bound)
          assertEquals(client.handshaking.peak, bound)
          assertEquals(client.handshaking.inFlight, 0)
          assertEquals(stats.snapshot.requests, c.toLong)
          assert(handshakes.total >= bound.toLong && handshakes.total <= c.toLong, handshakes.total)
        }
      }
    }
  }
