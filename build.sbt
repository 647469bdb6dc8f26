// weir: concurrent task processing on Cats Effect 3 and fs2, measured.
ThisBuild / scalaVersion := "3.3.7"
ThisBuild / organization := "io.weir"
ThisBuild / version := "0.1.0-SNAPSHOT"

// The repository's public address (https://host/owner/weir), the one thing publishing metadata
// still needs: none is invented here. Until the project has one, give it when publishing, as
// `./sbt -Dweir.homepage=https://... publish` or WEIR_HOMEPAGE=https://...; without it the POM has
// no homepage and no scm section.
val publicAddress: Option[String] =
  sys.props.get("weir.homepage").orElse(sys.env.get("WEIR_HOMEPAGE")).map(_.trim).filter(_.nonEmpty)

// Publishing metadata (weir as a dependency): Apache-2.0 (LICENSE), early semver (a 0.x minor may
// break binary compatibility, a patch never).
ThisBuild / description := "Concurrent task processing on Cats Effect 3 and fs2, measured: strategies, one engine, a streaming SQL applier and a durable queue on PostgreSQL."
ThisBuild / licenses := Seq("Apache-2.0" -> url("https://www.apache.org/licenses/LICENSE-2.0.txt"))
ThisBuild / versionScheme := Some("early-semver")
ThisBuild / homepage := publicAddress.map(url)
ThisBuild / scmInfo := publicAddress.map { address =>
  val repo = address.stripSuffix("/").stripSuffix(".git")
  ScmInfo(url(repo), s"scm:git:$repo.git")
}
// The team, as the repository's commits name it (git log's author); its page is the public address
// once there is one, its mail until then.
ThisBuild / developers := List {
  val email = "maintainers@users.noreply.a-seed-a8b7c2f0.example"
  Developer("maintainers", "weir maintainers", email, url(publicAddress.getOrElse(s"mailto:$email")))
}

// MiMa (binary compatibility) for the library modules: each is checked against the latest release
// of the same early-semver line (0.x.* for 0.x, N.* from 1.0): the newest `vX.Y.Z` git tag below
// this version, or -Dweir.mima.previous=X.Y.Z. No tag exists yet, so there is nothing to compare
// with and `mimaReportBinaryIssues` passes; from the first tag on it fails on a break in a patch.
def mimaPrevious(version: String, base: File): Option[String] = {
  def parts(v: String) =
    v.takeWhile(c => c.isDigit || c == '.').split('.').toList.filter(_.nonEmpty).map(_.toInt)
  def line(v: List[Int]) = v match { case 0 :: minor :: _ => List(0, minor); case v => v.take(1) }
  def below(a: List[Int], b: List[Int]) =
    a.zipAll(b, 0, 0).find(p => p._1 != p._2).exists(p => p._1 < p._2)
  val current = parts(version)
  def tagged = scala.util
    .Try(scala.sys.process.Process(Seq("git", "tag", "--list", "v[0-9]*"), base).!!.linesIterator.toList)
    .getOrElse(Nil)
    .map(_.trim.stripPrefix("v"))
    .filter(v => v.nonEmpty && v.forall(c => c.isDigit || c == '.'))
    .filter(v => line(parts(v)) == line(current) && below(parts(v), current))
    .sortWith((a, b) => below(parts(a), parts(b)))
  sys.props.get("weir.mima.previous").orElse(tagged.lastOption)
}
ThisBuild / mimaFailOnNoPrevious := false
val mima = Seq(
  mimaPreviousArtifacts := mimaPrevious(version.value, (ThisBuild / baseDirectory).value)
    .map(v => organization.value %% moduleName.value % v)
    .toSet
)

// The library modules run on Java 17 (the virtual-thread runtime reaches JDK 21's API by
// reflection): compiled against 17's API, so a call to a newer one fails the build.
val java17 = Seq(scalacOptions ++= Seq("-java-output-version", "17"))

