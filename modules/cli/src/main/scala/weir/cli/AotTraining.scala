package weir.cli

import java.nio.file.{Files, Path}
import scala.util.control.NonFatal

/** The mark of a good training run for `weir apply-sql`'s start-up cache.
  *
  * The start script records the first apply of a build (`-XX:AOTMode=record`) and passes
  * `-Dweir.aot.succeeded=FILE`; the next apply makes the cache from that recording only when `FILE`
  * exists. [[markSucceeded]] writes it when the command exits with 0, so a run that failed early
  * (no server, a bad file), whose recording holds little of an apply, is recorded again instead of
  * becoming the cache (build.sbt, the start script). Without the property it does nothing; a file
  * that cannot be written is left unwritten (the next run records again).
  */
private[cli] object AotTraining:

  /** The system property the start script sets on a recorded run. */
  val Property = "weir.aot.succeeded"

  /** Marks this run's recording good, if the start script asked for the mark. */
  def markSucceeded(): Unit =
    Option(System.getProperty(Property)).filter(_.nonEmpty).foreach { file =>
      try Files.writeString(Path.of(file), ""): Unit
      catch case NonFatal(_) => ()
    }
