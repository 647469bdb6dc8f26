package weir.cli

import cats.effect.IO

/** Where commands write: results to stdout, messages and progress to stderr. */
object Console:

  /** True when stdout is a terminal that takes colour and cursor movement. */
  val interactive: Boolean = System.console() != null && !sys.env.get("TERM").contains("dumb")

  /** True unless NO_COLOR is set (https://no-color.org). */
  val colour: Boolean = interactive && sys.env.get("NO_COLOR").forall(_.isEmpty)

  def out(text: String): IO[Unit] = IO.blocking(System.out.println(text))

  def error(text: String): IO[Unit] = IO.blocking(System.err.println(text))
