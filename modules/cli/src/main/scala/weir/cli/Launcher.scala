package weir.cli

import weir.cli.common.FatalExit

/** The `weir` process's entry point (the start script's main class, and the JVMs weir forks):
  * starts the fatal-error watchdog ([[weir.cli.common.FatalExit]]), then runs [[Main]], the
  * cats-effect app (whose `main` is final). Apart from [[Main]] so that tests, which run
  * [[Main.run]] in their own JVM, never install a watchdog that could halt it.
  */
object Launcher:

  def main(args: Array[String]): Unit =
    FatalExit.install()
    Main.main(args)
