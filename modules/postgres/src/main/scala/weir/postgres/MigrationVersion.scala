package weir.postgres

/** The version of a Flyway-style migration (`V1_2__add_users.sql` is version 1.2): numbers
  * separated by `.` or `_` (Flyway reads both as `.`), compared part by part as numbers, trailing
  * zeros ignored: 1 < 1.1 < 1.2 < 2 < 10, and 1.0 is 1 (as Flyway compares them). Parts are
  * arbitrary-precision, so a timestamp version (`V20240131120000__x.sql`) works.
  *
  * @param text
  *   the version as written, with `_` read as `.` (what Flyway records in its `version` column)
  */
final case class MigrationVersion private (text: String, parts: Vector[BigInt]):

  /** The version as Flyway records and prints it (`1.2`). */
  override def toString: String = text

  // Trailing zeros do not count: 1.0 == 1.
  private def significant: Vector[BigInt] = parts.reverse.dropWhile(_ == 0).reverse

  /** True when both are the same version (1.0 is 1). */
  def sameAs(other: MigrationVersion): Boolean = significant == other.significant

object MigrationVersion:

  /** `text` as a version (`1`, `1.2`, `1_2`, `2024.01.31`); `Left` says why it is not one. */
  def parse(text: String): Either[String, MigrationVersion] =
    val dotted = text.replace('_', '.')
    val parts = dotted.split("\\.", -1).toVector
    if text.isEmpty then Left("the version is empty: write e.g. V1__create_users.sql")
    else if parts.exists(p => p.isEmpty || !p.forall(c => c >= '0' && c <= '9')) then
      Left(
        s"the version '$text' is not a number: write numbers separated by '.' or '_' (V1__x.sql, V1.2__x.sql, V1_2__x.sql)"
      )
    else Right(MigrationVersion(dotted, parts.map(BigInt(_))))

  /** Part by part as numbers, a missing part read as 0 (so 1.0 and 1 compare equal). */
  given Ordering[MigrationVersion] with
    def compare(a: MigrationVersion, b: MigrationVersion): Int =
      val n = a.parts.size.max(b.parts.size)
      (0 until n).iterator
        .map(i =>
          a.parts.lift(i).getOrElse(BigInt(0)).compare(b.parts.lift(i).getOrElse(BigInt(0)))
        )
        .find(_ != 0)
        .getOrElse(0)
