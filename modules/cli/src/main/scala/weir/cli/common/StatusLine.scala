package weir.cli.common

import cats.effect.{IO, Resource}
import cats.syntax.all.*
import fs2.Stream
import scala.concurrent.duration.*

/** One line of live progress on stderr, the way every command shows it: on a terminal the line is
  * redrawn in place (each second, [[every]]); otherwise each line is printed as it comes (every
  * five seconds), so a log keeps them. stdout, where reports go, is never touched.
  */
object StatusLine:

  private val Erase = "\r\u001b[2K" // back to the line's start, and clear it

  /** How often a view should draw: each second on a terminal, every five seconds otherwise. */
  def every: FiniteDuration = if Console.interactive then 1.second else 5.seconds

  /** Shows `text` as the status line. */
  def show(text: String): IO[Unit] =
    if Console.interactive then IO.blocking(System.err.print(Erase + text))
    else Console.error(text)

  /** Prints `text` as a line of its own above the status line (which the next draw puts back). */
  def warn(text: String): IO[Unit] =
    if Console.interactive then IO.blocking(System.err.println(Erase + text))
    else Console.error(text)

  /** Shows each of `lines` while in use (in a fiber of its own); on release, stops them and clears
    * the line, so that what follows starts on a clean line. Nothing at all when not `enabled`.
    */
  def resource(lines: Stream[IO, String], enabled: Boolean = true): Resource[IO, Unit] =
    if !enabled then Resource.unit
    else
      val clear = if Console.interactive then IO.blocking(System.err.print(Erase)) else IO.unit
      Resource.make(lines.evalMap(show).compile.drain.start)(_.cancel >> clear).void
