// weir: concurrent task processing on Cats Effect 3 and fs2, measured.
ThisBuild / scalaVersion := "3.3.7"
ThisBuild / organization := "io.weir"
ThisBuild / version := "0.1.0-SNAPSHOT"

// Warnings are fatal in CI (CI=true), advisory at the desk so a half-written file still runs.
ThisBuild / scalacOptions ++= Seq(
  "-Wunused:all",
  "-Wvalue-discard",
  "-deprecation",
  "-feature",
  "-unchecked"
) ++ (if (sys.env.get("CI").contains("true")) Seq("-Werror") else Nil)

val catsEffectVersion = "3.6.3"
val fs2Version = "3.12.2"
val nettyVersion = "4.1.118.Final"
val circeVersion = "0.14.14"

val testDeps = Seq(
  "org.scalameta" %% "munit" % "1.2.1" % Test,
  "org.typelevel" %% "munit-cats-effect" % "2.1.0" % Test,
  "org.scalameta" %% "munit-scalacheck" % "1.2.0" % Test,
  "org.typelevel" %% "cats-effect-testkit" % catsEffectVersion % Test
)

// JDK 23+ warns that Scala 3.3's lazy vals use sun.misc.Unsafe; the flag (unknown before 23) allows it.
val quietUnsafe =
  if (sys.props("java.specification.version").toDouble >= 23)
    Seq("--sun-misc-unsafe-memory-access=allow")
  else Nil

// Tests fork so that runtimes, thread pools and -D flags never leak into sbt itself.
val forkedTests = Seq(
  Test / fork := true,
  Test / javaOptions ++= Seq("-Xmx2g", "-Dcats.effect.tracing.mode=none") ++ quietUnsafe,
  Test / parallelExecution := false
)

lazy val root = project
  .in(file("."))
  .aggregate(core, http, lab, cli, bench)
  .settings(publish / skip := true, name := "weir-root")

// core: the library: sources, strategies, the engine (settings, policies, statistics), runtimes;
// needs only cats-effect and fs2.
lazy val core = project
  .in(file("modules/core"))
  .settings(
    name := "weir-core",
    libraryDependencies ++= Seq(
      "org.typelevel" %% "cats-effect" % catsEffectVersion,
      "co.fs2" %% "fs2-core" % fs2Version
    ) ++ testDeps,
    forkedTests
  )

// http: the delay server (`weir serve`) and the load client (`weir load`), on Netty.
lazy val http = project
  .in(file("modules/http"))
  .dependsOn(core)
  .settings(
    name := "weir-http",
    libraryDependencies ++= Seq(
      "io.netty" % "netty-codec-http" % nettyVersion,
      "io.netty" % "netty-transport-native-epoll" % nettyVersion classifier "linux-x86_64",
      "org.hdrhistogram" % "HdrHistogram" % "2.2.2"
    ) ++ testDeps,
    forkedTests
  )

// lab: the seeds' experiments, not the library: the seed workload and its lanes, the seed's
// published figures, the compare runner and its virtual-time baseline (cats-effect-testkit).
lazy val lab = project
  .in(file("modules/lab"))
  .dependsOn(core)
  .settings(
    name := "weir-lab",
    libraryDependencies ++= Seq(
      // TestControl runs the virtual-time baseline of `weir compare --vs-virtual`.
      "org.typelevel" %% "cats-effect-testkit" % catsEffectVersion
    ) ++ testDeps,
    forkedTests
  )

// cli: the `weir` command (decline options, terminal view, report renderers).
lazy val cli = project
  .in(file("modules/cli"))
  .dependsOn(core, http, lab)
  .enablePlugins(JavaAppPackaging)
  .settings(
    name := "weir-cli",
    executableScriptName := "weir",
    Compile / mainClass := Some("weir.cli.Main"),
    libraryDependencies ++= Seq(
      "com.monovore" %% "decline" % "2.4.0",
      // JSON reports are built and printed by circe, never by hand; the parser reads them back in
      // tests (and into HTML reports).
      "io.circe" %% "circe-core" % circeVersion,
      "io.circe" %% "circe-parser" % circeVersion
    ) ++ testDeps,
    forkedTests,
    Universal / javaOptions ++= Seq("-J-Xss2m"),
    // weir's JVM flags go in only when the user's JAVA_OPTS do not set them: the user's win (a
    // flag in the start script's own options would come after JAVA_OPTS and override it).
    //  - tracing off: virtual threads need it, and weir checks it at start (RuntimePreset).
    //  - `weir load` compiles less into each C2 method: its warm-up costs less CPU, which on two
    //    cores is the server's CPU too, at no cost in steady state (docs/adr/0003-http-stack.md,
    //    "The start of a load").
    //  - `weir load` gets a heap sized to its concurrency (-c N, or auto's maximum): 256 MB plus
    //    10 KB a connection; the JVM's default heap (a quarter of the machine) let its RSS grow to
    //    ~900 MB at c = 5 000 for nothing.
    bashScriptExtraDefines += """
      |weir_sets() { [[ " ${JAVA_OPTS:-} " == *"$1"* ]]; }
      |weir_sets cats.effect.tracing.mode || addJava "-Dcats.effect.tracing.mode=none"
      |if [[ "${1:-}" == load || ( "${1:-}" == -- && "${2:-}" == load ) ]]; then
      |  weir_sets FreqInlineSize || addJava "-XX:FreqInlineSize=50"
      |  weir_sets InlineSmallCode || addJava "-XX:InlineSmallCode=500"
      |  if ! weir_sets -Xmx && ! weir_sets MaxRAM; then
      |    weir_c=100; weir_prev=""
      |    for weir_arg in "$@"; do
      |      case "$weir_prev" in -c|--concurrency) weir_c="$weir_arg" ;; esac
      |      case "$weir_arg" in --concurrency=*) weir_c="${weir_arg#*=}" ;; esac
      |      weir_prev="$weir_arg"
      |    done
      |    case "$weir_c" in auto) weir_c=1000 ;; auto:*..*) weir_c="${weir_c##*..}" ;; esac
      |    if [[ "$weir_c" =~ ^[0-9]+$ ]] && (( weir_c <= 1000000 )); then
      |      addJava "-Xmx$(( 256 + weir_c / 100 ))m"
      |    fi
      |  fi
      |fi
      |""".stripMargin,
    // The staged command needs no Scaladoc; building it would only slow `./weir`'s first start.
    Compile / packageDoc / mappings := Seq.empty
  )

// bench: JMH benchmarks (execution contexts, per-task overhead of strategies); never published.
// Run: ./sbt "bench/Jmh/run -wi 2 -i 3 -f 1 -w 2s -r 1s" (README, "Benchmark results").
lazy val bench = project
  .in(file("modules/bench"))
  .dependsOn(core)
  .enablePlugins(JmhPlugin)
  .settings(name := "weir-bench", publish / skip := true)
