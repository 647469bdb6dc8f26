package weir.http

/** Why a load ended. */
enum Ending:
  /** Every request was launched and finished. */
  case Completed

  /** `--duration` passed; launching stopped. */
  case DurationReached

  /** Stopped from outside (Ctrl-C); launching stopped. */
  case Interrupted

  /** So many connections in a row were refused that the server is taken for gone. */
  case ServerGone

  def describe: String = this match
    case Completed       => "completed"
    case DurationReached => "duration reached"
    case Interrupted     => "interrupted"
    case ServerGone      => "stopped: the server refuses connections"
