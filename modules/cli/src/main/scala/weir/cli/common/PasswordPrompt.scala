package weir.cli.common

import cats.effect.IO
import weir.postgres.PgTarget

/** psql's `-W`: the password typed at the terminal, without echo, before connecting. */
object PasswordPrompt:

  /** `target` with the password read from the terminal (`Password for user NAME: `), or why not (to
    * follow the option's name, e.g. `-W`): no terminal (the process's input or output is
    * redirected), or the input ended before a line. The read blocks its thread until Enter; Ctrl-C
    * meanwhile is the command's (a second one quits at once).
    */
  def ask(target: PgTarget): IO[Either[String, PgTarget]] =
    IO.blocking(Option(System.console()).filter(terminal)).flatMap {
      case None =>
        IO.pure(
          Left(
            "asks for the password on a terminal, and there is none here: give it in PGPASSWORD or in ~/.pgpass instead"
          )
        )
      case Some(console) =>
        IO.blocking(Option(console.readPassword("Password for user %s: ", target.user))).map {
          case None        => Left("got no password: the input ended before one was typed")
          case Some(chars) => Right(target.withPassword(Some(String(chars))))
        }
    }

  // JDK 22 and later give a console even when redirected and say whether it is a terminal
  // (`Console.isTerminal`); before, a console exists only on a terminal.
  private def terminal(console: java.io.Console): Boolean =
    try console.getClass.getMethod("isTerminal").invoke(console) == java.lang.Boolean.TRUE
    catch case _: NoSuchMethodException => true
