package weir.postgres

/** Where each migration stands on a database: its files against weir's record
  * ([[MigrationHistory]]) and Flyway's ([[FlywayHistory]]), in the order they apply, then what is
  * recorded but has no file. Pure: computed from what was read.
  */
final case class MigrationStatus(entries: List[MigrationStatus.Entry], warnings: List[String]):
  import MigrationStatus.State

  /** The files to apply, in order: new ones, and repeatables whose content changed. */
  def pending: List[MigrationFile] =
    entries.filter(e => e.state == State.Pending || e.state == State.Outdated).flatMap(_.file)

  /** How many migrations are recorded as applied (by weir or by Flyway) and still match. */
  def applied: Int = entries.count(_.state == State.Applied)

  /** The first applied migration that changed since: why nothing may be applied. */
  def refusal: Option[ApplyError] = entries.collectFirst {
    case e if e.problem.isDefined =>
      e.problem.get
  }

object MigrationStatus:

  /** Where one migration stands. */
  enum State:
    /** Recorded as applied, and its file has the checksum recorded. */
    case Applied

    /** Not applied yet. */
    case Pending

    /** Applied, but its file changed since: a run refuses to go on. */
    case Changed

    /** A repeatable migration whose file changed since it was applied: applied again. */
    case Outdated

    /** Recorded as applied, but no file has it any more. */
    case Missing

    /** At or below the baseline version: counted as applied, never run. */
    case BelowBaseline

    /** The baseline itself: every version up to it counts as applied. */
    case Baseline

    /** A text for tables and JSON (`below-baseline`). */
    def label: String = this match
      case BelowBaseline => "below-baseline"
      case other         => other.toString.toLowerCase

  /** One migration: its version (versioned ones), its file name (or the script recorded), its kind
    * (`versioned`, `repeatable`, `plain`, `baseline`), where it stands, when and by whom (`weir` or
    * `flyway`) it was applied, its file, and for a changed one the error that says so.
    */
  final case class Entry(
      version: Option[String],
      name: String,
      kind: String,
      state: State,
      appliedAt: Option[String],
      by: Option[String],
      file: Option[MigrationFile],
      problem: Option[ApplyError] = None
  )

  /** The status of `set` given weir's rows and Flyway's (from `flywayTable`). `Left` when Flyway
    * recorded a failed migration ([[ApplyError.FlywayFailed]]): its database is in a state that
    * needs a person first.
    */
  def of(
      set: MigrationSet,
      weir: List[MigrationHistory.Row],
      flyway: List[FlywayHistory.Row],
      flywayTable: String
  ): Either[ApplyError, MigrationStatus] =
    flyway.find(!_.success) match
      case Some(r) => Left(ApplyError.FlywayFailed(flywayTable, r.version, r.script))
      case None    => Right(compute(set, weir, flyway))

  private def parse(v: Option[String]): Option[MigrationVersion] =
    v.flatMap(MigrationVersion.parse(_).toOption)

  private def compute(
      set: MigrationSet,
      weir: List[MigrationHistory.Row],
      flyway: List[FlywayHistory.Row]
  ): MigrationStatus =
    val weirBaseline = weir.filter(_.kind == "baseline")
    val flywayBaseline = flyway.filter(_.baseline)
    val baseline =
      (weirBaseline.flatMap(r => parse(r.version)) ++ flywayBaseline.flatMap(r =>
        parse(r.version)
      )).maxOption
    val weirVersioned =
      weir.filter(_.kind == "versioned").flatMap(r => parse(r.version).map(_ -> r))
    // Flyway's last word on each version (an undo after an apply means not applied).
    val flywayVersioned = flyway
      .filter(r => r.version.isDefined && !r.baseline)
      .flatMap(r => parse(r.version).map(_ -> r))
      .foldLeft(List.empty[(MigrationVersion, FlywayHistory.Row)]) { case (acc, (v, r)) =>
        (v, r) :: acc.filterNot(_._1.sameAs(v))
      }
      .filterNot(_._2.notAnApply)
    val flywayRepeatable = flyway
      .filter(r => r.version.isEmpty && !r.notAnApply)
      .groupBy(_.description)
      .view
      .mapValues(_.maxBy(_.rank))
      .toMap
    val latest = (weirVersioned.map(_._1) ++ flywayVersioned.map(_._1) ++ baseline).maxOption
    val latestPlain = weir.filter(_.kind == "plain").map(_.name).maxOption
    val warnings = List.newBuilder[String]
    set.ignored.foreach(n =>
      warnings += s"$n is an undo migration: weir does not run undo migrations (nor does Flyway's community edition); ignored"
    )

    def weirEntry(f: MigrationFile, r: MigrationHistory.Row, version: Option[String]) =
      if r.sha256 == f.checksums.sha256 then
        Entry(version, f.fileName, f.kind, State.Applied, Some(r.appliedAt), Some("weir"), Some(f))
      else if f.kind == "repeatable" then
        Entry(version, f.fileName, f.kind, State.Outdated, Some(r.appliedAt), Some("weir"), Some(f))
      else
        val error = ApplyError.ChecksumChanged(f.fileName, r.sha256, f.checksums.sha256)
        Entry(
          version,
          f.fileName,
          f.kind,
          State.Changed,
          Some(r.appliedAt),
          Some("weir"),
          Some(f),
          Some(error)
        )

    def flywayEntry(f: MigrationFile, r: FlywayHistory.Row, version: Option[String]) =
      if r.checksum.forall(_ == f.checksums.flyway) then
        Entry(
          version,
          f.fileName,
          f.kind,
          State.Applied,
          Some(r.installedOn),
          Some("flyway"),
          Some(f)
        )
      else if f.kind == "repeatable" then
        Entry(
          version,
          f.fileName,
          f.kind,
          State.Outdated,
          Some(r.installedOn),
          Some("flyway"),
          Some(f)
        )
      else
        val error = ApplyError.FlywayChecksumChanged(f.fileName, r.checksum.get, f.checksums.flyway)
        Entry(
          version,
          f.fileName,
          f.kind,
          State.Changed,
          Some(r.installedOn),
          Some("flyway"),
          Some(f),
          Some(error)
        )

    def pending(f: MigrationFile, version: Option[String]) =
      Entry(version, f.fileName, f.kind, State.Pending, None, None, Some(f))

    val fromFiles = set.files.map { f =>
      f.name match
        case MigrationName.Versioned(v, _) =>
          val shown = Some(v.toString)
          weirVersioned.find(_._1.sameAs(v)) match
            case Some((_, r)) => weirEntry(f, r, shown)
            case None =>
              flywayVersioned.find(_._1.sameAs(v)) match
                case Some((_, r)) => flywayEntry(f, r, shown)
                case None if baseline.exists(b => summon[Ordering[MigrationVersion]].lteq(v, b)) =>
                  Entry(shown, f.fileName, f.kind, State.BelowBaseline, None, None, Some(f))
                case None =>
                  latest.filter(l => summon[Ordering[MigrationVersion]].lt(v, l)).foreach { l =>
                    warnings += s"${f.fileName}: version $v is below $l, which is already applied: applying it now, out of order"
                  }
                  pending(f, shown)
        case MigrationName.Repeatable(d) =>
          weir.find(r => r.kind == "repeatable" && r.name == f.fileName) match
            case Some(r) => weirEntry(f, r, None)
            case None =>
              flywayRepeatable.get(d) match
                case Some(r) => flywayEntry(f, r, None)
                case None    => pending(f, None)
        case _ =>
          weir.find(r => r.kind == "plain" && r.name == f.fileName) match
            case Some(r) => weirEntry(f, r, None)
            case None =>
              latestPlain.filter(f.fileName < _).foreach { l =>
                warnings += s"${f.fileName} sorts before $l, which is already applied: applying it now"
              }
              pending(f, None)
    }
    val names = set.files.map(_.fileName).toSet
    val versions = set.files.flatMap(_.version)
    val descriptions = set.files.collect { case MigrationFile(_, MigrationName.Repeatable(d), _) =>
      d
    }.toSet
    val baselines =
      weirBaseline.map(r =>
        Entry(r.version, r.name, "baseline", State.Baseline, Some(r.appliedAt), Some("weir"), None)
      ) ++
        flywayBaseline.map(r =>
          Entry(
            r.version,
            r.script,
            "baseline",
            State.Baseline,
            Some(r.installedOn),
            Some("flyway"),
            None
          )
        )
    val missingWeir = weir
      .filter(r => r.kind != "baseline" && !names.contains(r.name))
      .filterNot(r =>
        r.kind == "versioned" && parse(r.version).exists(v => versions.exists(_.sameAs(v)))
      )
      .map(r =>
        Entry(r.version, r.name, r.kind, State.Missing, Some(r.appliedAt), Some("weir"), None)
      )
    val missingFlyway = flywayVersioned
      .filterNot((v, _) => versions.exists(_.sameAs(v)))
      .sortBy(_._1)
      .map((_, r) =>
        Entry(
          r.version,
          r.script,
          "versioned",
          State.Missing,
          Some(r.installedOn),
          Some("flyway"),
          None
        )
      ) ++
      flywayRepeatable.values.toList
        .filterNot(r => descriptions.contains(r.description))
        .sortBy(_.description)
        .map(r =>
          Entry(
            None,
            r.script,
            "repeatable",
            State.Missing,
            Some(r.installedOn),
            Some("flyway"),
            None
          )
        )
    val missing = missingWeir ++ missingFlyway
    missing.foreach(e =>
      warnings += s"${e.name} is recorded as applied but is not in the directory any more"
    )
    MigrationStatus(baselines ++ fromFiles ++ missing, warnings.result())
