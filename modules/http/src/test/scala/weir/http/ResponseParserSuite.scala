package weir.http

import io.netty.buffer.Unpooled
import java.nio.charset.StandardCharsets.ISO_8859_1
import munit.ScalaCheckSuite
import org.scalacheck.{Gen, Prop}

/** [[ResponseParser]] on byte strings, whole and cut anywhere: what the load client learns from a
  * response (status, whether the connection stays open, where the response ends).
  */
class ResponseParserSuite extends ScalaCheckSuite:

  /** What reading `parts` one after the other gives: (status, keepAlive, offset of its end in the
    * parts joined) per complete response, and whether the last one waits for the connection's
    * close.
    */
  private def parse(
      parts: Seq[String],
      head: Boolean = false
  ): (List[(Int, Boolean, Int)], Boolean) =
    val parser = new ResponseParser
    parser.bodyless = head
    val done = List.newBuilder[(Int, Boolean, Int)]
    var offset = 0
    parts.foreach { part =>
      val in = Unpooled.wrappedBuffer(part.getBytes(ISO_8859_1))
      while in.isReadable do
        if parser.read(in) then done += ((parser.status, parser.keepAlive, offset + in.readerIndex))
      offset += part.length
    }
    (done.result(), parser.endsAtClose)

  /** The same input cut at every position gives the same result as the input whole. */
  private def sameWhenCut(response: String, head: Boolean = false): Unit =
    val whole = parse(Seq(response), head)
    (0 to response.length).foreach { at =>
      assertEquals(parse(Seq(response.take(at), response.drop(at)), head), whole, s"cut at $at")
    }

  private def malformed(response: String): String =
    intercept[ResponseParser.Malformed](parse(Seq(response))).getMessage

  private val fixed =
    "HTTP/1.1 200 OK\r\nContent-Length: 11\r\nContent-Type: text/plain\r\n\r\nRequest 123"
  private val chunked =
    "HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n" +
      "5;name=value\r\nhello\r\n1A\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\nX-Trailer: 1\r\n\r\n"

  test("a response with a Content-Length ends after that many bytes, wherever it is cut") {
    assertEquals(parse(Seq(fixed)), (List((200, true, fixed.length)), false))
    assertEquals(parse(Seq(fixed + "HTTP/1.1")), (List((200, true, fixed.length)), false))
    sameWhenCut(fixed)
  }

  test("a chunked response ends after its last chunk and its trailer, wherever it is cut") {
    assertEquals(parse(Seq(chunked)), (List((201, true, chunked.length)), false))
    sameWhenCut(chunked)
  }

  test("two responses back to back are read one after the other") {
    val two = fixed + chunked.replace("201 Created", "503 Busy")
    assertEquals(parse(Seq(two))._1, List((200, true, fixed.length), (503, true, two.length)))
    sameWhenCut(two)
  }

  test("the answer to HEAD, 204 and 304 have no body whatever their headers say") {
    val headAnswer = "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n"
    assertEquals(parse(Seq(headAnswer), head = true), (List((200, true, headAnswer.length)), false))
    assertEquals(parse(Seq(headAnswer), head = false), (Nil, false)) // waits for 11 bytes
    assertEquals(
      parse(Seq("HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n"))._1.map(_._1),
      List(204)
    )
    assertEquals(
      parse(Seq("HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n"))._1.map(_._1),
      List(304)
    )
  }

  test("an interim 100 Continue is skipped: the status is the final response's") {
    val response = "HTTP/1.1 100 Continue\r\n\r\n" + fixed
    assertEquals(parse(Seq(response)), (List((200, true, response.length)), false))
    sameWhenCut(response)
  }

  test("Connection: close and HTTP/1.0 without keep-alive end the connection after the response") {
    def kept(response: String) = parse(Seq(response))._1.map(_._2)
    assertEquals(kept(fixed.replace("Content-Type", "Connection: close\r\nX")), List(false))
    assertEquals(kept(fixed.replace("HTTP/1.1", "HTTP/1.0")), List(false))
    val asked =
      fixed.replace("HTTP/1.1", "HTTP/1.0").replace("Content-Type", "connection: Keep-Alive\r\nX")
    assertEquals(kept(asked), List(true))
  }

  test("a response without a length lasts until the connection closes") {
    val parser = new ResponseParser
    val in = Unpooled.wrappedBuffer("HTTP/1.1 200 OK\r\n\r\nsome body".getBytes(ISO_8859_1))
    assert(!parser.read(in))
    assert(parser.endsAtClose)
    assertEquals((parser.status, parser.keepAlive, in.readableBytes), (200, false, 0))
    parser.closed()
    assert(!parser.endsAtClose)
  }

  test("malformed responses are refused with a message that says what is wrong") {
    assert(malformed("SSH-2.0-OpenSSH_9.2\r\n").contains("not an HTTP/1.x status line: 'SSH-2.0"))
    assert(malformed("HTTP/1.1 2x0 OK\r\n").contains("status line"))
    assert(malformed("HTTP/1.1 200 OK\r\nno colon here\r\n").contains("without ':'"))
    assert(
      malformed("HTTP/1.1 200 OK\r\nContent-Length: 12a\r\n").contains(
        "not a Content-Length: '12a'"
      )
    )
    assert(
      malformed("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n")
        .contains("two different Content-Length headers")
    )
    assert(
      malformed("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n").contains(
        "chunk size"
      )
    )
    assert(
      malformed("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n").contains(
        "longer than its size"
      )
    )
    assert(
      malformed("HTTP/1.1 200 OK\r\nX: " + "y" * ResponseParser.MaxLine).contains("longer than")
    )
  }

  property("a Content-Length body of any size, cut at any two points, ends exactly at its end") {
    val gen = for
      size <- Gen.choose(0, 3000)
      a <- Gen.choose(0.0, 1.0)
      b <- Gen.choose(0.0, 1.0)
    yield (size, a, b)
    Prop.forAll(gen) { (size, a, b) =>
      val response = s"HTTP/1.1 200 OK\r\ncontent-length: $size\r\n\r\n" + ("x" * size)
      val joined = response + "HTTP" // the start of the next response
      val cuts = Seq(a, b).map(f => (f * joined.length).toInt).sorted
      val parts = Seq(joined.take(cuts(0)), joined.slice(cuts(0), cuts(1)), joined.drop(cuts(1)))
      parse(parts) == (List((200, true, response.length)), false)
    }
  }
