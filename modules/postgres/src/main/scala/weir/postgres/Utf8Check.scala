package weir.postgres

/** UTF-8 validation one byte at a time, for the lexer: the continuation bytes still expected and
  * the range the next one must fall in (RFC 3629: no overlong forms, no surrogates, nothing above
  * U+10FFFF). Not thread-safe: one per lexer, used from one thread.
  */
private[postgres] final class Utf8Check:
  private var need = 0
  private var lo = 0x80
  private var hi = 0xbf

  /** Whether a sequence is open (a byte below 0x80 now would be an error). */
  def pending: Boolean = need > 0

  /** Takes one byte of 0x80 or above; false when it cannot come here. */
  def accept(b: Int): Boolean =
    if need == 0 then
      if b >= 0xc2 && b <= 0xdf then open(1, 0x80, 0xbf)
      else if b == 0xe0 then open(2, 0xa0, 0xbf)
      else if b == 0xed then open(2, 0x80, 0x9f)
      else if b >= 0xe1 && b <= 0xef then open(2, 0x80, 0xbf)
      else if b == 0xf0 then open(3, 0x90, 0xbf)
      else if b >= 0xf1 && b <= 0xf3 then open(3, 0x80, 0xbf)
      else if b == 0xf4 then open(3, 0x80, 0x8f)
      else false
    else if b < lo || b > hi then false
    else
      need -= 1; lo = 0x80; hi = 0xbf
      true

  private def open(bytes: Int, low: Int, high: Int): Boolean =
    need = bytes; lo = low; hi = high
    true
