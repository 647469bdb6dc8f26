package weir.postgres

import cats.effect.Sync
import fs2.{Chunk, Stream}
import java.io.InputStream
import java.security.MessageDigest
import weir.Fatal

/** A SQL file's bytes as a stream of blocks, read on cats-effect's blocking pool, each block at
  * most `block` bytes (what one `read` returns: a regular file fills it), counted and fed to the
  * [[FileBlocks.Tally]]'s digest (if any) as it is read.
  *
  * '''One array for every block.''' Each read overwrites the array of the block before it, so a
  * consumer must be done with a block before it pulls the next one, and keep nothing of it but
  * copies: [[SqlSplitter]] is (its lexer copies what it keeps). No buffering or prefetching may
  * stand between the two. A fresh array per block doubled what an apply allocates (the COPY chunks
  * are the other half), and the young collections that follow promote blocks in flight into the old
  * generation, which then stays in the process's memory (docs/adr/0013-apply-sql-speed.md).
  *
  * '''Errors.''' What `open` or a read throws is raised in the stream, fatal errors included: an
  * `OutOfMemoryError` (or any `VirtualMachineError`) while reading is raised as
  * [[weir.WeirError.Fatal]], so that the apply fails and ends instead of losing its reader (fs2's
  * `Files.readAll` would let cats-effect take it, docs/adr/0013-apply-sql-speed.md, "Round 3").
  *
  * '''Cancellation.''' A read is interrupted when the stream is cancelled: a read from a channel
  * ([[java.nio.file.Files.newInputStream]], [[SqlFile.standardInput]]'s) then ends at once instead
  * of holding the cancellation until data comes (Ctrl-C while a pipe's writer is slow).
  *
  * '''Resources.''' The stream is opened when it is run and closed when it ends, fails or is
  * interrupted; each run reads afresh.
  */
private[postgres] object FileBlocks:

  /** What was read so far: its bytes, and their digest when one is given. Updated by the reading
    * stream only; read it once that stream has ended.
    */
  final class Tally(val digest: Option[MessageDigest], parent: Option[Tally] = None):
    private var read = 0L
    private var own = 0L // read from this tally's own file, not from the files it includes
    def bytes: Long = read

    /** A tally for a file read as part of this one (an include): its bytes count here too, its
      * digest is none.
      */
    def including: Tally = Tally(None, Some(this))

    private[FileBlocks] def add(bytes: Array[Byte], n: Int): Unit =
      own += n
      count(bytes, n)

    private def count(bytes: Array[Byte], n: Int): Unit =
      read += n
      digest.foreach(_.update(bytes, 0, n))
      parent.foreach(_.count(bytes, n))

    /** Feeds the digest (if any) the rest of `file`, from where its reading stopped (a `\\q` ended
      * it) to its end, so that the digest is of the whole file, as a checksum made before the apply
      * is; nothing for standard input. Blocking; once the reading stream has ended.
      */
    def digestRest(file: SqlFile): Unit =
      if digest.isDefined && file.onDisk then
        val in = java.nio.file.Files.newInputStream(file.path)
        try
          in.skipNBytes(own)
          val block = new Array[Byte](64 * 1024)
          var n = in.read(block)
          while n >= 0 do
            digest.foreach(_.update(block, 0, n))
            n = in.read(block)
        finally in.close()

  def apply[F[_]](open: => InputStream, block: Int, tally: Tally = Tally(None))(using
      F: Sync[F]
  ): Stream[F, Byte] =
    Stream.bracket(Fatal.blocking(open))(in => F.blocking(in.close())).flatMap { in =>
      val bytes = new Array[Byte](block)
      Stream
        .repeatEval(Fatal.interruptible {
          val n = in.read(bytes, 0, block)
          if n < 0 then None
          else
            tally.add(bytes, n)
            Some(Chunk.array(bytes, 0, n))
        })
        .unNoneTerminate
        .flatMap(Stream.chunk)
    }
