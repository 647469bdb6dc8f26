package weir.cli.report

import io.circe.Json
import io.circe.parser.parse
import java.io.ByteArrayInputStream
import javax.xml.parsers.DocumentBuilderFactory
import munit.Assertions.*
import org.w3c.dom.{Document, Element, Node}

/** What every HTML report must be: well-formed (it parses as XML), free of any reference outside
  * the file, and carrying its data.
  */
object PageChecks:

  /** The page parsed by the JDK's XML parser; fails the test when it is not well-formed. */
  def parseXml(html: String)(using munit.Location): Document =
    val factory = DocumentBuilderFactory.newInstance()
    factory.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false)
    factory.setExpandEntityReferences(false)
    val builder = factory.newDocumentBuilder()
    builder.setErrorHandler(null)
    try builder.parse(new ByteArrayInputStream(html.getBytes("UTF-8")))
    catch
      case e: org.xml.sax.SAXParseException =>
        val line = html.linesIterator.drop(e.getLineNumber - 1).nextOption().getOrElse("")
        fail(
          s"not well-formed at line ${e.getLineNumber}, column ${e.getColumnNumber}: ${e.getMessage}\n$line"
        )

  private def elements(node: Node): Iterator[Element] =
    val children = node.getChildNodes
    val here = node match
      case e: Element => Iterator.single(e)
      case _          => Iterator.empty
    here ++ (0 until children.getLength).iterator.flatMap(i => elements(children.item(i)))

  private val linking =
    Set("src", "href", "xlink:href", "action", "data", "poster", "srcset", "background")

  /** Every link is to a place in the page (`#id`); no style loads anything; no element that embeds
    * another document. Returns the number of links checked.
    */
  def selfContained(doc: Document)(using munit.Location): Int =
    val all = elements(doc.getDocumentElement).toList
    val links =
      for
        e <- all
        i <- 0 until e.getAttributes.getLength
        a = e.getAttributes.item(i)
        if linking(a.getNodeName.toLowerCase)
      yield (s"<${e.getTagName} ${a.getNodeName}=\"${a.getNodeValue}\">", a.getNodeValue)
    links.foreach((where, value) => assert(value.startsWith("#"), s"external reference: $where"))
    val tags = all.map(_.getTagName.toLowerCase).toSet
    List(
      "img",
      "iframe",
      "object",
      "embed",
      "link",
      "video",
      "audio",
      "source",
      "use",
      "image",
      "base"
    )
      .foreach(tag => assert(!tags(tag), s"<$tag> may load something"))
    all.filter(_.getTagName == "script").foreach { s =>
      assertEquals(s.getAttribute("type"), "application/json", "only data scripts")
      assert(!s.hasAttribute("src"))
    }
    val styles = all.filter(_.getTagName == "style").map(_.getTextContent) ++
      all.filter(_.hasAttribute("style")).map(_.getAttribute("style"))
    styles.foreach { css =>
      assert(!css.contains("url("), "a style loads a resource")
      assert(!css.contains("@import"), "a style imports a sheet")
    }
    links.size

  /** The JSON in `<script id="id">`, parsed. */
  def embedded(doc: Document, id: String)(using munit.Location): Json =
    val script = elements(doc.getDocumentElement)
      .find(e => e.getTagName == "script" && e.getAttribute("id") == id)
      .getOrElse(fail(s"no script #$id"))
    parse(script.getTextContent).fold(e => fail(s"#$id is not JSON: ${e.getMessage}"), identity)

  /** Every check, and the embedded report JSON equal to `json` (what --format json prints). */
  def check(html: String, json: String)(using munit.Location): Document =
    val doc = parseXml(html)
    selfContained(doc)
    val expected =
      parse(json).fold(e => fail(s"--format json is not JSON: ${e.getMessage}"), identity)
    assertEquals(embedded(doc, "weir-data"), expected)
    embedded(doc, "weir-provenance")
    doc
