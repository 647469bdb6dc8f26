package weir.postgres

import java.util.concurrent.atomic.{AtomicLong, AtomicReference}

/** Live counters of an apply, written by the one fiber that applies and read at any time by a
  * progress view: bytes and lines of the files applied so far (counted when the piece that holds
  * them has been applied, not when it was read), statements, COPY rows, and where it is.
  */
final class ApplyProgress private ():
  private val bytesDone = new AtomicLong
  private val linesDone = new AtomicLong
  private val statementsDone = new AtomicLong
  private val rowsDone = new AtomicLong
  private val totalBytes = new AtomicLong
  private val current = new AtomicReference[Option[SqlPosition]](None)
  // Bytes and lines of the files finished before the current one.
  @volatile private var bytesBefore = 0L
  @volatile private var linesBefore = 0L

  /** Bytes of every file to apply (for the ETA); set before the apply starts. */
  def planned(bytes: Long): Unit = totalBytes.set(bytes)

  def bytes: Long = bytesDone.get
  def lines: Long = linesDone.get
  def statements: Long = statementsDone.get
  def copyRows: Long = rowsDone.get
  def total: Long = totalBytes.get

  /** The statement being applied now (for a COPY, the COPY statement). */
  def at: Option[SqlPosition] = current.get

  private[postgres] def applying(position: SqlPosition): Unit = current.set(Some(position))

  private[postgres] def reached(mark: Mark): Unit =
    bytesDone.set(bytesBefore + mark.bytes)
    linesDone.set(linesBefore + mark.lines)

  private[postgres] def statementsApplied(n: Int): Unit =
    statementsDone.addAndGet(n.toLong): Unit

  private[postgres] def rowsLoaded(n: Long): Unit = rowsDone.addAndGet(n): Unit

  /** The current file is done and was `size` bytes long: the next one counts from here. */
  private[postgres] def fileDone(size: Long): Unit =
    bytesBefore += size
    linesBefore = linesDone.get
    bytesDone.set(bytesBefore)

object ApplyProgress:
  def create(): ApplyProgress = new ApplyProgress()
