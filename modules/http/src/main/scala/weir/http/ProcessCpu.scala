package weir.http

import scala.concurrent.duration.*

/** The CPU time (user + system, every thread) this process has used so far, as the operating system
  * counts it (`ProcessHandle`'s `totalCpuDuration`: on Linux `/proc/self/stat`, in clock ticks of
  * 10 ms). `None` where the platform does not say. A load reads it at its start and end, so that
  * its report gives the client's CPU for the load alone: the JVM's start and the warm-up are not in
  * it.
  */
private[weir] object ProcessCpu:

  /** The CPU used since the process started; thread-safe, a read of the OS's counters. */
  def used(): Option[FiniteDuration] =
    val total = ProcessHandle.current().info().totalCpuDuration()
    if total.isPresent then Some(total.get.toNanos.nanos) else None

  /** The CPU used between two readings of [[used]] (`None` when either is missing). */
  def between(start: Option[FiniteDuration], end: Option[FiniteDuration]): Option[FiniteDuration] =
    start.zip(end).map((s, e) => (e - s).max(Duration.Zero))
