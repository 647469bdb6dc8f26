package weir.postgres

import java.util.Locale

/** A file's own transaction control, for a file applied in one transaction (weir's, as `psql -1`
  * applies it). psql sends the file's `BEGIN` (a warning: one is in progress) and its `COMMIT`,
  * which commits the part of the file before it: a later failure then leaves that part applied.
  * weir keeps its promise instead, that a failure leaves nothing of the file: it does not send a
  * file's own `BEGIN`/`START TRANSACTION` or `COMMIT`/`END` (said in a warning), so the whole file
  * stays one transaction, committed at its end (pg_dump writes `BEGIN;` ... `COMMIT;` around large
  * objects' data). A `ROLLBACK`/`ABORT` of the whole transaction is refused: it would discard the
  * part before it and let the rest commit. Savepoints, and `... PREPARED`, are sent as they are.
  */
private[postgres] object OwnTransaction:

  /** What to do with a statement of a file applied in one transaction. */
  enum Kind:
    case Send, Skip, Refuse

  private val begin = "^(BEGIN|START TRANSACTION)\\b.*".r
  private val commit = "^(COMMIT|END)\\b(?! PREPARED\\b).*".r
  private val rollback = "^(ROLLBACK|ABORT)\\b(?! PREPARED\\b)(?!( WORK| TRANSACTION)? TO\\b).*".r

  /** How `sql` (a statement as [[SqlSplitter]] cuts it: no leading comments) is treated. */
  def of(sql: String): Kind =
    val head = sql.take(80).trim.replaceAll("\\s+", " ").toUpperCase(Locale.ROOT)
    if begin.matches(head) || commit.matches(head) then Kind.Skip
    else if rollback.matches(head) then Kind.Refuse
    else Kind.Send
