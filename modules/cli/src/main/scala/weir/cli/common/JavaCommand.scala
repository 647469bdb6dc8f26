package weir.cli.common

import java.nio.file.Paths

/** The command line of a fresh JVM like this one, for the commands that fork one (`weir runtimes`'
  * probes, `weir queue torture`'s workers): the same `java`, this JVM's class path, cats-effect's
  * tracing off (virtual threads need it; every child gets it so that all are alike), and on JDK 23
  * or later the flag that keeps Scala 3's use of `sun.misc.Unsafe` from warning on stderr.
  */
object JavaCommand:

  /** `java [quiet] -Dcats.effect.tracing.mode=none options... -cp CLASSPATH main args...`. */
  def apply(options: List[String], main: String, args: List[String]): List[String] =
    val java = Paths.get(System.getProperty("java.home"), "bin", "java").toString
    val quiet =
      if Runtime.version().feature() >= 23 then List("--sun-misc-unsafe-memory-access=allow")
      else Nil
    List(java) ++ quiet ++ ("-Dcats.effect.tracing.mode=none" :: options) ++
      List("-cp", System.getProperty("java.class.path"), main) ++ args
