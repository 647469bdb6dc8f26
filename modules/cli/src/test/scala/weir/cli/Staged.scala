package weir.cli

import java.nio.file.{Files, Path, Paths}
import munit.Assertions.fail
import scala.concurrent.duration.FiniteDuration

/** The staged command (`./sbt cli/stage`, what `./weir` runs: its start script and its
  * lambda-linked jars, project/LambdaLinking.scala), run as a process of its own; build.sbt stages
  * it before cli's tests and names it in `-Dweir.staged`.
  */
object Staged:

  def dir: Path =
    val staged = sys.props.get("weir.staged").map(Paths.get(_))
    staged.filter(d => Files.isExecutable(d.resolve("bin/weir"))).getOrElse {
      fail(s"no staged command at $staged: build.sbt stages it before cli's tests (-Dweir.staged)")
    }

  /** `bin/weir -- args...` on this JVM's JDK (as `./weir` runs it; without the `--` when `direct`),
    * with the options `./weir` gives, `javaOptions` and `env` added; stdout and stderr go to files,
    * which the caller deletes once the process has ended.
    */
  def start(
      args: List[String],
      javaOptions: String,
      env: Map[String, String],
      direct: Boolean = false
  ): (Process, Path, Path) =
    val out = Files.createTempFile("weir-staged-", ".out")
    val err = Files.createTempFile("weir-staged-", ".err")
    val separator = if direct then Nil else List("--")
    val builder = new ProcessBuilder((dir.resolve("bin/weir").toString :: separator ++ args)*)
      .redirectOutput(out.toFile)
      .redirectError(err.toFile)
    val environment = builder.environment
    environment.put("JAVA_HOME", sys.props("java.home"))
    environment.put(
      "JAVA_OPTS",
      s"--sun-misc-unsafe-memory-access=allow --enable-native-access=ALL-UNNAMED $javaOptions".trim
    )
    environment.remove("WEIR_NO_AOT")
    env.foreach(environment.put(_, _))
    (builder.start(), out, err)

  /** Runs it to its end: its exit code, stdout and stderr. A process still running after `hang`
    * fails the test (and is killed).
    */
  def run(
      args: List[String],
      hang: FiniteDuration,
      javaOptions: String = "",
      env: Map[String, String] = Map.empty,
      direct: Boolean = false
  ): (Int, String, String) =
    val (process, out, err) = start(args, javaOptions, env, direct)
    // Deleted once the process has ended (or been killed) and its output read.
    try
      val code = Forked.ended(process, hang, Files.readString(err))
      (code, Files.readString(out), Files.readString(err))
    finally List(out, err).foreach(Files.deleteIfExists)
