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

  private val words = Set("BEGIN", "START", "COMMIT", "END", "ROLLBACK", "ABORT")

  /** How `sql` (a statement as [[SqlSplitter]] cuts it: no leading comments) is treated. Every
    * statement of a file in a transaction is asked: its first word is read without a copy, and only
    * one of those six words costs the patterns (a file of 200 000 `INSERT`s reads 200 000 first
    * letters).
    */
  def of(sql: String): Kind =
    if sql.isEmpty || "BSCERAbscera".indexOf(sql.charAt(0)) < 0 then Kind.Send
    else
      var i = 0
      while i < sql.length && i < 9 && Character.isLetter(sql.charAt(i)) do i += 1
      if i < 3 || i > 8 || !words.contains(sql.substring(0, i).toUpperCase(Locale.ROOT)) then
        Kind.Send
      else
        val head = sql.take(80).trim.replaceAll("\\s+", " ").toUpperCase(Locale.ROOT)
        if begin.matches(head) || commit.matches(head) then Kind.Skip
        else if rollback.matches(head) then Kind.Refuse
        else Kind.Send
