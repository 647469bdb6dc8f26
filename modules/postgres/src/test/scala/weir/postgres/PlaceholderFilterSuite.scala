package weir.postgres

import cats.effect.SyncIO
import fs2.{Chunk, Stream}
import java.io.{StringReader, StringWriter}
import java.nio.charset.StandardCharsets.UTF_8
import munit.ScalaCheckSuite
import org.flywaydb.core.internal.parser.PlaceholderReplacingReader
import org.scalacheck.{Gen, Prop}
import scala.jdk.CollectionConverters.*

/** weir's placeholder replacement against Flyway's own reader (flyway-core 13.12.1's
  * `PlaceholderReplacingReader`): for any text made of placeholders, dollars, braces, line breaks
  * and multi-byte characters, cut into blocks of any size, weir gives what Flyway gives, and fails
  * exactly when Flyway fails.
  */
class PlaceholderFilterSuite extends ScalaCheckSuite:

  override def scalaCheckTestParameters =
    super.scalaCheckTestParameters.withMinSuccessfulTests(2000).withMaxSize(40)

  // Keys in lower case, as weir keeps them; Flyway matches without regard to case either way.
  private val values =
    Map("a" -> "1", "empty" -> "", "long" -> "a value ${a} with $ and }", "flyway:user" -> "u")

  private val text: Gen[String] = Gen
    .listOf(
      Gen.oneOf(
        "$",
        "{",
        "}",
        "${",
        "${a}",
        "${A}",
        "${empty}",
        "${LONG}",
        "${flyway:user}",
        "${b}",
        "$$",
        "x",
        "\n",
        "é",
        "😀",
        " "
      )
    )
    .map(_.mkString)

  private def flyway(t: String): Either[String, String] =
    try
      val reader =
        new PlaceholderReplacingReader("${", "}", ":", values.asJava, new StringReader(t))
      val out = new StringWriter
      reader.transferTo(out)
      Right(out.toString)
    catch case e: Exception => Left(e.getMessage)

  private def locate(bytes: Array[Byte])(offset: Long) =
    SyncIO(PlaceholderFilter.position("f.sql", new java.io.ByteArrayInputStream(bytes), offset))

  private def weir(t: String, block: Int): Either[String, String] =
    val bytes = t.getBytes(UTF_8)
    Stream
      .emits(bytes.grouped(block).toSeq)
      .flatMap(b => Stream.chunk(Chunk.array(b)))
      .covary[SyncIO]
      .through(PlaceholderFilter.pipe[SyncIO](values, locate(bytes)))
      .compile
      .to(Array)
      .attempt
      .unsafeRunSync()
      .map(new String(_, UTF_8))
      .left
      .map(_.getMessage)

  property("the same text as Flyway's reader, or a failure where it fails, whatever the blocks") {
    Prop.forAll(text, Gen.choose(1, 9)) { (t, block) =>
      (flyway(t), weir(t, block)) match
        case (Right(expected), got) => assertEquals(got, Right(expected), t)
        case (Left(_), got)         => assert(got.isLeft, s"$t: Flyway failed, weir gave $got")
    }
  }

  test("a placeholder with no value is named at its own line and column (in characters)") {
    assertEquals(
      weir("SELECT 1;\n-- é ${a} then ${Nope}\n", 3),
      Left(
        "f.sql:2:16: no value for the placeholder ${Nope}: Flyway's placeholders are replaced in a directory of Flyway's migration names, as Flyway replaces them; give it a value (weir apply-sql --placeholder Nope=VALUE), or turn replacement off (--no-placeholders) to send the text as it is"
      )
    )
  }

  test("an unknown built-in says which ones there are; a placeholder never closed is named") {
    assert(
      weir("x ${flyway:nope}", 2).left.exists(
        _.startsWith(
          "f.sql:1:3: ${flyway:nope} is not one of Flyway's built-in placeholders (flyway:database, flyway:defaultSchema"
        )
      )
    )
    assertEquals(
      weir("a\n  ${open\nmore", 4),
      Left(
        "f.sql:2:3: unterminated placeholder ${open... (no '}' after it): it begins here and never ends"
      )
    )
  }

  test("a block with no placeholder is passed on as it is, not copied") {
    val block = "INSERT INTO t VALUES (1);\n".getBytes(UTF_8)
    val chunks = Stream
      .chunk(Chunk.array(block))
      .covary[SyncIO]
      .through(PlaceholderFilter.pipe[SyncIO](values, locate(block)))
      .chunks
      .compile
      .toList
      .unsafeRunSync()
    assertEquals(chunks.map(_.toArraySlice.values eq block), List(true))
  }

  test("a position past the first block, after a byte order mark, in characters") {
    val text = "\uFEFF" + "x\n" * 40000 + "é ${nope}\n"
    assertEquals(
      weir(text, 65536).left.map(_.takeWhile(_ != ' ')),
      Left("f.sql:40001:3:")
    )
  }
