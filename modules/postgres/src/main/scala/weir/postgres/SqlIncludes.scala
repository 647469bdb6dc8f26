package weir.postgres

import cats.effect.{Ref, Sync}
import cats.syntax.all.*
import fs2.{Chunk, Pipe, Pull, Stream}
import java.io.InputStream
import java.nio.file.{Files, Path}
import weir.Capacity

/** psql's `\i FILE` and `\ir FILE` in a file [[SqlApplier]] applies: each [[SqlPiece.Include]] is
  * replaced by the pieces of the file it names, read and split as they are applied (includes in it
  * too), in the including file's transaction, as psql runs them; each `\copy ... from FILE`
  * ([[SqlPiece.ClientCopy]]) by its COPY and the file's bytes ([[ClientCopies]]). `\i` reads its
  * path from the working directory, `\ir` from the including file's directory (standard input's:
  * the working directory). psql's other client-side commands run here too, in the order of the
  * lines, included files' among them ([[PsqlScript]]): an include or `\copy` in an `\if` branch not
  * taken is never read.
  *
  * '''Errors''' ([[SplitError.IncludeFailed]], at the `\i` line): a file that does not exist, is a
  * directory or is not readable, and one that includes itself (directly or through others), or
  * includes nested deeper than [[MaxDepth]]. The included file's own errors name its path.
  *
  * '''`\\q`''' ends the file it is in, as psql ends a script there: nothing after it is sent or
  * refused, nor read past the block that holds it (an included file returns to the line after its
  * `\\i`), and the `\\if` blocks it opened close.
  *
  * '''Progress.''' The included pieces are said to end where the `\i` line ends, so that the
  * including file's position never goes back; their bytes count with its bytes (`tally`).
  */