// Scaladoc links into cats-effect and fs2 ([[cats.effect.kernel.Resource]], [[fs2.Stream]]) lead to
// the Scaladoc each of their jars is published with (its -javadoc jar, served by javadoc.io), of the
// very version weir compiles against, so that pages and anchors match. Scala 3's scaladoc takes
// `-external-mappings` (a regex over the jar a symbol comes from, the tool that made the docs, their
// address); sbt 1's `apiMappings` and `autoAPIMappings` pass Scala 2's `-doc-external-doc`, hence
// the option by hand.
def apiLinks(versions: (String, String)*) = Seq(
  Compile / doc / scalacOptions += versions
    .map { case (artifact, version) =>
      val (group, name) = artifact.span(_ != ':')
      raw".*/${name.drop(1)}_3-[^/]*\.jar.*::scaladoc3::https://www.javadoc.io/doc/$group/${name.drop(1)}_3/$version/"
    }
    .mkString("-external-mappings:", ",", "")
)

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
val doobieVersion = "1.0.0-RC11"
val log4catsVersion = "2.7.1"
// The OpenTelemetry Java API (and, in tests, its SDK), one version for all its artifacts as the
// opentelemetry-bom of that version aligns them.
val openTelemetryVersion = "1.68.0"
// otel4s: the one version the registry serves (docs/adr/0011-otel-metrics.md); it brings cats-effect
// 3.7.0 and OpenTelemetry Java 1.61.0, for the users of weir-queue-otel4s alone.
val otel4sVersion = "0.16.0"
val otel4sOpenTelemetryVersion = "1.61.0"

// The library modules' Scaladoc links into cats-effect and fs2 (apiLinks, above).
val linked = apiLinks(
  "org.typelevel:cats-effect-kernel" -> catsEffectVersion,
  "org.typelevel:cats-effect-std" -> catsEffectVersion,
  "org.typelevel:cats-effect" -> catsEffectVersion,
  "co.fs2:fs2-core" -> fs2Version,
  "co.fs2:fs2-io" -> fs2Version
)

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

// examplesCheck: weir as a dependency, checked the way a user's build would use it: publishes the
// library modules to the local Ivy repository, then compiles the separate build in examples/ against
// them and runs its core program (the README's test command runs it after the tests).
val http4sVersion = "0.23.33"

lazy val examplesCheck = taskKey[Unit]("Publish the library modules locally, then build and run examples/ against them")

lazy val root = project
  .in(file("."))
  .aggregate(core, http, postgres, queueCirce, queueOtel, queueOtel4s, queueUi, lab, cli, bench, docs)
  .settings(
    publish / skip := true,
    name := "weir-root",
    examplesCheck := {
      val _ = (
        (core / publishLocal).value,
        (http / publishLocal).value,
        (postgres / publishLocal).value,
        (queueCirce / publishLocal).value,
        (queueOtel / publishLocal).value,
        (queueOtel4s / publishLocal).value,
        (queueUi / publishLocal).value
      )
      val base = (ThisBuild / baseDirectory).value
      val command = Seq((base / "sbt").toString, "-Dsbt.supershell=false", "compile", "runMain examples.CoreExample")
      val code = scala.sys.process.Process(command, base / "examples").!
      if (code != 0) sys.error(s"the examples/ build failed (exit $code): see its output above")
    }
  )

// core: the library: sources, weir's own strategies, the engine (settings, policies, statistics),
// runtimes; needs only cats-effect and fs2.
lazy val core = project
  .in(file("modules/core"))
  .settings(java17, mima, linked)
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
  .settings(java17, mima, linked)
  .settings(
    name := "weir-http",
    libraryDependencies ++= Seq(
      "io.netty" % "netty-codec-http" % nettyVersion,
      "io.netty" % "netty-codec-http2" % nettyVersion,
      "io.netty" % "netty-transport-native-epoll" % nettyVersion classifier "linux-x86_64",
      // BoringSSL, the client's default TLS engine where it loads (docs/adr/0012-tls.md): Netty
      // 4.1.118 was built against tcnative 2.0.70; 2.0.74 is the closest that the registry serves.
      "io.netty" % "netty-tcnative-classes" % "2.0.74.Final",
      // Only the Linux x86-64 native library: its POM would bring every platform's (2-4 MB each).
      ("io.netty" % "netty-tcnative-boringssl-static" % "2.0.74.Final" classifier "linux-x86_64")
        .intransitive(),
      "org.hdrhistogram" % "HdrHistogram" % "2.2.2"
    ) ++ testDeps,
    forkedTests
  )

// postgres: PostgreSQL on pgjdbc: the streaming SQL splitter, `weir apply-sql`'s applier, migrations.
lazy val postgres = project
  .in(file("modules/postgres"))
  .dependsOn(core)
  .settings(java17, mima, linked)
  .settings(
    name := "weir-postgres",
    libraryDependencies ++= Seq(
      // The only mature JVM driver with streaming COPY FROM STDIN (docs/adr/0005-postgres-driver.md).
      "org.postgresql" % "postgresql" % "42.7.8",
      // SQL files are read as streams of blocks.
      "co.fs2" %% "fs2-io" % fs2Version,
      // WorkerLog: a worker's events logged through the user's log4cats Logger (no backend here).
      "org.typelevel" %% "log4cats-core" % log4catsVersion
    ) ++ testDeps ++ Seq(
      // Transactional enqueue from the application's own stack, tested with the clients users have.
      "org.tpolecat" %% "doobie-core" % doobieVersion % Test,
      "org.tpolecat" %% "doobie-postgres" % doobieVersion % Test,
      "org.tpolecat" %% "skunk-core" % "0.6.5" % Test,
      "com.zaxxer" % "HikariCP" % "7.1.0" % Test,
      // Migrations taken over from Flyway, and Flyway's own results compared with weir's.
      "org.flywaydb" % "flyway-core" % "13.12.1" % Test,
      "org.flywaydb" % "flyway-database-postgresql" % "13.12.1" % Test
    ),
    forkedTests
  )

