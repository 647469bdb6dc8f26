package weir.postgres

import java.nio.{ByteBuffer, CharBuffer}
import java.nio.charset.{CodingErrorAction, StandardCharsets}
import java.nio.file.{Files, Path}
import java.security.MessageDigest
import java.util.zip.CRC32

/** A migration file's two checksums, from one read of it: the SHA-256 of its bytes (what weir
  * records) and Flyway's checksum (what `flyway_schema_history.checksum` holds: a CRC32 of the
  * file's lines without their line breaks and without a leading byte order mark, as a signed 32-bit
  * number; so CRLF and LF files have the same one).
  */
final case class MigrationChecksums(sha256: String, flyway: Int)

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
      val digest = MessageDigest.getInstance("SHA-256")
      val crc = new CRC32
      val decoder = StandardCharsets.UTF_8
        .newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT)
      val block = new Array[Byte](BlockSize)
      val lines = new Array[Byte](BlockSize)
      // Undecoded bytes (at most one incomplete sequence) and the block after them.
      val carry = ByteBuffer.allocate(BlockSize + 8)
      val chars = CharBuffer.allocate(BlockSize + 8)
      var decodedBefore = 0L // the file offset of carry's first byte
      var first = true
      var bad = -1L
      var n = 0
      while n >= 0 && bad < 0 do
        n = in.readNBytes(block, 0, BlockSize)
        val end = n < BlockSize
        digest.update(block, 0, n)
        // Flyway's lines: no CR or LF bytes, and no byte order mark at the start of the file.
        var from = 0
        if first && n >= 3 && block(0) == 0xef.toByte && block(1) == 0xbb.toByte &&
          block(2) == 0xbf.toByte
        then from = 3
        first = false
        var kept = 0
        var i = from
        while i < n do
          val b = block(i)
          if b != '\n' && b != '\r' then
            lines(kept) = b
            kept += 1
          i += 1
        crc.update(lines, 0, kept)
        carry.put(block, 0, n)
        carry.flip()
        val result = decoder.decode(carry, chars, end)
        if result.isError then bad = decodedBefore + carry.position()
        chars.clear()
        decodedBefore += carry.position()
        carry.compact()
        if end then n = -1
      if bad >= 0 then Left(ApplyError.NotUtf8(name, bad))
      else
        val hex = digest.digest().map(b => f"${b & 0xff}%02x").mkString
        Right(MigrationChecksums(hex, crc.getValue.toInt))
    finally in.close()
