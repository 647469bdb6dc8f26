package weir.cli.common

import java.lang.management.ManagementFactory

/** The process's open-file limit: every connection is a descriptor, so it bounds `weir load`'s
  * concurrency and `weir serve`'s connections.
  */
object OpenFiles:

  /** Descriptors kept for the JVM itself (jars, epoll, pipes, the terminal). */
  val Reserve: Int = 256

  /** The soft limit, when the JVM can tell. */
  def limit: Option[Long] = ManagementFactory.getOperatingSystemMXBean match
    case unix: com.sun.management.UnixOperatingSystemMXBean => Some(unix.getMaxFileDescriptorCount)
    case _                                                  => None

  /** A warning when `connections` descriptors would not fit under the limit; `None` when they fit
    * or the limit is unknown.
    */
  def warning(connections: Long): Option[String] =
    limit.filter(_ - Reserve < connections).map { max =>
      f"$connections%,d connections need about as many descriptors and the open-file limit is $max%,d: raise it (ulimit -n ${connections + Reserve}) or lower -c; requests beyond it fail as 'descriptors'"
    }