// queueCirce: JobCodec instances for the queue's typed jobs from circe's Encoder and Decoder.
lazy val queueCirce = project
  .in(file("modules/queue-circe"))
  .dependsOn(postgres % "compile->compile;test->test")
  .settings(java17, mima, linked)
  .settings(
    name := "weir-queue-circe",
    libraryDependencies ++= Seq(
      "io.circe" %% "circe-core" % circeVersion,
      "io.circe" %% "circe-parser" % circeVersion
    ) ++ testDeps,
    forkedTests
  )

// queueOtel: a worker's metrics as OpenTelemetry instruments, on the OpenTelemetry Java API (which
// otel4s's oteljava backend wraps: docs/adr/0011-otel-metrics.md); the SDK only in its tests.
lazy val queueOtel = project
  .in(file("modules/queue-otel"))
  .dependsOn(postgres % "compile->compile;test->test")
  .settings(java17, mima, linked)
  .settings(
    name := "weir-queue-otel",
    libraryDependencies ++= Seq(
      "io.opentelemetry" % "opentelemetry-api" % openTelemetryVersion,
      "io.opentelemetry" % "opentelemetry-sdk" % openTelemetryVersion % Test,
      "io.opentelemetry" % "opentelemetry-sdk-testing" % openTelemetryVersion % Test
    ) ++ testDeps,
    forkedTests
  )

// queueOtel4s: the same metrics through otel4s's Meter[F] (otel4s-core-metrics, no backend); in its
// tests, otel4s's oteljava backend over the OpenTelemetry SDK and its in-memory reader. The module's
// users get otel4s's cats-effect (3.7.0, binary compatible with weir's 3.6.3).
lazy val queueOtel4s = project
  .in(file("modules/queue-otel4s"))
  .dependsOn(postgres % "compile->compile;test->test")
  .settings(java17, mima, linked)
  .settings(
    name := "weir-queue-otel4s",
    libraryDependencies ++= Seq(
      "org.typelevel" %% "otel4s-core-metrics" % otel4sVersion,
      "org.typelevel" %% "otel4s-oteljava" % otel4sVersion % Test,
      "io.opentelemetry" % "opentelemetry-sdk-testing" % otel4sOpenTelemetryVersion % Test
    ) ++ testDeps,
    forkedTests
  )

// queueUi: the queue in a browser (`weir queue ui`), as http4s routes a user mounts in their own
// server (http4s-server and -dsl, no backend: the cli serves them with Ember); in its tests,
// Selenium drives Debian's chromium through chromedriver.
lazy val queueUi = project
  .in(file("modules/queue-ui"))
  .dependsOn(postgres % "compile->compile;test->test")
  .settings(java17, mima, linked)
  .settings(
    name := "weir-queue-ui",
    libraryDependencies ++= Seq(
      "org.http4s" %% "http4s-server" % http4sVersion,
      "org.http4s" %% "http4s-dsl" % http4sVersion,
      "org.http4s" %% "http4s-ember-server" % http4sVersion % Test,
      "org.seleniumhq.selenium" % "selenium-java" % "4.52.0" % Test
    ) ++ testDeps,
    forkedTests
  )

