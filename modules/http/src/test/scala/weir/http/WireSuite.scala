package weir.http

import cats.effect.{IO, Resource}
import java.io.{BufferedInputStream, ByteArrayOutputStream, InputStream}
import java.net.{InetAddress, ServerSocket, Socket}
import java.nio.charset.StandardCharsets.ISO_8859_1
import java.util.concurrent.ConcurrentLinkedQueue
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*

/** The load client's bytes on the wire, against a plain socket server that records each request and
  * answers with scripted bytes: all on one accepted connection, so a second connection would never
  * be answered.
  */
class WireSuite extends CatsEffectSuite:

  override def munitIOTimeout: Duration = 30.seconds

  /** Accepts one connection; for each reply, reads one request and writes the reply (`None`: reads
    * it and never answers); then closes the connection if `thenClose`. The second value reads the
    * requests recorded so far.
    */
  private def scripted(
      replies: List[Option[String]],
      thenClose: Boolean = false
  ): Resource[IO, (Int, IO[List[String]])] =
    val seen = new ConcurrentLinkedQueue[String]()
    val sockets = new ConcurrentLinkedQueue[java.io.Closeable]()
    val listening = new ServerSocket(0, 50, InetAddress.getLoopbackAddress)
    sockets.add(listening)
    val serve = IO.blocking {
      val socket: Socket = listening.accept()
      sockets.add(socket)
      val in = new BufferedInputStream(socket.getInputStream)
      replies.foreach { reply =>
        seen.add(readRequest(in))
        reply.foreach(r => socket.getOutputStream.write(r.getBytes(ISO_8859_1)))
      }
      if thenClose then socket.close()
      else while in.read() >= 0 do () // until the client or the finalizer closes the connection
    }
    for
      _ <- serve.attempt.background
      _ <- Resource.onFinalize(IO.blocking(sockets.forEach(_.close())))
    yield (listening.getLocalPort, IO(seen.asScala.toList))

  /** One request: its head up to the blank line, then `Content-Length` bytes of body. */
  private def readRequest(in: InputStream): String =
    val head = new ByteArrayOutputStream
    while !head.toString(ISO_8859_1).endsWith("\r\n\r\n") do
      val b = in.read()
      if b < 0 then throw new java.io.EOFException("the client closed the connection")
      head.write(b)
    val text = head.toString(ISO_8859_1)
    val length = text.linesIterator
      .collectFirst {
        case l if l.toLowerCase.startsWith("content-length:") => l.drop(15).trim.toInt
      }
      .getOrElse(0)
    text + new String(in.readNBytes(length), ISO_8859_1)

  private val ok = Some("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")

  test("a request goes out as HTTP/1.1 with its method, Host, extra headers and body") {
    val spec = RequestSpec.default
      .withMethod("post")
      .flatMap(_.withHeader("X-Trace", "abc 1"))
      .map(_.withBody(RequestSpec.text("héllo")))
      .fold(e => fail(e.getMessage), identity)
    scripted(List(Some("HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n"))).use { (port, seen) =>
      HttpClient.resource[IO](1, 5.seconds).use { client =>
        for
          status <- client.send(Target("127.0.0.1", port, "/items/7?x=1"), spec)
          requests <- seen
        yield
          assertEquals(status, Right(201))
          assertEquals(
            requests,
            List(
              s"POST /items/7?x=1 HTTP/1.1\r\nHost: 127.0.0.1:$port\r\nX-Trace: abc 1\r\n" +
                "Content-Length: 6\r\n\r\n" + new String(RequestSpec.text("héllo"), ISO_8859_1)
            )
          )
      }
    }
  }

  test("a Host header given replaces weir's") {
    val spec =
      RequestSpec.default.withHeader("Host", "example.test").fold(e => fail(e.getMessage), identity)
    scripted(List(ok)).use { (port, seen) =>
      HttpClient.resource[IO](1, 5.seconds).use { client =>
        client.send(Target("127.0.0.1", port, "/"), spec) >> seen.map { requests =>
          assertEquals(requests, List("GET / HTTP/1.1\r\nHost: example.test\r\n\r\n"))
        }
      }
    }
  }

  test("the answer to HEAD has no body, and the connection carries the next request") {
    val head = Some("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n")
    scripted(List(head, ok)).use { (port, seen) =>
      HttpClient.resource[IO](1, 5.seconds).use { client =>
        val target = Target("127.0.0.1", port, "/a")
        for
          first <- client
            .send(
              target,
              RequestSpec.default.withMethod("HEAD").fold(e => fail(e.getMessage), identity)
            )
          second <- client.send(target, RequestSpec.default)
          requests <- seen
        yield
          assertEquals((first, second), (Right(200), Right(200)))
          assertEquals(
            requests.map(_.takeWhile(_ != '\r')),
            List("HEAD /a HTTP/1.1", "GET /a HTTP/1.1")
          )
      }
    }
  }

  test("a quick answer does not shorten the timeout of the next request on its connection") {
    scripted(List(ok, None)).use { (port, _) =>
      HttpClient.resource[IO](1, 600.millis).use { client =>
        val target = Target("127.0.0.1", port, "/")
        for
          first <- client.send(target, RequestSpec.default)
          _ <- IO.sleep(300.millis)
          timed <- client.send(target, RequestSpec.default).timed
        yield
          val (took, second) = timed
          assertEquals(first, Right(200))
          assert(second.left.exists(ErrorClass.of(_) == ErrorClass.Timeout), second)
          // the first request's timer fires 300 ms into the second; it must wait for its own deadline
          assert(took >= 550.millis, s"timed out after $took, before its own 600 ms")
      }
    }
  }

  test("an answer without a length ends when the server closes the connection") {
    val unbounded =
      Some("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nthe body, up to the close")
    scripted(List(unbounded), thenClose = true).use { (port, _) =>
      HttpClient.resource[IO](1, 5.seconds).use { client =>
        client.send(Target("127.0.0.1", port, "/"), RequestSpec.default).map { status =>
          assertEquals(status, Right(200))
          assertEquals(client.idleByLoop("127.0.0.1", port), Seq(0)) // closed: not kept for reuse
        }
      }
    }
  }

  test("a malformed answer fails its request with an error that says so") {
    scripted(List(Some("HTTP/1.1 2x0 OK\r\n\r\n"))).use { (port, _) =>
      HttpClient.resource[IO](1, 5.seconds).use { client =>
        client.send(Target("127.0.0.1", port, "/"), RequestSpec.default).map { status =>
          val error = status.left.toOption
          assertEquals(error.map(ErrorClass.of), Some(ErrorClass.Other))
          assert(error.exists(_.getMessage.contains("malformed response")), status)
        }
      }
    }
  }

  test("headers and methods are checked") {
    assertEquals(RequestSpec.header("X-A: b c"), Right("X-A" -> "b c"))
    assert(RequestSpec.header("Bad Name: x").isLeft)
    assert(RequestSpec.header("no colon").isLeft)
    assert(RequestSpec.header("X-A: b\nInjected: y").isLeft)
    assertEquals(RequestSpec.method(" purge "), Right("PURGE"))
    assert(RequestSpec.method("GE T").isLeft)
    assert(RequestSpec.method("").isLeft)
    // A library user gets the same checks: no CR/LF smuggled into a request.
    assert(RequestSpec.default.withHeader("X-A", "b\r\nInjected: y").isLeft)
    assert(RequestSpec.default.withHeader("Bad Name", "x").isLeft)
    assert(RequestSpec.default.withMethod("GET /evil HTTP/1.1\r\n").isLeft)
    assertEquals(RequestSpec.default.withMethod("put").map(_.method), Right("PUT"))
  }
