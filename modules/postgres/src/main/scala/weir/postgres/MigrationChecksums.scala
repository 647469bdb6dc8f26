package weir.postgres

import cats.effect.Sync
import cats.syntax.all.*
import java.nio.{ByteBuffer, CharBuffer}
import java.nio.charset.{CodingErrorAction, StandardCharsets}
import java.nio.file.{Files, Path}
import java.security.MessageDigest
import java.util.zip.CRC32

/** A migration file's two checksums, from one read of it: the SHA-256 of its bytes (what weir
  * records) and Flyway's checksum (what `flyway_schema_history.checksum` holds: a CRC32 of the
  * file's lines without their line breaks and without a leading byte order mark, as a signed 32-bit
  * number; so CRLF and LF files have the same one), and whether its text holds a `${` (where
  * Flyway's placeholders may be: a file without one is sent as it is, unscanned).
  */
final case class MigrationChecksums(sha256: String, flyway: Int, holdsPlaceholder: Boolean = false)

object MigrationChecksums:

  private val BlockSize = 65536

  /** The checksums of the file at `path`, named `name` in messages; `Left` when it is not valid
    * UTF-8 ([[ApplyError.NotUtf8]], with the byte offset of the first bad sequence). Blocking: one
    * sequential read of the file in 64 KB blocks, constant memory whatever its size. I/O errors are
    * raised.
    */
  def of(path: Path, name: String): Either[ApplyError, MigrationChecksums] =
    val in = Files.newInputStream(path)
    try
      val sums = new Accumulator
      val decoder = StandardCharsets.UTF_8
        .newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT)
      val block = new Array[Byte](BlockSize)
      // Undecoded bytes (at most one incomplete sequence) and the block after them.
      val carry = ByteBuffer.allocate(BlockSize + 8)
      val chars = CharBuffer.allocate(BlockSize + 8)
      var decodedBefore = 0L // the file offset of carry's first byte
      var bad = -1L
      var n = 0
      while n >= 0 && bad < 0 do
        n = in.readNBytes(block, 0, BlockSize)
        val end = n < BlockSize
        sums.update(block, 0, n)
        carry.put(block, 0, n)
        carry.flip()
        val result = decoder.decode(carry, chars, end)
        if result.isError then bad = decodedBefore + carry.position()
        chars.clear()
        decodedBefore += carry.position()
        carry.compact()
        if end then n = -1
      if bad >= 0 then Left(ApplyError.NotUtf8(name, bad))
      else Right(sums.result)
    finally in.close()

  /** The checksums of `bytes` (a file's text as it will be sent: its placeholders replaced, see
    * [[FlywayPlaceholders]]), in constant memory; errors as the stream raises them.
    */
  private[postgres] def of[F[_]: Sync](bytes: fs2.Stream[F, Byte]): F[MigrationChecksums] =
    val sums = new Accumulator
    bytes.chunks
      .foreach { c =>
        Sync[F].delay {
          val slice = c.toArraySlice
          sums.update(slice.values, slice.offset, slice.length)
        }
      }
      .compile
      .drain
      >> Sync[F].delay(sums.result)

  /** Both checksums over bytes given block by block. Flyway's lines: no CR or LF bytes, and no byte
    * order mark at the start (a mark cut by a block is not looked for: files are read in blocks far
    * larger than three bytes, and a stream's first block holds at least its first line's start).
    */
  private final class Accumulator:
    private val digest = MessageDigest.getInstance("SHA-256")
    private val crc = new CRC32
    private var lines = new Array[Byte](BlockSize)
    private var first = true
    private var dollar = false // the byte before was a `$`
    private var placeholder = false

    def update(block: Array[Byte], offset: Int, n: Int): Unit =
      digest.update(block, offset, n)
      var from = offset
      if first && n >= 3 && block(offset) == 0xef.toByte && block(offset + 1) == 0xbb.toByte &&
        block(offset + 2) == 0xbf.toByte
      then from = offset + 3
      if n > 0 then first = false
      if lines.length < n then lines = new Array[Byte](n)
      var kept = 0
      var i = from
      while i < offset + n do
        val b = block(i)
        if b != '\n' && b != '\r' then
          lines(kept) = b
          kept += 1
        if dollar && b == '{' then placeholder = true
        dollar = b == '$'
        i += 1
      crc.update(lines, 0, kept)

    def result: MigrationChecksums =
      MigrationChecksums(
        digest.digest().map(b => f"${b & 0xff}%02x").mkString,
        crc.getValue.toInt,
        placeholder
      )
