package weir.http

import munit.ScalaCheckSuite
import org.scalacheck.{Gen, Prop}
import scala.concurrent.duration.*

/** Round trips of the http module's parsers: delays, URL templates, URL lines, headers. */
class ParsersPropertySuite extends ScalaCheckSuite:

  private val millis = Gen.choose(0L, 100000L).map(_.millis)

  property("delays: a delay's label parses back to it") {
    val delays = Gen.oneOf(
      for lo <- millis; extra <- millis yield Delay.Uniform(lo, lo + extra),
      millis.map(Delay.Fixed(_)),
      millis.map(Delay.Exponential(_))
    )
    Prop.forAll(delays)(d => assertEquals(Delay.parse(d.label), Right(d)))
  }

  private val hosts = Gen.oneOf(
    Gen.const("127.0.0.1"),
    Gen.const("localhost"),
    Gen.nonEmptyListOf(Gen.alphaLowerChar).map(_.take(12).mkString).map(_ + ".test")
  )
  private val segments = Gen.listOf(Gen.oneOf(Gen.alphaNumStr.map(_.take(8)), Gen.const("{id}")))

  property("URL templates: request i goes to the template with {id} replaced by i") {
    Prop.forAll(hosts, Gen.choose(1, 65535), segments, Gen.choose(0L, Long.MaxValue)) {
      (host, port, parts, id) =>
        val path = "/" + parts.mkString("/")
        val t =
          UrlTemplate.parse(s"http://$host:$port$path").fold(e => fail(e.getMessage), identity)
        assertEquals(t.target(id), Target(host, port, path.replace("{id}", id.toString)))
        assertEquals(t.hasId, parts.contains("{id}"))
    }
  }

  property("URL lines: a file of URLs reads back as their targets, line numbers kept") {
    Prop.forAll(hosts, Gen.choose(1, 65535), Gen.listOf(Gen.alphaNumStr.map(_.take(6)))) {
      (host, port, paths) =>
        val lines = paths.map(p => s"http://$host:$port/$p")
        val file = java.nio.file.Files.createTempFile("weir-urls", ".txt")
        try
          java.nio.file.Files.write(file, java.util.Arrays.asList(lines*))
          import cats.effect.unsafe.implicits.global
          val read = UrlFile.lines[cats.effect.IO](file).compile.toList.unsafeRunSync()
          assertEquals(read.map(_.line), List.range(1L, lines.size + 1L))
          assertEquals(read.map(_.target), paths.map(p => Right(Target(host, port, s"/$p"))))
        finally java.nio.file.Files.delete(file)
    }
  }

  private val tokens =
    Gen.nonEmptyListOf(Gen.oneOf(Gen.alphaNumChar, Gen.oneOf("!#$%&'*+-.^_`|~"))).map(_.mkString)
  private val values = Gen.asciiPrintableStr.map(_.trim)

  property("headers: Name: value reads back; a line break anywhere in the value is refused") {
    Prop.forAllNoShrink(tokens, values, Gen.oneOf("\r", "\n", "\r\n")) { (name, value, br) =>
      assertEquals(RequestSpec.header(s"$name: $value"), Right(name -> value))
      assert(RequestSpec.header(s"$name: $value${br}X-Injected: 1").isLeft)
      assert(RequestSpec.default.withHeader(name, s"a${br}b").isLeft)
    }
  }
