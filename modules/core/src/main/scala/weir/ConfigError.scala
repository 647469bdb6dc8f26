package weir

/** A setting that was given a value it cannot take: the one error every `from` and every `withX`
  * that must check a combination of values returns (as a `Left`; none throws). Each case names the
  * setting as the library calls it (`concurrency`, `queue capacity`, `task timeout`...), and its
  * message says what was wrong with what value, for example `concurrency must be positive, got 0`.
  * It is an `Exception`, so that `IO.fromEither` can raise it as it is.
  */
sealed abstract class ConfigError(message: String) extends Exception(message):

  /** The setting that was wrong, as the library names it. */
  def setting: String

object ConfigError:

  /** `setting` must be above zero and was given `value` (as shown in the message). */
  final case class NotPositive(setting: String, value: String)
      extends ConfigError(s"$setting must be positive, got $value")

  /** `setting` must be zero or more and was given `value` (as shown in the message). */
  final case class Negative(setting: String, value: String)
      extends ConfigError(s"$setting must not be negative, got $value")

  /** `setting` must lie within `bounds` (written as `1..256` or `(0, 10]`) and was given `value`.
    */
  final case class OutOfRange(setting: String, value: String, bounds: String)
      extends ConfigError(s"$setting must be in $bounds, got $value")

  /** `setting` is wrong for `reason`, a phrase that follows the setting's name in the message
    * (`Invalid("heartbeat", "(10 s) must be shorter than the lease (5 s)")`): a value that is wrong
    * only together with another one, or in a way the other cases do not name.
    */
  final case class Invalid(setting: String, reason: String) extends ConfigError(s"$setting $reason")

  /** `text`, given as a `setting` (a URL, a delay, a header, a database URI...), cannot be read as
    * one: what every text parser of weir returns. The message is `reason` alone, which quotes what
    * was given and says how it should read (`'soon' is not a duration; write e.g. 250ms, 1.5s`);
    * the string form is the message too, so a caller may put the error in a sentence as it is.
    */
  final case class Unreadable(setting: String, text: String, reason: String)
      extends ConfigError(reason):
    override def toString: String = reason
