package weir.postgres.queue

/** One field of a [[Cron]] expression: its name, its range, the names its values may be written
  * with; parsing a field's text into the set of values it allows, or the reason it cannot (naming
  * the field and the value at fault).
  */
private[queue] final case class CronField(
    name: String,
    min: Int,
    max: Int,
    names: Map[String, Int] = Map.empty,
    // Day of the week: 7 is Sunday, as 0 is.
    sevenIsZero: Boolean = false
):

  /** The values `text` allows, as bits; `Left` with the reason (`minute 61 is out of range 0-59`).
    */
  def parse(text: String): Either[String, Cron.Bits] =
    text
      .split(",", -1)
      .toList
      .foldLeft[Either[String, Long]](Right(0L)) { (acc, part) =>
        acc.flatMap(bits => item(part).map(bits | _))
      }
      .map(Cron.Bits(_))

  private def top = if sevenIsZero then 7 else max

  // One item of a list: `*`, `v`, `a-b`, each with an optional `/step`.
  private def item(part: String): Either[String, Long] =
    if part.isEmpty then Left(s"$name has an empty item in its list")
    else
      val (range, step) = part.split("/", -1) match
        case Array(r)    => (r, None)
        case Array(r, s) => (r, Some(s))
        case _           => ("", None)
      for
        _ <- Either.cond(range.nonEmpty, (), s"$name item \"$part\" is not a value, range or step")
        n <- step.fold[Either[String, Int]](Right(1))(s =>
          s.toIntOption
            .filter(_ > 0)
            .toRight(s"$name step \"$s\" must be a positive number")
        )
        bounds <-
          if range == "*" then Right((min, max))
          else
            range.split("-", -1) match
              case Array(v) =>
                value(v).map(a => (a, if step.isDefined then top else a))
              case Array(a, b) =>
                for
                  lo <- value(a)
                  hi <- value(b)
                  _ <- Either.cond(lo <= hi, (), s"$name range $a-$b goes backwards")
                yield (lo, hi)
              case _ => Left(s"$name item \"$part\" is not a value, range or step")
      yield
        val (lo, hi) = bounds
        (lo to hi by n).foldLeft(0L) { (bits, v) =>
          bits | (1L << (if sevenIsZero && v == 7 then 0 else v))
        }

  private def value(text: String): Either[String, Int] =
    names.get(text.toUpperCase) match
      case Some(v) => Right(v)
      case None =>
        text.toIntOption match
          case None => Left(s"$name \"$text\" is not a number${namesHint}")
          case Some(v) if v < min || v > top =>
            Left(s"$name $v is out of range $min-$top")
          case Some(v) => Right(v)

  private def namesHint: String =
    if names.isEmpty then ""
    else s" or one of ${names.toList.sortBy(_._2).map(_._1).mkString(" ")}"

private[queue] object CronField:
  val minute: CronField = CronField("minute", 0, 59)
  val hour: CronField = CronField("hour", 0, 23)
  val dayOfMonth: CronField = CronField("day-of-month", 1, 31)
  val month: CronField = CronField(
    "month",
    1,
    12,
    List(
      "JAN",
      "FEB",
      "MAR",
      "APR",
      "MAY",
      "JUN",
      "JUL",
      "AUG",
      "SEP",
      "OCT",
      "NOV",
      "DEC"
    ).zipWithIndex
      .map((n, i) => n -> (i + 1))
      .toMap
  )
  val dayOfWeek: CronField = CronField(
    "day-of-week",
    0,
    6,
    List("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT").zipWithIndex.toMap,
    sevenIsZero = true
  )