private[postgres] object SqlIncludes:

  /** The deepest includes nest, as a guard against a loop through paths that differ. */
  val MaxDepth = 16

  /** Replaces the includes of `from`'s pieces and runs psql's client-side commands in them with the
    * apply's `script` ([[PsqlScript]]: variables, `\\echo` text, `\\if` blocks); `open` reads a
    * file, `tally` counts its bytes. After a statement that `\\gset` ends, after a `\\connect` and
    * at a [[SqlPiece.Results]], what follows waits for `awaitAnswer` ([[PsqlState.awaitAnswer]]; a
    * dry run, which sends nothing, waits for nothing).
    */
  def expand[F[_]: Sync](
      from: SqlFile,
      open: SqlFile => InputStream,
      maxChunk: Capacity,
      tally: FileBlocks.Tally,
      script: Ref[F, PsqlScript],
      awaitAnswer: F[Unit],
      chain: List[Path] = Nil
  ): Pipe[F, SqlPiece, SqlPiece] = pieces =>
    // The file's pieces, to its end or to a `\q` (which sets `quit`); `depth`: the blocks open when
    // the file began.
    def reading(depth: Int, quit: Ref[F, Boolean]): Stream[F, SqlPiece] =
      def go(rest: Stream[F, Chunk[SqlPiece]]): Pull[F, SqlPiece, Unit] =
        Pull.eval(quit.get).flatMap { quitted =>
          if quitted then Pull.done // the rest of the file is not read
          else
            rest.pull.uncons1.flatMap {
              case Some((chunk, more)) => read(chunk, 0, depth, quit).pull.echo >> go(more)
              case None                => Pull.done
            }
        }
      go(pieces.chunks).stream
    // A chunk with nothing of psql's in it (nearly all) passes as it is.
    def read(
        chunk: Chunk[SqlPiece],
        start: Int,
        depth: Int,
        quit: Ref[F, Boolean]
    ): Stream[F, SqlPiece] =
      Stream.eval(script.get).flatMap { s =>
        if start == 0 && s.passes(chunk) then
          // Its statements are given out: what follows that reads their result waits for it.
          Stream.exec(script.set(s.copy(fresh = false)).whenA(s.fresh)) ++ Stream.chunk(chunk)
        else
          val r = PsqlScript.read(chunk, start, s)
          val next = (r.error, r.stop) match
            case (Some(e), _) => Stream.raiseError[F](e)
            case (None, Some((i, include: SqlPiece.Include))) =>
              included(from, include, open, maxChunk, tally, script, awaitAnswer, chain) ++
                read(chunk, i + 1, depth, quit)
            case (None, Some((i, copy: SqlPiece.ClientCopy))) =>
              ClientCopies.body(copy, open, maxChunk, tally) ++ read(chunk, i + 1, depth, quit)
            case (None, Some((i, _: SqlPiece.Statement | _: SqlPiece.Connect))) =>
              Stream.exec(awaitAnswer) ++ read(chunk, i + 1, depth, quit)
            case (None, Some((_, _: SqlPiece.Quit))) =>
              Stream.exec(
                quit.set(true) >> script.update(s => s.copy(branches = s.branches.takeRight(depth)))
              )
            case (None, Some((i, results: SqlPiece.Results))) =>
              // The piece at i is read again once the handler has answered (a dry run: unanswered).
              Stream.emit(results) ++
                Stream.exec(awaitAnswer >> script.update(_.copy(fresh = true))) ++
                read(chunk, i, depth, quit)
            case _ => Stream.empty
          Stream.exec(script.set(r.state)) ++ Stream.chunk(r.out) ++ next
      }
    // The blocks open when the file began: those it opens must end in it.
    Stream.eval((script.get.map(_.branches.size), Ref.of[F, Boolean](false)).tupled).flatMap {
      (depth, quit) =>
        reading(depth, quit) ++ Stream.eval(script.get).flatMap { s =>
          PsqlScript
            .unclosed(s, depth)
            .fold(Stream.empty.covaryAll[F, SqlPiece])(Stream.raiseError[F](_))
        }
    }

  private def included[F[_]](
      from: SqlFile,
      include: SqlPiece.Include,
      open: SqlFile => InputStream,
      maxChunk: Capacity,
      tally: FileBlocks.Tally,
      script: Ref[F, PsqlScript],
      awaitAnswer: F[Unit],
      chain: List[Path]
  )(using F: Sync[F]): Stream[F, SqlPiece] =
    Stream.eval(F.blocking(resolve(from, include, chain))).flatMap {
      case Left(reason) =>
        Stream.raiseError[F](SplitError.IncludeFailed(include.at, include.path, reason))
      case Right((file, reading)) =>
        Stream
          .eval(script.get)
          .flatMap(s =>
            FileBlocks[F](open(file), 256 * 1024, tally.including)
              .through(SqlSplitter.pipe[F](file.name, maxChunk, s.lines))
          )
          .through(expand(file, open, maxChunk, tally, script, awaitAnswer, reading))
          .map(_.ending(include.end))
    }

  /** The file `include` names, as `from` names it, and the files being read once it is (`chain`:
    * those being read, `from` among them, or nothing yet at the top); Left: why it cannot be read.
    */
  private def resolve(
      from: SqlFile,
      include: SqlPiece.Include,
      chain: List[Path]
  ): Either[String, (SqlFile, List[Path])] =
    val written = Path.of(include.path)
    val base = Option.when(include.relative && from.onDisk)(from.path.getParent)
    val path = base.flatMap(Option(_)).fold(written)(_.resolve(written))
    val where =
      if include.relative then "\\ir reads it from the including file's directory"
      else "\\i reads it from the working directory; \\ir from the including file's"
    // The path as resolved, when it differs from the line's.
    val resolved = if path.toString == include.path then "" else s"$path: "
    SqlFile.unreadable(path) match
      case Some(SqlFile.Unreadable.Missing)   => Left(s"${resolved}no such file ($where)")
      case Some(SqlFile.Unreadable.Directory) => Left(s"${resolved}a directory, not a file")
      case Some(SqlFile.Unreadable.Denied) => Left(s"${resolved}not readable (permission denied)")
      case None                            => notLooping(from, path, resolved, chain)

  // `path`, readable, unless reading it now would loop or nest too deep.
  private def notLooping(
      from: SqlFile,
      path: Path,
      resolved: String,
      chain: List[Path]
  ): Either[String, (SqlFile, List[Path])] =
    val real = path.toRealPath()
    val reading =
      if chain.nonEmpty || !from.onDisk then chain else List(from.path.toRealPath())
    if reading.contains(real) then Left(s"${resolved}already being read: the includes loop")
    else if reading.size >= MaxDepth then Left(s"includes nest deeper than $MaxDepth files")
    else
      Right((SqlFile(path, path.toString, Files.size(path), from.transactional), real :: reading))
