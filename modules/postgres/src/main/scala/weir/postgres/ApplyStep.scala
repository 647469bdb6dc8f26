package weir.postgres

import fs2.{Chunk, Pipe, Pull, Stream}
import scala.collection.mutable.ArrayBuffer

/** One task of the engine when applying SQL: what [[SqlApplier]]'s handler ([[ApplyHandler]]) does
  * on the connection. Statements come in groups sent in one round trip; a COPY comes as its start,
  * its chunks, its end.
  */
private[postgres] enum ApplyStep:
  case Begin(file: SqlFile)
  case Run(file: SqlFile, statements: Vector[SqlPiece.Statement])

  /** A file's own `BEGIN` or `COMMIT` in a file applied in one transaction: not sent
    * ([[OwnTransaction]]).
    */
  case Skip(file: SqlFile, statement: SqlPiece.Statement)

  /** A statement weir does not send, for `reason` (said in a warning): a `SET client_encoding` to
    * an encoding other than UTF-8 ([[SqlStatements.clientEncoding]]).
    */
  case Unsent(file: SqlFile, statement: SqlPiece.Statement, reason: String)

  /** A file's own `ROLLBACK` in a file applied in one transaction: the file fails here. */
  case Refuse(file: SqlFile, statement: SqlPiece.Statement)
  case CopyStart(file: SqlFile, statement: SqlPiece.Statement)
  case CopyChunk(file: SqlFile, data: SqlPiece.CopyData)
  case CopyFinish(file: SqlFile, end: SqlPiece.CopyEnd)

  /** A statement that psql's `\gset` ends: its one row sets variables ([[PsqlGset]]). */
  case Gset(file: SqlFile, statement: SqlPiece.Statement, prefix: String)

  /** A statement that psql's `\gexec` ends: each value of its result runs as a statement. */
  case Gexec(file: SqlFile, statement: SqlPiece.Statement)

  /** A psql `\connect` line, in a file applied without a transaction: what follows goes to the
    * database it names.
    */
  case Connect(file: SqlFile, connect: SqlPiece.Connect)

  /** Where the source waits for psql's variables for the last statement's result ([[PsqlResults]]),
    * reached after every statement before it was applied.
    */
  case Results(file: SqlFile, results: SqlPiece.Results)

  /** A psql `\echo` line, reached after every statement before it was applied. */
  case Echo(file: SqlFile, echo: SqlPiece.Echo)

  /** The end of a file: its SHA-256 (when computed) and the bytes read from it. */
  case Finish(file: SqlFile, sha256: String, bytes: Long)

  /** The file the step belongs to. */
  def sqlFile: SqlFile = this match
    case Begin(f)         => f
    case Run(f, _)        => f
    case Skip(f, _)       => f
    case Unsent(f, _, _)  => f
    case Refuse(f, _)     => f
    case CopyStart(f, _)  => f
    case CopyChunk(f, _)  => f
    case CopyFinish(f, _) => f
    case Echo(f, _)       => f
    case Results(f, _)    => f
    case Connect(f, _)    => f
    case Gset(f, _, _)    => f
    case Gexec(f, _)      => f
    case Finish(f, _, _)  => f

  /** The line the step's statement begins on, for a step that runs one. */
  def line: Option[Long] = this match
    case Run(_, statements) => statements.headOption.map(_.at.line)
    case Skip(_, s)         => Some(s.at.line)
    case Unsent(_, s, _)    => Some(s.at.line)
    case Refuse(_, s)       => Some(s.at.line)
    case CopyStart(_, s)    => Some(s.at.line)
    case Gset(_, s, _)      => Some(s.at.line)
    case Gexec(_, s)        => Some(s.at.line)
    case _                  => None

