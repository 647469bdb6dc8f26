package weir.http

import cats.effect.kernel.{Async, Resource}
import cats.syntax.all.*
import fs2.{Chunk, Stream}
import java.io.BufferedReader
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path}
import weir.ConfigError

/** One request of a URL file: its place among the file's requests (0, 1, ...), its line number
  * (from 1), and its target, or why the line is not one.
  */
final case class UrlLine(index: Long, line: Long, target: Either[RequestFailed.BadLine, Target])

/** A file of URLs, one request per line, read as the load goes.
  *
  * Blank lines and lines starting with `#` are skipped. The file is read in blocks of lines, one
  * blocking call per block (a blocking call per line made a URL file six times slower than a
  * template), and parsed on the compute pool; a run of lines with the same scheme, host and port
  * reuses the first one's parse, so a line costs about what a template's id does.
  */
object UrlFile:

  /** Lines per blocking read. */
  val block: Int = 4096

  /** `Right(path)` when it names a readable regular file; `Left` says what it is instead. */
  def check(path: Path): Either[ConfigError, Path] =
    def no(reason: String) = Left(ConfigError.Unreadable("URL file", path.toString, reason))
    if !Files.exists(path) then no(s"$path does not exist")
    else if Files.isDirectory(path) then no(s"$path is a directory, not a file of URLs")
    else if !Files.isReadable(path) then no(s"$path cannot be read (permissions)")
    else Right(path)

  /** The file's requests, lazily. Fails only when the file cannot be read, naming it; a line that
    * is not a URL becomes a [[UrlLine]] with a [[RequestFailed.BadLine]], and the stream goes on.
    * Invalid UTF-8 is replaced, not fatal (the line then fails to parse, with its number).
    */
  def lines[F[_]](path: Path)(using F: Async[F]): Stream[F, UrlLine] =
    val open = Resource.fromAutoCloseable(F.blocking(Files.newBufferedReader(path, UTF_8)))
    Stream.resource(open).flatMap { reader =>
      val parser = new Parser
      Stream
        .unfoldChunkEval((0L, 0L)) { (index, lineNo) =>
          F.blocking(readBlock(reader)).map { raw =>
            if raw.isEmpty then None
            else
              val out = Array.newBuilder[UrlLine]
              var i = index
              var n = lineNo
              raw.foreach { text =>
                n += 1
                val t = text.trim
                if t.nonEmpty && !t.startsWith("#") then
                  out += UrlLine(
                    i,
                    n,
                    parser.parse(t).left.map(e => RequestFailed.BadLine(n, t, e.getMessage))
                  )
                  i += 1
              }
              Some((Chunk.array(out.result()), (i, n)))
          }
        }
    }

  private def readBlock(reader: BufferedReader): Array[String] =
    val lines = new Array[String](block)
    var n = 0
    var line = reader.readLine()
    while line != null do
      lines(n) = line
      n += 1
      line = if n < block then reader.readLine() else null
    if n == block then lines else lines.take(n)

  /** Parses lines one after another; remembers the last `http(s)://host:port` it parsed fully. */
  private final class Parser:
    private var prefix: String | Null = null
    private var host = ""
    private var port = 0
    private var secure = false

    def parse(line: String): Either[ConfigError, Target] =
      val p = prefix
      if p != null && line
          .startsWith(p) && (line.length == p.length || line.charAt(p.length) == '/')
      then
        val path = if line.length == p.length then "/" else line.substring(p.length)
        if plain(path) then Right(Target(host, port, path, secure)) else full(line)
      else full(line)

    private def full(line: String): Either[ConfigError, Target] =
      Target.parse(line).map { t =>
        val start = line.indexOf("//") + 2
        val slash = line.indexOf('/', start)
        prefix = if slash < 0 then line else line.substring(0, slash)
        host = t.host
        port = t.port
        secure = t.secure
        t
      }

    // Nothing the full parse would reject or treat specially: no space, control character or {id}.
    private def plain(path: String): Boolean =
      var i = 0
      var ok = true
      while ok && i < path.length do
        val c = path.charAt(i)
        ok = c > ' ' && c != 0x7f && c != '{' && c != '}'
        i += 1
      ok