// lab: the seeds' experiments, not the library: the seed's strategies and its deadlock (with the
// registry `weir compare` reads), the seed workload and its lanes, the seed's published figures,
// the compare runner and its virtual-time baseline (cats-effect-testkit), and seed 004's runtime
// probe (`weir runtimes`' bursts, measurement and published figures). Its tests run core's
// strategy suites on the seed's strategies (core's test classes, hence test->test).
lazy val lab = project
  .in(file("modules/lab"))
  .dependsOn(core % "compile->compile;test->test")
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
  .dependsOn(core, http % "compile->compile;test->test", postgres % "compile->compile;test->test", lab, queueUi)
  .enablePlugins(JavaAppPackaging)
  .settings(
    name := "weir-cli",
    executableScriptName := "weir",
    Compile / mainClass := Some("weir.cli.Launcher"),
    libraryDependencies ++= Seq(
      "com.monovore" %% "decline" % "2.4.0",
      // JSON reports are built and printed by circe, never by hand; the parser reads them back in
      // tests (and into HTML reports).
      "io.circe" %% "circe-core" % circeVersion,
      "io.circe" %% "circe-parser" % circeVersion,
      // `weir worker --metrics`: Prometheus text served by http4s's Ember server.
      "org.http4s" %% "http4s-ember-server" % http4sVersion,
      // Ember logs through log4cats-slf4j; the command prints its own messages, so SLF4J's output
      // is dropped (and its "no binding" warning with it).
      "org.slf4j" % "slf4j-nop" % "1.7.36",
      // `weir apply-sql --flyway-config flyway.toml`: Flyway 10's configuration read by Jackson's
      // TOML reader, the one Flyway's own command line reads it with.
      "com.fasterxml.jackson.dataformat" % "jackson-dataformat-toml" % "2.23.0",
      // `weir serve --tls` makes a self-signed certificate in the process (the JDK has no public API
      // for it; Netty's SelfSignedCertificate needs BouncyCastle on JDK 17+ too).
      "org.bouncycastle" % "bcpkix-jdk18on" % "1.82"
    ) ++ testDeps,
    forkedTests,
    // weir.cli.common.BuildInfo: the version and commit that HTML reports say they were made with
    // (in `common`, beside Provenance, its one reader: `common` imports nothing from `weir.cli`).
    Compile / sourceGenerators += Def.task {
      val file = (Compile / sourceManaged).value / "weir" / "cli" / "common" / "BuildInfo.scala"
      def git(args: String*) =
        scala.util.Try(scala.sys.process.Process("git" +: args, (ThisBuild / baseDirectory).value).!!.trim)
      val commit = git("rev-parse", "--short", "HEAD").getOrElse("unknown")
      val changed = git("status", "--porcelain", "--untracked-files=no").map(_.nonEmpty).getOrElse(false)
      val text =
        s"""package weir.cli.common
           |
           |/** Generated by build.sbt at compile time. */
           |object BuildInfo:
           |  /** weir's version (build.sbt). */
           |  val version: String = "${version.value}"
           |
           |  /** The commit the build was made from, with `+changes` when files differed from it. */
           |  val commit: String = "$commit${if (changed) "+changes" else ""}"
           |""".stripMargin
      // Written only when it differs, so that an unchanged build does not recompile it.
      if (!file.exists || IO.read(file) != text) IO.write(file, text)
      Seq(file)
    }.taskValue,
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
    //  - `weir load` starts from a JDK 25 AOT cache of its classes, one per JAVA_OPTS and JDK, when
    //    one was trained for this build: WEIR_TRAIN_LOAD=1 trains it first (./weir does, once a
    //    build, after building): weir.cli.LoadTraining, recorded, runs a second of each protocol
    //    against weir's own server, then the cache is made from it. Never at a user's load by
    //    surprise: a training takes ~20 s. A 2 000-request load 3.3-3.5 -> 2.1-2.7 s, a 15 s one
    //    ~1 s sooner, the same rate. Without the JIT's training data: replayed, it made the
    //    steady state slower (HTTPS, c = 1 000: ~9 % fewer requests a second) for the same start
    //    (docs/adr/0012-tls.md, the last addendum). WEIR_NO_AOT=1 turns it off.
    //  - `weir worker --until-empty` is a drain that ends: C1 only, since in a burn-down of seconds
    //    C2's compilations cost more CPU than they save (100 000 jobs: 48 k against 33 k jobs/s),
    //    while 1-2 M-job drains lose 6-9 % (README, "At scale"; docs/adr/0006-durable-queue.md).
    //    A worker that serves until stopped keeps the default JIT.
    //  - `weir apply-sql` is a short JVM run beside a server that needs the cores: a serial GC, C1
    //    only (C2's compilations cost more CPU than they save in a run of seconds), no
    //    `java -version` probe, and a JDK 25 AOT cache, one per JAVA_OPTS and JDK (a cache only
    //    loads under the options it was made with): the first apply of a build (not `--help`) is
    //    recorded (`-XX:AOTMode=record`, the JVM's messages off), and marks its recording good when
    //    it succeeds (`weir.cli.AotTraining`); the next apply makes the cache from a good recording,
    //    its output discarded, and uses it; a failed apply (no server, a bad file) is not kept and
    //    the next one is recorded instead. Why not `-XX:AOTCacheOutput` (one step): the JVM it
    //    forks at exit printed six lines to the user's terminal, one of them the whole class path
    //    (5 KB), and it made a cache from whatever ran first, a refused connection included.
    //    WEIR_NO_AOT=1 turns it off. The JVM's own log is off: it would print into stdout's report
    //    (docs/adr/0005-postgres-driver.md). A 64 MB heap unless JAVA_OPTS sizes one (any file
    //    applies in it; the JVM's default, a quarter of the machine, let the RSS grow to 250 MB),
    //    and a young generation of 10 MB (eden 6 MB, survivors 2 MB: the COPY chunks in flight at
    //    --prefetch 2 fit in one) unless JAVA_OPTS sizes the heap or the young generation: the
    //    RSS of an apply 10-13 MB lower (the 116 MB COPY file 103 MB, the 1.2 GB one 105-108 MB
    //    against 115-116), the same wall time;
    //    an AOT cache without the JIT's training data (C1 alone makes little of it, and a cache
    //    trained on a large file had every later apply compile that file's methods at start: a
    //    one-statement apply 100 -> 94 MB, the COPY file 104 -> 102 MB, the same CPU);
    //    BouncyCastle's signed jars (`weir serve --tls` alone uses them) off the class path:
    //    9 MB less RSS with the AOT cache (docs/adr/0013-apply-sql-speed.md);
    //    and no compilation larger than 2 MB of the compiler's arena memory (JDK 22's
    //    `-XX:CompileCommand=MemLimit`: such a method stays in the interpreter) unless JAVA_OPTS
    //    names `MemLimit` or `IOFiber`: the JVM keeps a compilation's arena to the end of a run of
    //    seconds. C1 compiled cats-effect's run loop (`IOFiber.runLoop`) with 10.8 MB (every other
    //    compilation of a COPY apply took under 1.7 MB, `-XX:CompileCommand=MemStat`), the apply's
    //    step (`ApplyHandler.apply`) with 4.4 MB and pgjdbc's `processResults` with 3.7 MB on a file
    //    of many statements. An apply steps the first two once per 256 KB chunk or batch of statements
    //    and runs the third once per round trip:
    //    the RSS of the large files falls by 9 MB (the run loop; round 9), and that of 200 000
    //    statements by 2 MB more (round 17), for about 2 % more time on that file
    //    (docs/adr/0013-apply-sql-speed.md). The run loop is not even tried (a compilation stops
    //    only past its limit); on a JDK before 22 it alone is left out.
    bashScriptExtraDefines += """
      |weir_sets() { [[ " ${JAVA_OPTS:-} " == *"$1"* ]]; }
      |# The start-up caches (JDK 25 AOT caches) of `load` and `apply-sql`, below. A command's cache
      |# file: one per JAVA_OPTS and JDK, since a cache loads only under the options it was made with.
      |weir_aot_file() { echo "$app_home/../$1-$(printf '%s' "${JAVA_OPTS:-}|${JAVA_HOME:-}" | cksum | cut -d' ' -f1).aot"; }
      |# True when FILE exists and no jar is newer: it was made for this build.
      |weir_current() { [[ -f "$1" && -z "$(find "$lib_dir" -newer "$1" -print -quit)" ]]; }
      |# The JDK's major version from its `release` file (no JVM started), empty when it is not found.
      |weir_java_major() {
      |  local weir_home weir_line
      |  if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]]; then weir_home="$JAVA_HOME"
      |  else
      |    weir_home="$(readlink -f "$(command -v java 2>/dev/null)" 2>/dev/null)" || return 0
      |    weir_home="${weir_home%/bin/java}"
      |  fi
      |  [[ -f "$weir_home/release" ]] || return 0
      |  while IFS= read -r weir_line; do
      |    if [[ "$weir_line" == JAVA_VERSION=\"* ]]; then
      |      weir_line="${weir_line#JAVA_VERSION=\"}"; echo "${weir_line%%[.\"]*}"; return 0
      |    fi
      |  done < "$weir_home/release"
      |}
      |# True unless WEIR_NO_AOT is set, JAVA_OPTS names a cache of its own, or the JDK is older than
      |# 25 (it ignores the cache's options: each run would record again, and say so).
      |weir_aot_wanted() {
      |  [[ -z "${WEIR_NO_AOT:-}" ]] && ! weir_sets AOTCache && ! weir_sets AOTMode && ! weir_sets AOTConfiguration || return 1
      |  [[ -z "$weir_major" || "$weir_major" -ge 25 ]]
      |}
      |weir_major="$(weir_java_major)"
      |# JDK 23+ warns on stderr that Scala 3.3's lazy vals use sun.misc.Unsafe, and 24+ that Netty's
      |# epoll loads a native library; the flags (unknown before 23) allow both. ./weir sets them too.
      |if [[ "${weir_major:-0}" -ge 23 ]]; then
      |  weir_sets sun-misc-unsafe-memory-access || addJava "--sun-misc-unsafe-memory-access=allow"
      |  weir_sets enable-native-access || addJava "--enable-native-access=ALL-UNNAMED"
      |fi
      |# A cache of classes without the JIT's training data and without method adapters, unless
      |# JAVA_OPTS names the flags (diagnostic flags, which a JDK before 25 does not know: it ignores them).
      |weir_cache_flags() {
      |  weir_sets AOTRecordTraining || weir_sets AOTReplayTraining || {
      |    addJava "-XX:+IgnoreUnrecognizedVMOptions"
      |    addJava "-XX:+UnlockDiagnosticVMOptions"
      |    addJava "-XX:-AOTRecordTraining"
      |    addJava "-XX:-AOTReplayTraining"
      |  }
      |  # JDK 25.0.3 stores method adapters in a cache and, using it, fails to link some of them,
      |  # printing six warnings at every start (on stdout, before a load's report or JSON).
      |  weir_sets AOTAdapterCaching || {
      |    addJava "-XX:+IgnoreUnrecognizedVMOptions"
      |    addJava "-XX:+UnlockDiagnosticVMOptions"
      |    addJava "-XX:-AOTAdapterCaching"
      |  }
      |}
      |weir_sets cats.effect.tracing.mode || addJava "-Dcats.effect.tracing.mode=none"
      |# The JVM's own warnings on stderr, not on stdout where reports and JSON go.
      |weir_sets Xlog || addJava "-Xlog:all=warning:stderr"
      |# From a command's name on, every argument is weir's: the packager's script would otherwise take
      |# -h, -d and -v for itself (help, debug, verbose), which are psql's -h, -d and -v to apply-sql.
      |# Its own options (JVM flags, -java-home...) still work before the command; `--` as before.
      |case "${1:-}" in
      |  ""|--|-J*|-D*|-XX*|-agentlib*|-agentpath*|-javaagent*|-jvm-debug|-java-home|-main|-no-version-check|-v|-verbose|-d|-debug) ;;
      |  *) set -- -- "$@" ;;
      |esac
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
      |  weir_cache_flags
      |  weir_aot="${WEIR_LOAD_AOT_CACHE:-$(weir_aot_file load)}"
      |  if weir_aot_wanted; then
      |    if weir_current "$weir_aot"; then
      |      # An empty file: this JDK made none; not tried again for this build.
      |      [[ -s "$weir_aot" ]] && addJava "-XX:AOTCache=$weir_aot"
      |    elif [[ -n "${WEIR_TRAIN_LOAD:-}" && -w "$(dirname "$weir_aot")" ]]; then
      |      # A JDK without AOT caches (before 24) refuses the flag at once; an empty file: not tried again.
      |      if ! "$(get_java_cmd)" -XX:AOTMode=off -version >/dev/null 2>&1; then
      |        : > "$weir_aot"
      |        echo "weir load: no start-up cache on this JDK (it takes JDK 25 or later)" >&2
      |      else
      |        echo "weir load: training its start-up cache on weir's own server (once a build, about 20 s)" >&2
      |        # Ctrl-C meanwhile: no half-made cache, no load.
      |        trap 'rm -f "$weir_aot.$$" "$weir_aot.$$.conf"' EXIT
      |        trap 'weir_interrupted=1' INT
      |        if "$(get_java_cmd)" ${JAVA_OPTS:-} "${java_args[@]}" -XX:AOTMode=record -XX:AOTConfiguration="$weir_aot.$$.conf" \
      |            -cp "$app_classpath" weir.cli.LoadTraining >/dev/null 2>&1 && [[ -z "${weir_interrupted:-}" ]] \
      |          && "$(get_java_cmd)" ${JAVA_OPTS:-} "${java_args[@]}" -XX:AOTMode=create -XX:AOTConfiguration="$weir_aot.$$.conf" \
      |            -XX:AOTCache="$weir_aot.$$" -cp "$app_classpath" >/dev/null 2>&1; then
      |          mv -f "$weir_aot.$$" "$weir_aot" && addJava "-XX:AOTCache=$weir_aot"
      |        elif [[ -z "${weir_interrupted:-}" ]]; then
      |          : > "$weir_aot"
      |          echo "weir load: its start-up cache could not be made (the training failed); going on without one" >&2
      |        fi
      |        rm -f "$weir_aot.$$" "$weir_aot.$$.conf"
      |        trap - EXIT INT
      |        if [[ -n "${weir_interrupted:-}" ]]; then
      |          echo "weir load: interrupted; nothing loaded" >&2
      |          exit 130
      |        fi
      |      fi
      |    fi
      |  fi
      |fi
      |if [[ "${1:-}" == worker || ( "${1:-}" == -- && "${2:-}" == worker ) ]] && [[ " $* " == *" --until-empty "* ]]; then
      |  weir_sets TieredStopAtLevel || addJava "-XX:TieredStopAtLevel=1"
      |fi
      |if [[ "${1:-}" == apply-sql || ( "${1:-}" == -- && "${2:-}" == apply-sql ) ]]; then
      |  no_version_check=1
      |  weir_sets GC || addJava "-XX:+UseSerialGC"
      |  weir_sets TieredStopAtLevel || addJava "-XX:TieredStopAtLevel=1"
      |  addJava "-XX:+IgnoreUnrecognizedVMOptions"
      |  weir_cache_flags
      |  weir_sets Xlog || addJava "-Xlog:disable"
      |  addJava "-XX:+DisplayVMOutputToStderr"
      |  weir_sets -Xmx || weir_sets MaxRAM || addJava "-Xmx64m"
      |  weir_sets -Xmn || weir_sets NewSize || weir_sets -Xms || weir_sets NewRatio || {
      |    addJava "-Xmn10m"
      |    weir_sets SurvivorRatio || addJava "-XX:SurvivorRatio=3"
      |  }
      |  # The largest compilation, cats-effect's run loop, not tried; no other may hold more than 2 MB
      |  # of the compiler's memory (JDK 22 and later).
      |  weir_sets IOFiber || weir_sets MemLimit || {
      |    addJava "-XX:CompileCommand=quiet"
      |    addJava "-XX:CompileCommand=exclude,cats.effect.IOFiber::runLoop"
      |    [[ "${weir_major:-0}" -lt 22 ]] || addJava "-XX:CompileCommand=MemLimit,*.*,2m"
      |  }
      |  fix_classpath() {
      |    local IFS=: weir_jar weir_kept=()
      |    for weir_jar in $1; do [[ "$weir_jar" == */org.bouncycastle.* ]] || weir_kept+=("$weir_jar"); done
      |    echo "${weir_kept[*]}"
      |  }
      |  weir_aot="${WEIR_AOT_CACHE:-$(weir_aot_file apply-sql)}"
      |  if weir_aot_wanted; then
      |    if weir_current "$weir_aot"; then
      |      addJava "-XX:AOTCache=$weir_aot"
      |    elif [[ -w "$(dirname "$weir_aot")" && " $* " != *" --help "* ]]; then
      |      weir_recorded=""
      |      for weir_ok in "$weir_aot".*.ok; do
      |        if weir_current "$weir_ok" && [[ -f "${weir_ok%.ok}.conf" ]]; then
      |          weir_recorded="${weir_ok%.ok}"
      |          break
      |        fi
      |      done
      |      if [[ -n "$weir_recorded" ]]; then
      |        echo "weir apply-sql: making its start-up cache from an earlier apply (once for this build, a few seconds)" >&2
      |        # Ctrl-C meanwhile (the JVM may finish the cache first): no half-made cache, no apply.
      |        trap 'rm -f "$weir_aot.$$"' EXIT
      |        trap 'weir_interrupted=1' INT
      |        if "$(get_java_cmd)" ${JAVA_OPTS:-} "${java_args[@]}" -XX:AOTMode=create -XX:AOTConfiguration="$weir_recorded.conf" \
      |          -XX:AOTCache="$weir_aot.$$" -cp "$(fix_classpath "$app_classpath")" >/dev/null 2>&1; then
      |          mv -f "$weir_aot.$$" "$weir_aot" && addJava "-XX:AOTCache=$weir_aot"
      |        fi
      |        rm -f "$weir_aot.$$" "$weir_aot".*.conf "$weir_aot".*.ok
      |        trap - EXIT INT
      |        if [[ -n "${weir_interrupted:-}" ]]; then
      |          echo "weir apply-sql: interrupted; nothing applied" >&2
      |          exit 130
      |        fi
      |      else
      |        for weir_conf in "$weir_aot".*.conf; do [[ -f "${weir_conf%.conf}.ok" ]] || rm -f "$weir_conf"; done
      |        echo "weir apply-sql: first run of this build: recording it, for a start-up cache that the next run makes from it ($weir_aot)" >&2
      |        addJava "-XX:AOTMode=record"
      |        addJava "-XX:AOTConfiguration=$weir_aot.$$.conf"
      |        addJava "-XX:+UnlockDiagnosticVMOptions"
      |        addJava "-XX:-DisplayVMOutput"
      |        addJava "-Dweir.aot.succeeded=$weir_aot.$$.ok"
      |      fi
      |    fi
      |  fi
      |fi
      |""".stripMargin,
    // The staged command needs no Scaladoc; building it would only slow `./weir`'s first start.
    Compile / packageDoc / mappings := Seq.empty,
    // The staged command's jars with their Scala lambdas on `LambdaMetafactory.metafactory`, the
    // one a JDK 25 AOT cache keeps: `weir apply-sql`'s start no longer spins ~1 000 lambda classes
    // (one statement 1.0 -> 0.5 s; project/LambdaLinking.scala, docs/adr/0013-apply-sql-speed.md,
    // round 7). The published library jars are not touched.
    Universal / mappings := {
      val staged = (Universal / mappings).value
      val jars = staged.collect { case (file, path) if path.startsWith("lib/") && path.endsWith(".jar") => file }
      val log = streams.value.log
      val (copies, counts) = LambdaLinking.rewrite(jars, target.value / s"lambda-linked-${LambdaLinking.Version}")
      if (counts.seen > 0)
        log.info(s"lambda linking: ${counts.rewritten} of ${counts.seen} Scala lambda call sites made archivable")
      staged.map { case (file, path) => (copies.getOrElse(file, file), path) }
    },
    // StagedStartSuite runs the staged command itself (its start script, its rewritten jars).
    Test / javaOptions += s"-Dweir.staged=${(Universal / com.typesafe.sbt.packager.universal.UniversalPlugin.autoImport.stagingDirectory).value}",
    Test / test := (Test / test).dependsOn(Universal / stage).value,
    Test / testOnly := (Test / testOnly).dependsOn(Universal / stage).evaluated
  )

