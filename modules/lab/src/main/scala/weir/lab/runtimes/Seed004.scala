package weir.lab.runtimes

/** Seed 004's published table (cats-effect 3.5.2, JDK 21; the number of cycles is not stated),
  * shown beside weir's own figures. Times in ms.
  */
object Seed004:

  /** One row: processes, work-stealing ms, virtual-threads ms, TIMED_WAITING threads at the end
    * with work stealing.
    */
  final case class Row(processes: Int, workStealingMs: Int, virtualMs: Int, wspTimedWaiting: Int):
    /** How many times faster virtual threads were: work-stealing time / virtual time. */
    def speedUp: Double = workStealingMs.toDouble / virtualMs

  val rows: List[Row] = List(
    Row(10, 969, 870, 13),
    Row(20, 1387, 1131, 23),
    Row(50, 2436, 1573, 53),
    Row(100, 4129, 2422, 103),
    Row(200, 7918, 3987, 203),
    Row(500, 39538, 9235, 503)
  )

  /** TIMED_WAITING threads at the end with virtual threads, at every size. */
  val virtualTimedWaiting: Int = 2

  /** The seed's process counts: weir's defaults. */
  val processes: List[Int] = rows.map(_.processes)

  def row(processes: Int): Option[Row] = rows.find(_.processes == processes)
