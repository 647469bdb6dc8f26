package weir.postgres.queue

/** What enqueueing one job did: inserted it ([[Enqueued.New]]), or found its unique key taken and
  * inserted nothing ([[Enqueued.Existing]], with the id of the job that holds the key: the
  * unfinished one of the same queue and key, else the one inserted in the same period, see
  * [[NewJob.withUniqueKey(key:String,period* NewJob.withUniqueKey]]). A job without a unique key is
  * always `New`.
  */
enum Enqueued:

  /** The job's id, whether it was inserted now or was there before. */
  def id: Long

  /** The job was inserted; its id. */
  case New(id: Long)

  /** The job's unique key was taken: nothing was inserted; the id of the job holding the key. */
  case Existing(id: Long)

  /** Whether the job was inserted now. */
  def isNew: Boolean = this match
    case New(_)      => true
    case Existing(_) => false
