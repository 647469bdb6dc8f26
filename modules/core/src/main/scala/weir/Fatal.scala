package weir

import cats.effect.Sync
import java.util.concurrent.atomic.AtomicReference

/** Containing the JVM's fatal errors where weir's own effects throw them.
  *
  * cats-effect treats a `VirtualMachineError` (out of memory, stack overflow) or a `LinkageError`
  * thrown inside an effect as fatal: the fiber that threw it never completes (no `attempt`, no
  * finalizer, no `guarantee` runs), every runtime is shut down, and whatever waits on that fiber
  * waits forever unless the process is halted. A fiber feeding a queue (a prefetch, a run's source)
  * then leaves its consumer parked for good: `weir apply-sql` hung that way when a file's reader
  * ran out of memory (docs/adr/0013-apply-sql-speed.md, "Round 3").
  *
  * [[delay]] and [[blocking]] catch those errors on the thread that threw them, before cats-effect
  * sees them, and raise [[WeirError.Fatal]] instead: an ordinary error that fails the work, runs
  * its finalizers (what it held becomes garbage) and reaches whoever waits. Every caught error is
  * also handed to the process's [[watch]]er, if one is installed, so that a command can still end
  * the process if its clean exit does not complete (the JVM may be in a bad state).
  *
  * Only where the error is thrown can it be caught: an effect built elsewhere (fs2's or
  * cats-effect's own) still goes down cats-effect's fatal path.
  */
private[weir] object Fatal:

  private val watcher = new AtomicReference[Throwable => Unit](_ => ())

  /** True for what cats-effect treats as fatal and weir contains: `VirtualMachineError`s and
    * `LinkageError`s. (`InterruptedException` and control throwables are left as they are.)
    */
  def apply(t: Throwable): Boolean = t match
    case _: VirtualMachineError | _: LinkageError => true
    case _                                        => false

  /** Runs `thunk`, raising [[WeirError.Fatal]] for a fatal error it throws (after telling the
    * [[watch]]er); anything else is thrown as it is.
    */
  inline def contained[A](inline thunk: A): A =
    try thunk
    catch case t: Throwable if Fatal(t) => throw caught(t)

  /** `Sync[F].delay(thunk)` with fatal errors [[contained]]. */
  def delay[F[_], A](thunk: => A)(using F: Sync[F]): F[A] = F.delay(contained(thunk))

  /** `Sync[F].blocking(thunk)` with fatal errors [[contained]]. */
  def blocking[F[_], A](thunk: => A)(using F: Sync[F]): F[A] = F.blocking(contained(thunk))

  /** `Sync[F].interruptible(thunk)` with fatal errors [[contained]]: cancelling it interrupts the
    * thread (a read from an interruptible channel then ends at once).
    */
  def interruptible[F[_], A](thunk: => A)(using F: Sync[F]): F[A] =
    F.interruptible(contained(thunk))

  /** Installs the process's watcher of fatal errors (the last one installed wins), called on the
    * thread that caught each, before it is raised. It must return at once and allocate little (the
    * heap may be exhausted): a command's watchdog only arms itself there.
    */
  def watch(watcher: Throwable => Unit): Unit = this.watcher.set(watcher)

  /** `t` as the error to raise, once the watcher has been told (a watcher that fails is ignored:
    * the error is raised all the same).
    */
  def caught(t: Throwable): WeirError.Fatal =
    try watcher.get()(t)
    catch case _: Throwable => ()
    WeirError.Fatal(t)
