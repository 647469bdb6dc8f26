package weir.cli

import scala.annotation.tailrec
import scala.util.matching.Regex

/** The package graph of Scala sources, read from the text alone (no compiler): which `weir` package
  * each file is in, which `weir` packages it refers to, and the cycles among them.
  *
  * A file refers to a package when its code (comments and string literals stripped, so a Scaladoc
  * link is no edge) names it:
  *   - in full, `weir.x.y.Name`, `weir.x.{A, B}` or `weir.x.*`, in an import or anywhere else;
  *   - by a name relative to its own package, `queue.QueueCommand` from `weir.cli` (a lower-case
  *     path that is a known package, then `{`, `*` or a name defined at the top level there);
  *   - in a chained package clause (`package weir.cli` then `package load`), by using a top-level
  *     name of an outer package unqualified.
  *
  * A path names the longest known package it starts with, provided what follows is a name defined
  * at the top level there (`weir.cli.common.Args.Format` is `weir.cli.common`; a value that happens
  * to be called `weir`, as in `weir.parse(args)`, is no package). References to the file's own
  * package are no edges.
  */
object PackageGraph:

  /** One source file: where it is (for messages) and its text. */
  final case class Source(path: String, text: String)

  /** A file's package and the packages it refers to. */
  final case class Parsed(path: String, pkg: String, refs: Set[String])

  /** An edge and one file behind it. */
  final case class Edge(from: String, to: String, file: String)

  /** Every file's package and references; `extraPackages` are packages whose sources are not given
    * (generated ones) with their top-level names.
    */
  def parse(
      sources: List[Source],
      extraPackages: Map[String, Set[String]] = Map.empty
  ): List[Parsed] =
    val read = sources.map { s =>
      val (clauses, body) = header(strip(s.text))
      (s.path, clauses, body)
    }
    val defined: Map[String, Set[String]] =
      read
        .groupMapReduce((_, cs, _) => cs.mkString("."))((_, _, code) => topLevel(code))(_ ++ _)
        .++(extraPackages.map((p, names) => p -> names))
    val packages = defined.keySet.filter(_.nonEmpty)
    read.map { (path, cs, code) =>
      val pkg = cs.mkString(".")
      val scopes = cs.indices.map(i => cs.take(i + 1).mkString(".")).toList
      val absolute = Absolute.findAllMatchIn(code).flatMap { m =>
        val parts = m.group(1).split('.').toList
        val whole = parts.size > 1 || m.group(2) != null
        (parts.size to 1 by -1).iterator
          .map(k => (parts.take(k).mkString("."), parts.drop(k)))
          .find((p, _) => packages(p))
          .collect { case (p, rest) if whole && rest.headOption.forall(defined(p)) => p }
      }
      val relative = Relative.findAllMatchIn(code).flatMap { m =>
        val path = m.group(1)
        val next = m.group(2)
        scopes
          .map(s => s"$s.$path")
          .find(p => packages(p) && (next == "{" || next == "*" || defined(p)(next)))
      }
      val words = Word.findAllIn(code).toSet
      val outer = scopes.dropRight(1).filter(s => defined.get(s).exists(_.exists(words)))
      Parsed(path, pkg, (absolute ++ relative ++ outer).toSet - pkg)
    }

  /** Every edge, with the first file (by path) behind it. */
  def edges(parsed: List[Parsed]): List[Edge] =
    parsed
      .flatMap(p => p.refs.map(to => Edge(p.pkg, to, p.path)))
      .groupBy(e => (e.from, e.to))
      .values
      .map(_.minBy(_.file))
      .toList
      .sortBy(e => (e.from, e.to))

  /** The strongly connected components of more than one package, each sorted (Tarjan). */
  def cycles(edges: List[Edge]): List[List[String]] =
    val next = edges.groupMap(_.from)(_.to).withDefaultValue(Nil)
    val nodes = (edges.map(_.from) ++ edges.map(_.to)).distinct.sorted
    var index = 0
    val indices = collection.mutable.Map.empty[String, Int]
    val low = collection.mutable.Map.empty[String, Int]
    val stack = collection.mutable.Stack.empty[String]
    val found = collection.mutable.ListBuffer.empty[List[String]]
    def visit(v: String): Unit =
      indices(v) = index
      low(v) = index
      index += 1
      stack.push(v)
      next(v).foreach { w =>
        if !indices.contains(w) then
          visit(w)
          low(v) = math.min(low(v), low(w))
        else if stack.contains(w) then low(v) = math.min(low(v), indices(w))
      }
      if low(v) == indices(v) then
        val component = collection.mutable.ListBuffer.empty[String]
        while
          val w = stack.pop()
          component += w
          w != v
        do ()
        if component.size > 1 then found += component.toList.sorted
    nodes.foreach(v => if !indices.contains(v) then visit(v))
    found.toList.sortBy(_.head)

  /** One cycle through `component`'s first package, each edge with a file behind it: `a -> b
    * (a/X.scala)`, one line per edge.
    */
  def explain(component: List[String], edges: List[Edge]): String =
    val inside = edges.filter(e => component.contains(e.from) && component.contains(e.to))
    val start = component.head
    // Breadth first from start's successors back to start: the shortest cycle through it.
    @tailrec
    def search(paths: List[List[Edge]], seen: Set[String]): List[Edge] =
      paths.find(_.last.to == start) match
        case Some(path) => path
        case None =>
          val longer = for
            path <- paths
            e <- inside.filter(_.from == path.last.to) if !seen(e.to) || e.to == start
          yield path :+ e
          if longer.isEmpty then Nil
          else search(longer, seen ++ longer.map(_.last.to))
    val first = inside.filter(_.from == start).map(List(_))
    search(first, first.map(_.head.to).toSet)
      .map(e => s"  ${e.from} -> ${e.to}   (${e.file})")
      .mkString("\n")

  private val Absolute: Regex = """(?<![\w.$])(?:_root_\.)?(weir(?:\.\w+)*)(\.[{*])?""".r
  private val Relative: Regex = """(?<![\w.$])([a-z]\w*(?:\.[a-z]\w*)*)\.([A-Z]\w*|\{|\*)""".r
  private val Word: Regex = """\b[A-Za-z_]\w*\b""".r
  private val Clause: Regex = """package\s+([\w.]+)""".r
  private val Definition: Regex =
    ("""(?m)^(?:(?:final|sealed|abstract|case|private\[\w+\]|protected\[\w+\]|opaque|inline|""" +
      """implicit|transparent|open|lazy)\s+)*(?:class|object|trait|enum|type|def|val|var|given)""" +
      """\s+([A-Za-z_]\w*)""").r

  /** The package clauses at the top of `code`, outermost first (`package object x` adds `x`), and
    * the code after them.
    */
  private def header(code: String): (List[String], String) =
    val lines = code.linesIterator.toList
    val (top, body) = lines.span(line => line.trim.isEmpty || line.trim.startsWith("package "))
    val clauses = top.map(_.trim).filter(_.nonEmpty).flatMap {
      case line if line.startsWith("package object ") =>
        List(line.stripPrefix("package object ").takeWhile(c => c.isLetterOrDigit || c == '_'))
      case Clause(name) => List(name)
      case _            => Nil
    }
    (clauses, body.mkString("\n"))

  private def topLevel(code: String): Set[String] =
    Definition.findAllMatchIn(code).map(_.group(1)).toSet

  /** `text` without comments, string and character literals; line breaks are kept. */
  def strip(text: String): String =
    val out = new StringBuilder
    val n = text.length
    var i = 0
    def at(s: String) = text.startsWith(s, i)
    def keepLines(from: Int, to: Int): Unit =
      out.append("\n" * text.substring(from, math.min(to, n)).count(_ == '\n')): Unit
    while i < n do
      if at("//") then
        val end = text.indexOf('\n', i)
        i = if end < 0 then n else end
      else if at("/*") then
        val start = i
        var depth = 1
        i += 2
        while i < n && depth > 0 do
          if at("/*") then
            depth += 1; i += 2
          else if at("*/") then
            depth -= 1; i += 2
          else i += 1
        keepLines(start, i)
      else if at("\"\"\"") then
        var end = text.indexOf("\"\"\"", i + 3)
        if end < 0 then end = n
        while end + 3 < n && text(end + 3) == '"' do end += 1
        keepLines(i, end)
        out.append("\"\"")
        i = end + 3
      else if text(i) == '"' then
        var j = i + 1
        while j < n && text(j) != '"' && text(j) != '\n' do j += (if text(j) == '\\' then 2 else 1)
        out.append("\"\"")
        i = j + 1
      else if text(i) == '\'' && i + 2 < n && (text(i + 2) == '\'' || text(i + 1) == '\\') then
        val end = text.indexOf('\'', i + 2 + (if text(i + 1) == '\\' then 1 else 0))
        out.append("' '")
        i = if end < 0 then n else end + 1
      else
        out.append(text(i))
        i += 1
    out.toString
