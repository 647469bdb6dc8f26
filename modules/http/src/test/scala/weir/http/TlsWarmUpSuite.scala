package weir.http

import cats.effect.{IO, Ref, Resource}
import java.security.Signature
import java.time.Instant
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*
import weir.{Concurrency, ConfigError}

/** An `https://` load warms its client up over TLS: weir's own server then serves `https://` with a
  * certificate made in the process ([[LoopbackCertificate]]), on the load's engine, and the warm-up
  * client verifies it as the load verifies its target; and the load's client builds its TLS context
  * before the load's clock starts. Real handshakes on loopback sockets; the servers count what they
  * saw.
  */
class TlsWarmUpSuite extends CatsEffectSuite:

  override def munitIOTimeout: Duration = 120.seconds

  private def load(url: String, n: Long): LoadConfig =
    LoadConfig(LoadConfig.Source.Template(ok(UrlTemplate.parse(url)), Some(n)))

  private def ok[A](e: Either[ConfigError, A]): A = e.fold(e => fail(e.getMessage), identity)

  test(
    "the loopback certificate: X.509 v3 for 127.0.0.1, self-signed, valid from an hour ago for a day"
  ) {
    val now = Instant.parse("2026-11-26T12:00:00Z")
    val (certificate, key) = LoopbackCertificate.make(now)
    assertEquals(certificate.getVersion, 3)
    certificate.verify(certificate.getPublicKey) // throws unless self-signed with its own key
    certificate.checkValidity(java.util.Date.from(now))
    assertEquals(certificate.getNotBefore.toInstant, now.minusSeconds(3600))
    assertEquals(certificate.getNotAfter.toInstant, now.plusSeconds(86400))
    val names = certificate.getSubjectAlternativeNames.asScala.map(_.asScala.toList.map(_.toString))
    assertEquals(names.toList, List(List("7", "127.0.0.1"))) // 7: iPAddress
    assertEquals(certificate.getSubjectX500Principal.getName, "CN=weir warm-up")
    val signer = Signature.getInstance("SHA256withECDSA")
    signer.initSign(key)
    signer.update(Array[Byte](1, 2, 3))
    val check = Signature.getInstance("SHA256withECDSA")
    check.initVerify(certificate.getPublicKey)
    check.update(Array[Byte](1, 2, 3))
    assert(check.verify(signer.sign()), "the key is the certificate's")
  }

  test(
    "weir's own server for an https:// load serves TLS on the load's engine; plain for http://"
  ) {
    val secure = load("https://127.0.0.1:1/{id}", 1).withTls(
      ClientTls.default.withEngine(TlsEngine.Jdk)
    )
    val plain = load("http://127.0.0.1:1/{id}", 1)
    for
      tls <- WarmUp.ownServerFor[IO](secure).use(own => IO(own.certificate.isDefined))
      none <- WarmUp.ownServerFor[IO](plain).use(own => IO(own.certificate.isDefined))
    yield assertEquals((tls, none), (true, false))
  }

  for engine <- List(TlsEngine.Jdk, TlsEngine.OpenSsl) do
    test(
      s"an https:// load's warm-up: every request over TLS to weir's own server, verified ($engine)"
    ) {
      assume(engine.available, s"$engine does not load here")
      val (targetCert, targetKey) = LoopbackCertificate.make()
      val targetTls = ok(ServerTls.of(List(targetCert), targetKey)).withEngine(engine)
      val target = ServerConfig.loopback.withTls(targetTls)
      val (ownCert, ownKey) = LoopbackCertificate.make()
      val ownTls = ok(ServerTls.of(List(ownCert), ownKey)).withEngine(engine)
      val clientTls = ClientTls.default.withEngine(engine).withCa(List(targetCert), "the test's")
      for
        seen <- Ref[IO].of(Option.empty[(Long, Long)])
        // The warm-up's server as WarmUp.ownServer makes it, kept at hand to count what it saw.
        own = DelayServer
          .resource[IO](ServerConfig.loopback.withTls(ownTls))
          .flatMap(s =>
            Resource
              .make(IO.pure(s))(s =>
                s.stats[IO].flatMap(st => seen.set(Some((st.requests, s.handshakes.get.total))))
              )
              .map(_ => WarmUp.OwnServer(s.port, Some(ownCert)))
          )
        report <- DelayServer.resource[IO](target).use { server =>
          val config = ok(
            load(s"https://127.0.0.1:${server.port}/{id}", 30)
              .withConcurrency(Concurrency(4))
              .flatMap(_.withWarmUp(200))
          ).withTls(clientTls)
          LoadRun.create[IO](config).flatMap { run =>
            run.runWith(c => HttpClient.resource[IO](1, c.client), own)
          }
        }
        warm <- seen.get
      yield
        assertEquals(report.warmUp.map(w => (w.requests, w.problem)), Some((200L, None)))
        assertEquals(report.finished, 30L)
        assertEquals(warm, Some((200L, 4L))) // 200 requests over 4 connections, 4 handshakes
    }

  test("an https:// load's client has built its TLS context before the load's first request") {
    val (certificate, key) = LoopbackCertificate.make()
    val served = ok(ServerTls.of(List(certificate), key)).withEngine(TlsEngine.Jdk)
    val tls = ClientTls.default.withEngine(TlsEngine.Jdk).withCa(List(certificate), "the test's")
    for
      builtAtFirst <- Ref[IO].of(Option.empty[Boolean])
      report <- DelayServer.resource[IO](ServerConfig.loopback.withTls(served)).use { server =>
        val config = ok(
          load(s"https://127.0.0.1:${server.port}/{id}", 20).withConcurrency(Concurrency(2))
        ).withTls(tls)
        // The load's own client, which notes at its first request whether its context was built.
        def noting(c: LoadConfig): Resource[IO, Requester[IO]] =
          HttpClient.resource[IO](1, c.client).map { client =>
            new Requester[IO]:
              def send(target: Target, spec: RequestSpec) =
                builtAtFirst.update(_.orElse(Some(client.tlsContextBuilt))) >>
                  client.send(target, spec)
              override private[weir] def prepareTls(): Unit = client.prepareTls()
          }
        LoadRun.create[IO](config).flatMap(_.runWith(noting))
      }
      built <- builtAtFirst.get
    yield
      assertEquals(report.finished, 20L)
      assertEquals(built, Some(true))
  }
