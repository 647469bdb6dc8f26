package weir.cli.common

import cats.effect.unsafe.IORuntime
import java.io.{FileDescriptor, FileOutputStream}
import java.nio.charset.StandardCharsets.UTF_8
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.locks.LockSupport
import scala.concurrent.duration.*
import weir.{Fatal, WeirError}

/** The process's last resort after a fatal error of the JVM (out of memory, a stack overflow): if
  * the command has not ended [[grace]] after one, the process is halted with exit code 3
  * ([[Exit.Fatal]]) after a one-line message on stderr.
  *
  * Why a halt at all. After a `VirtualMachineError` the JVM may be in a bad state: a heap still
  * full keeps every thread in garbage collection, and a fatal error that cats-effect saw first (one
  * thrown in code weir does not own) leaves its fibers never completing, so that the run, the
  * command and even `System.exit`'s shutdown hooks wait forever (`weir apply-sql` with a statement
  * larger than the heap did: jstack showed every thread parked, and SIGTERM did not end it either,
  * docs/adr/0013-apply-sql-speed.md, "Round 3"). weir's own effects contain such errors where they
  * are thrown ([[weir.Fatal]]): the apply then fails, rolls back and exits 3 with its own message
  * within a second or so, and this never fires. When it does, `Runtime.halt` is the one exit that
  * needs nothing from the rest of the process: no shutdown hook, no allocation (the message's bytes
  * are made in advance); the server rolls back a transaction whose connection is cut.
  *
  * What arms it: a fatal error caught by [[weir.Fatal]] (told at once), a thread that dies of one
  * (the default uncaught-exception handler, which says so on stderr in one line), or cats-effect's
  * own fatal-error path (its global flag, looked at every [[poll]]). The watchdog is one daemon
  * thread, started at [[install]] (starting a thread after the heap has run out may fail), parked
  * between looks.
  */
object FatalExit:

  /** How long the command has, after a fatal error, to end by itself. */
  val grace: FiniteDuration = 5.seconds

  /** How often the watchdog looks at cats-effect's flag. */
  val poll: FiniteDuration = 250.millis

  @volatile private var seen: Throwable | Null = null

  /** Starts the watchdog, once per process (`main` only: an in-process test must not be halted). */
  def install(): Unit = synchronized {
    if !installed then
      installed = true
      val err = new FileOutputStream(FileDescriptor.err)
      val message = (
        s"weir: a fatal error of the JVM (out of memory?) and the command did not end within " +
          s"${grace.toSeconds} s of it: halted (exit ${Exit.Fatal.code}). If it was out of memory, " +
          "give the JVM more heap, e.g. JAVA_OPTS=-Xmx256m\n"
      ).getBytes(UTF_8)
      val ceFlag = catsEffectFlag
      val watchdog = new Thread(() => watch(ceFlag, err, message), "weir-fatal-watchdog")
      watchdog.setDaemon(true)
      watchdog.start()
      Fatal.watch(t => if seen == null then seen = t)
      val previous = Thread.getDefaultUncaughtExceptionHandler
      Thread.setDefaultUncaughtExceptionHandler { (thread, t) =>
        if Fatal(t) then died(thread, t, err)
        else if previous != null then previous.uncaughtException(thread, t)
        else
          // What the JDK prints with no default handler. Not the thread group's uncaughtException:
          // with no parent group it calls the default handler, this one, again, to a stack overflow.
          System.err.print(s"Exception in thread \"${thread.getName}\" ")
          t.printStackTrace(System.err)
      }
  }

  private var installed = false

  // A thread died of a fatal error: the watchdog is armed, and stderr says so in one line.
  private def died(thread: Thread, t: Throwable, err: FileOutputStream): Unit =
    if seen == null then seen = t
    try
      err.write(
        s"weir: ${WeirError.Fatal.describe(t)} on thread ${thread.getName}\n".getBytes(UTF_8)
      )
    catch case _: Throwable => ()

  // Parks between looks; from the first fatal error seen, counts the grace period, then halts.
  private def watch(ceFlag: Option[AtomicBoolean], err: FileOutputStream, message: Array[Byte]) =
    var since = 0L
    while true do
      LockSupport.parkNanos(poll.toNanos)
      val fatal = seen != null || ceFlag.exists(_.get)
      if fatal && since == 0L then since = System.nanoTime()
      else if fatal && System.nanoTime() - since >= grace.toNanos then
        try err.write(message)
        catch case _: Throwable => ()
        Runtime.getRuntime.halt(Exit.Fatal.code)

  /** cats-effect's "a fatal error has been handled" flag (`IORuntime.globalFatalFailureHandled`,
    * public in the bytecode, package-private in Scala), read by reflection; `None` if a version of
    * cats-effect has it no more (the other two triggers remain).
    */
  private def catsEffectFlag: Option[AtomicBoolean] =
    try
      classOf[IORuntime].getField("globalFatalFailureHandled").get(null) match
        case flag: AtomicBoolean => Some(flag)
        case _                   => None
    catch case _: ReflectiveOperationException | _: SecurityException => None
