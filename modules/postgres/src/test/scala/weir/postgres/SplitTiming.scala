package weir.postgres

import cats.effect.{IO, IOApp}
import fs2.io.file.{Files, Path}

/** Not a test: times the splitter alone over a file, to see its share of an apply. `./sbt
  * "postgres/Test/runMain weir.postgres.SplitTiming FILE"`.
  */
object SplitTiming extends IOApp.Simple:
  def run: IO[Unit] =
    val file = sys.props.getOrElse("file", "/tmp/weir-bench/copy.sql")
    val once = IO.monotonic.flatMap { start =>
      Files[IO]
        .readAll(Path(file))
        .through(SqlSplitter.pipe[IO](file))
        .compile
        .count
        .flatMap(n =>
          IO.monotonic.flatMap(end => IO.println(s"$n pieces in ${(end - start).toMillis} ms"))
        )
    }
    once.replicateA_(5)