// bench: JMH benchmarks (execution contexts, per-task overhead of every strategy, the seed's from
// lab) and seed 002's Future execution contexts they measure (weir.bench.future); never published.
// Run: ./sbt "bench/Jmh/run -wi 2 -i 3 -f 1 -w 2s -r 1s" (README, "Benchmark results").
lazy val bench = project
  .in(file("modules/bench"))
  .dependsOn(core, lab, cli, queueCirce)
  .enablePlugins(JmhPlugin)
  .settings(name := "weir-bench", publish / skip := true)

// docs: every ```scala block of README.md and docs/guide/*.md, compiled as its page shows it
// (SnippetsSuite checks that none is left out); never published. The generator writes one object
// per page into the test sources: each block in a scope nested in the one before, so a block sees
// what the blocks above it define and may define the same names again, as a reader of the page
// takes it. A block whose fence says more than `scala` (```scala build.sbt) is not Scala code of
// the library and is skipped; modules/docs/src/test/preludes/<page>.scala, when present, is put
// before a page's blocks (what the README takes for granted: imports, a `fetch`).
lazy val docs = project
  .in(file("modules/docs"))
  .dependsOn(core, http, postgres, queueCirce, queueOtel, queueUi)
  .settings(
    name := "weir-docs",
    publish / skip := true,
    // The README's queue section enqueues in a doobie transaction and logs through log4cats.
    libraryDependencies ++= testDeps ++ Seq(
      "org.tpolecat" %% "doobie-core" % doobieVersion % Test,
      "org.typelevel" %% "log4cats-core" % log4catsVersion % Test
    ),
    // Snippets show a part of a program: a value defined and not used, an import the next block
    // uses, are what they are for.
    Test / scalacOptions -= "-Wunused:all",
    forkedTests,
    Test / javaOptions += s"-Dweir.root=${(ThisBuild / baseDirectory).value}",
    Test / sourceGenerators += Def.task {
      val root = (ThisBuild / baseDirectory).value
      val preludes = baseDirectory.value / "src" / "test" / "preludes"
      val pages = (root / "README.md") +: ((root / "docs" / "guide") * "*.md").get.sortBy(_.getName)
      val out = (Test / sourceManaged).value / "weirdocs"
      val files = pages.map { page =>
        val rel = IO.relativize(root, page).getOrElse(page.getName)
        val blocks = Snippets.blocks(IO.readLines(page))
        val prelude = preludes / s"${rel.replace('/', '_')}.scala"
        val text = Snippets.source(rel, blocks, if (prelude.exists) Some(IO.read(prelude)) else None)
        val file = out / s"${Snippets.objectName(rel)}.scala"
        if (!file.exists || IO.read(file) != text) IO.write(file, text)
        file
      }
      val index = out / "Compiled.scala"
      val indexText = Snippets.index(pages.map { page =>
        IO.relativize(root, page).getOrElse(page.getName) -> Snippets.blocks(IO.readLines(page)).map(_.line)
      })
      if (!index.exists || IO.read(index) != indexText) IO.write(index, indexText)
      index +: files
    }.taskValue
  )
