package weir.cli.common

import cats.effect.IO

/** Where commands write: results to stdout, messages and progress to stderr. */
object Console:

  /** True when stderr, where live views draw, is a terminal that takes cursor movement. The `weir`
    * script tells (`WEIR_STDERR_TTY`, from `[ -t 2 ]`); the JVM alone can only tell whether it has
    * a console at all.
    */
  val interactive: Boolean =
    val tty = sys.env.get("WEIR_STDERR_TTY") match
      case Some(flag) => flag == "1"
      case None       => System.console() != null
    tty && !sys.env.get("TERM").contains("dumb")

  /** The terminal's width when known (`WEIR_COLUMNS` from the `weir` script, or `COLUMNS`). */
  val columns: Option[Int] =
    sys.env
      .get("WEIR_COLUMNS")
      .orElse(sys.env.get("COLUMNS"))
      .flatMap(_.trim.toIntOption)
      .filter(_ > 0)

  /** True unless NO_COLOR is set (https://no-color.org). */
  val colour: Boolean = interactive && sys.env.get("NO_COLOR").forall(_.isEmpty)

  def out(text: String): IO[Unit] = IO.blocking(System.out.println(text))

  def error(text: String): IO[Unit] = IO.blocking(System.err.println(text))
