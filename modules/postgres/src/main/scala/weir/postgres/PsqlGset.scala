package weir.postgres

/** psql's `\gset [PREFIX]`, which ends a statement in place of its `;`: the statement must return
  * exactly one row, and each of its columns sets the variable named PREFIX and the column's name to
  * the column's text (a `NULL` unsets it), for the lines that follow (`\if`, `:NAME`). As psql 15
  * does, checked against it: no rows, more than one row, or a column whose name is not a variable
  * name (`?column?`: name it with `AS`) is an error that changes no variable; a column named after
  * one of psql's own settings (`AUTOCOMMIT`, `ECHO`, `PROMPT1`...) is ignored with a warning.
  */
private[postgres] object PsqlGset:

  /** What a `\gset` sets: the values of `set`, then the variables of `unset` removed (its columns
    * that were `NULL`); `ignored`: the columns named after psql's own settings.
    */
  final case class Assigned(set: Map[String, String], unset: Set[String], ignored: List[String]):

    /** `vars` with this `\gset`'s variables set and unset. */
    def applyTo(vars: Map[String, String]): Map[String, String] = vars -- unset ++ set

  /** What the statement's result sets, its `columns` named as the server named them and its `rows`
    * (the first two are enough: more than one is an error); `Left`: why it is an error.
    */
  def assign(
      prefix: String,
      columns: Vector[String],
      rows: Vector[Vector[Option[String]]]
  ): Either[String, Assigned] = rows match
    case Vector() => Left("no rows returned: it sets variables from exactly one row")
    case Vector(row) =>
      val named = columns.map(prefix + _).zip(row)
      named.map(_._1).find(!PsqlVariables.validName(_)) match
        case Some(bad) =>
          Left(
            s"""invalid variable name: "$bad" (a column's name is its variable's name: give the column one with AS)"""
          )
        case None =>
          val (ignored, kept) = named.partition((name, _) => settings.contains(name))
          Right(
            Assigned(
              kept.collect { case (name, Some(value)) => name -> value }.toMap,
              kept.collect { case (name, None) => name }.toSet,
              ignored.map(_._1).toList
            )
          )
    case _ => Left("more than one row returned: it sets variables from exactly one row")

  /** psql's variables that a `\gset` does not set (psql 15 ignores them, with a warning). */
  val settings: Set[String] = Set(
    "AUTOCOMMIT",
    "COMP_KEYWORD_CASE",
    "ECHO",
    "ECHO_HIDDEN",
    "FETCH_COUNT",
    "HIDE_TABLEAM",
    "HIDE_TOAST_COMPRESSION",
    "HISTCONTROL",
    "HISTFILE",
    "HISTSIZE",
    "IGNOREEOF",
    "ON_ERROR_ROLLBACK",
    "ON_ERROR_STOP",
    "PROMPT1",
    "PROMPT2",
    "PROMPT3",
    "QUIET",
    "SHOW_ALL_RESULTS",
    "SHOW_CONTEXT",
    "SINGLELINE",
    "SINGLESTEP",
    "VERBOSITY"
  )
