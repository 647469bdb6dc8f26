package weir.cli.common

/** How weir was called: the arguments after `weir`, as the command line gave them. Reports show it
  * so that a reader can make the same run again.
  */
final case class Invocation(args: List[String]):

  /** The command line as a POSIX shell would take it back: `weir` and every argument, quoted with
    * single quotes where it holds anything but letters, digits and `-_./:=,@%+`.
    */
  def commandLine: String = ("weir" :: args.map(Invocation.quote)).mkString(" ")

object Invocation:

  /** An argument quoted for a POSIX shell when it needs to be. */
  def quote(arg: String): String =
    if arg.nonEmpty && arg.forall(c => c.isLetterOrDigit || "-_./:=,@%+".contains(c)) then arg
    else "'" + arg.replace("'", "'\\''") + "'"