private[postgres] object ApplyStep:

  /** What one step applied, for [[ApplyRecorder]] (a few numbers, whatever the step's size): how
    * far into its file it reached, the statements and COPY rows it applied, and the bytes read from
    * its file when it finished it.
    */
  final case class Done(reached: Option[Mark], statements: Int, rows: Long, fileSize: Option[Long])

  object Done:
    val nothing: Done = Done(None, 0, 0L, None)

  // What a file's own transaction control does in `file` (sent as written without a transaction).
  private def own(file: SqlFile, s: SqlPiece.Statement): OwnTransaction.Kind =
    if file.transactional then OwnTransaction.of(s.sql) else OwnTransaction.Kind.Send

  /** A file's pieces as steps: consecutive statements grouped up to `pipeline` of them or
    * [[ApplySettings.pipelineBytes]] of SQL (a group ends at a COPY, at a file's own transaction
    * control in a file applied in one transaction ([[OwnTransaction]]), at a `\gset` or `\gexec`
    * (which goes alone; after a `\gset` the source waits for its variables, [[PsqlState]]), and at
    * the end of the file; a statement larger than that goes alone, so that it is sent without being
    * copied into a group's text, see [[PgSession.run]]).
    */
  def group[F[_]](file: SqlFile, pipeline: Int): Pipe[F, SqlPiece, ApplyStep] = pieces =>
    def go(
        in: Stream[F, SqlPiece],
        held: Vector[SqlPiece.Statement],
        bytes: Int
    ): Pull[F, ApplyStep, Unit] =
      in.pull.uncons.flatMap {
        case None => if held.isEmpty then Pull.done else Pull.output1(Run(file, held))
        case Some((chunk, rest)) =>
          val out = ArrayBuffer.empty[ApplyStep]
          var group = held
          var size = bytes
          def flush(): Unit =
            if group.nonEmpty then out += Run(file, group)
            group = Vector.empty
            size = 0
          chunk.foreach {
            case s: SqlPiece.Statement if s.resultTo.nonEmpty =>
              flush()
              out += (s.resultTo match
                case Some(SqlPiece.ResultTo.Variables(prefix)) => Gset(file, s, prefix)
                case _                                         => Gexec(file, s)
              )
            case s: SqlPiece.Statement if s.joined => // psql's `\\;`: alone, as one query
              flush(); group = Vector(s); flush()
            case s: SqlPiece.Statement if !s.copyFromStdin =>
              // A client encoding other than UTF-8 is not sent; any other statement is, grouped.
              (SqlStatements.clientEncoding(s.sql), own(file, s)) match
                case (Some(encoding), _) =>
                  flush()
                  out += Unsent(
                    file,
                    s,
                    s"weir reads files as UTF-8 and speaks UTF8 to the server, the only client encoding its driver takes (a file in $encoding: iconv -f $encoding -t UTF-8 first)"
                  )
                case (None, OwnTransaction.Kind.Send) =>
                  if size + s.sql.length > ApplySettings.pipelineBytes then flush()
                  group :+= s
                  size += s.sql.length
                  if group.size >= pipeline || size >= ApplySettings.pipelineBytes then flush()
                case (None, OwnTransaction.Kind.Skip) =>
                  flush()
                  out += Skip(file, s)
                case (None, OwnTransaction.Kind.Refuse) =>
                  flush()
                  out += Refuse(file, s)
            case s: SqlPiece.Statement => flush(); out += CopyStart(file, s)
            case d: SqlPiece.CopyData  => out += CopyChunk(file, d)
            case e: SqlPiece.CopyEnd   => out += CopyFinish(file, e)
            // Expanded before grouping (SqlIncludes, PsqlVariables), or refused in a migration or callback.
            case i: SqlPiece.Include =>
              throw SplitError.Unsupported(i.at, s"\\i ${i.path}: an include is not read here")
            case c: SqlPiece.ClientCopy =>
              throw SplitError.Unsupported(c.at, s"\\copy from ${c.path}: not read here")
            case e: SqlPiece.Echo    => flush(); out += Echo(file, e)
            case r: SqlPiece.Results => flush(); out += Results(file, r)
            case c: SqlPiece.Connect =>
              if file.transactional then
                throw SplitError.Unsupported(
                  c.at,
                  s"\\connect ${c.database} in a file applied in one transaction: a new connection cannot carry on its transaction; apply the file with --no-transaction (psql runs it statement by statement)"
                )
              flush(); out += Connect(file, c)
            case c: SqlPiece.Conditional =>
              throw SplitError.Unsupported(c.at, s"${c.command}: not read here")
            case v: SqlPiece.Variable =>
              throw SplitError.Unsupported(v.at, s"\\set ${v.name}: not read here")
            case q: SqlPiece.Quit => throw SplitError.Unsupported(q.at, "\\q: not read here")
            case _: SqlPiece.Line => () // said or not where psql's variables are read
          }
          Pull.output(Chunk.from(out)) >> go(rest, group, size)
      }
    go(pieces, Vector.empty, 0).stream
