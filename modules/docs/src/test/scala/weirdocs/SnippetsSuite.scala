package weirdocs

import java.nio.file.{Files, Path, Paths}
import scala.jdk.CollectionConverters.*

/** The Markdown pages' Scala blocks are compiled by this module (build.sbt generates `Compiled` and
  * one object per page from them), so a block that stops compiling fails the build. This suite
  * checks the other way round: that no page holds a Scala block the generator left out, and that
  * the guide's links lead somewhere.
  */
class SnippetsSuite extends munit.FunSuite:

  private val root: Path = Paths.get(sys.props.getOrElse("weir.root", "../.."))

  private def lines(page: String): List[String] =
    Files.readAllLines(root.resolve(page)).asScala.toList

  private val guide: List[String] =
    Files
      .list(root.resolve("docs/guide"))
      .iterator
      .asScala
      .map(p => s"docs/guide/${p.getFileName}")
      .filter(_.endsWith(".md"))
      .toList
      .sorted

  // The fences of Scala blocks, by line (1-based): ```scala, and ```scala with more words (```scala
  // build.sbt: not the library's code, never compiled). A block's closing fence is a bare ```.
  private def scalaFences(page: String): List[(Int, String)] =
    lines(page).zipWithIndex
      .foldLeft((List.empty[(Int, String)], false)) { case ((found, inside), (text, i)) =>
        val t = text.trim
        if inside then (found, t != "```")
        else if t.startsWith("```scala") then ((i + 1, t.stripPrefix("```")) :: found, true)
        else (found, t.startsWith("```"))
      }
      ._1
      .reverse

  test("the guide has its pages") {
    assertEquals(
      guide,
      List(
        "docs/guide/README.md",
        "docs/guide/engine.md",
        "docs/guide/postgres.md",
        "docs/guide/queue.md",
        "docs/guide/runtimes.md"
      )
    )
  }

  test("every scala block of README.md and the guide is compiled, build files excepted") {
    ("README.md" :: guide).foreach { page =>
      val fences = scalaFences(page)
      val compiled = fences.collect { case (line, "scala") => line }
      val others = fences.collect { case (line, info) if info != "scala" => s"$line: $info" }
      assertEquals(Compiled.blocks.get(page), Some(compiled), s"$page: blocks compiled")
      others.foreach(o =>
        assert(o.endsWith("scala build.sbt"), s"$page:$o: a fence of its own kind")
      )
    }
    assert(Compiled.blocks("README.md").size >= 5, "the README's blocks")
    guide.filterNot(_.endsWith("README.md")).foreach { page =>
      assert(Compiled.blocks(page).nonEmpty, s"$page has no compiled example")
    }
  }

  // A page's prose: its lines outside fenced blocks, inline code taken out.
  private def prose(page: String): String =
    lines(page)
      .foldLeft((Vector.empty[String], false)) { case ((kept, inside), text) =>
        if text.trim.startsWith("```") then (kept, !inside)
        else if inside then (kept, inside)
        else (kept :+ text.replaceAll("`[^`]*`", ""), inside)
      }
      ._1
      .mkString("\n")

  test("every relative link of the guide and of README.md leads to a file that exists") {
    val link = """\]\(([^)#\s]+)(#[^)\s]*)?\)""".r
    ("README.md" :: guide).foreach { page =>
      val dir = root.resolve(page).getParent
      link.findAllMatchIn(prose(page)).map(_.group(1)).foreach { target =>
        if !target.contains("://") && !target.startsWith("mailto:") then
          assert(Files.exists(dir.resolve(target)), s"$page links to $target, which does not exist")
      }
    }
  }

  test("README's As a library starts with the dependency and links the guide") {
    val readme = lines("README.md")
    val section = readme.dropWhile(_ != "## As a library").drop(1).dropWhile(_.isBlank)
    assertEquals(section.headOption, Some("```scala build.sbt"))
    assert(section(1).startsWith("// build.sbt"), section(1))
    assert(section.drop(2).head.contains("\"io.weir\" %% \"weir-core\""), section(2))
    assert(section.takeWhile(!_.startsWith("## ")).exists(_.contains("(docs/guide/README.md)")))
  }
