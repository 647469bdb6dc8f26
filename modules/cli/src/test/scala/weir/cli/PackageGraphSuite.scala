package weir.cli

import java.nio.file.{Files, Path, Paths}
import munit.FunSuite
import scala.jdk.CollectionConverters.*
import weir.cli.PackageGraph.Source

/** The main code of every module keeps the house's shape: its packages form a tree (no cycle, so
  * each can be read, tested and moved from the bottom up), folders mirror packages, and no file is
  * over 400 lines (STYLE.md). Read from the sources under `modules/` (see [[PackageGraph]]).
  */
class PackageGraphSuite extends FunSuite:

  /** The build's root: the first directory up from here with `build.sbt` and `modules/`. */
  private val root: Path =
    Iterator
      .iterate(Paths.get("").toAbsolutePath)(_.getParent)
      .takeWhile(_ != null)
      .find(d =>
        Files.isRegularFile(d.resolve("build.sbt")) && Files.isDirectory(d.resolve("modules"))
      )
      .getOrElse(fail("no build.sbt with modules/ above the working directory"))

  /** Every `src/main/scala/**/*.scala` of every module, with its path from the root. */
  private lazy val sources: List[Source] =
    Files
      .list(root.resolve("modules"))
      .iterator
      .asScala
      .toList
      .map(_.resolve("src/main/scala"))
      .filter(Files.isDirectory(_))
      .flatMap(dir => Files.walk(dir).iterator.asScala.filter(_.toString.endsWith(".scala")))
      .sortBy(_.toString)
      .map(file => Source(root.relativize(file).toString, Files.readString(file)))

  // Generated at compile time by build.sbt (the version and commit that HTML reports show).
  private val generated = Map("weir.cli.common" -> Set("BuildInfo"))

  test("the sources are found: every module's main code, weir.cli.Main among them") {
    val modules = sources.map(_.path.split('/')(1)).toSet
    assert(Set("core", "http", "postgres", "lab", "cli", "bench").subsetOf(modules), modules)
    assert(sources.exists(_.path.endsWith("weir/cli/Main.scala")))
  }

  test("no package cycle in main code") {
    val edges = PackageGraph.edges(PackageGraph.parse(sources, generated))
    val cycles = PackageGraph.cycles(edges)
    if cycles.nonEmpty then
      fail(
        cycles
          .map(c =>
            s"packages ${c.mkString(", ")} form a cycle, e.g.:\n${PackageGraph.explain(c, edges)}"
          )
          .mkString("\n")
      )
  }

  test("folders mirror packages") {
    val misplaced = PackageGraph.parse(sources, generated).filterNot { p =>
      val folder = p.path.split("/src/main/scala/")(1).split('/').dropRight(1).mkString(".")
      folder == p.pkg
    }
    assertEquals(misplaced.map(p => s"${p.path} is in package ${p.pkg}"), Nil)
  }

  test("no main file is over 400 lines") {
    val long = sources
      .map(s => s.path -> s.text.linesIterator.size)
      .filter(_._2 > 400)
      .map((path, lines) => s"$path: $lines lines")
    assertEquals(long, Nil)
  }

  // The detector itself, on sources made up for it: it must see what the real check relies on.

  private def graph(files: (String, String)*) =
    PackageGraph.edges(PackageGraph.parse(files.toList.map(Source(_, _))))

  test("the check sees a cycle through an import, a relative name and a full name") {
    val edges = graph(
      "a/Main.scala" -> "package weir.a\nimport weir.a.b.B\nobject Main:\n  val x = c.C\n",
      "a/b/B.scala" -> "package weir.a.b\nobject B\n",
      "a/c/C.scala" -> "package weir.a.c\nobject C:\n  def v = weir.a.Main.x\n"
    )
    assertEquals(
      edges.map(e => (e.from, e.to)),
      List("weir.a" -> "weir.a.b", "weir.a" -> "weir.a.c", "weir.a.c" -> "weir.a")
    )
    assertEquals(PackageGraph.cycles(edges), List(List("weir.a", "weir.a.c")))
    assertNoDiff(
      PackageGraph.explain(List("weir.a", "weir.a.c"), edges),
      """  weir.a -> weir.a.c   (a/Main.scala)
        |  weir.a.c -> weir.a   (a/c/C.scala)""".stripMargin
    )
  }

  test("comments, strings and a value called like a package are no references") {
    val edges = graph(
      "x/X.scala" -> ("package weir.x\n/** [[weir.y.Y]] */\nobject X:\n  val weir = \"weir.y.Y\"\n" +
        "  def f = weir.length // weir.y.Y\n  val q = y.Y\n"),
      "y/Y.scala" -> "package weir.y\nobject Y:\n  val length = 1\n"
    )
    assertEquals(edges, Nil)
  }

  test("a chained package clause sees the outer package's names unqualified") {
    val edges = graph(
      "o/O.scala" -> "package weir.o\nobject Outer\n",
      "o/i/I.scala" -> "package weir.o\npackage i\nobject I:\n  val o = Outer\n"
    )
    assertEquals(edges.map(e => (e.from, e.to)), List("weir.o.i" -> "weir.o"))
  }
