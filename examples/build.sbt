// A build outside weir's own, as a user's would be: weir's library modules as dependencies, from
// the local Ivy repository where `./sbt examplesCheck` (in weir's build) publishes them first.
// Each program is run by examplesCheck; QueueExample needs a PostgreSQL URL and is compiled only.
scalaVersion := "3.3.7"
scalacOptions ++= Seq("-Wunused:all", "-Wvalue-discard", "-deprecation", "-feature", "-Werror")

val weirVersion = sys.props.getOrElse("weir.version", "0.1.0-SNAPSHOT")

libraryDependencies ++= Seq(
  "io.weir" %% "weir-core" % weirVersion,
  "io.weir" %% "weir-postgres" % weirVersion
)

// A program run from sbt in a JVM of its own, as `run` in a user's build usually is (JDK 23+ warns
// that Scala 3.3's lazy vals use sun.misc.Unsafe; the flag, unknown before 23, allows it).
fork := true
javaOptions ++= (if (sys.props("java.specification.version").toDouble >= 23)
                   Seq("--sun-misc-unsafe-memory-access=allow")
                 else Nil)
