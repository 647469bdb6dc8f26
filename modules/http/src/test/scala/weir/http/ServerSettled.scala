package weir.http

import cats.effect.IO
import scala.concurrent.duration.*

/** For the suites that cut requests off: the server's statistics once it holds no request open,
  * read again every 20 ms until then, failing after `within`. What a test asserts is the count the
  * server saw; the wait only lets the server notice the resets (it has no hook to await).
  */
object ServerSettled:

  def apply(s: DelayServer, within: FiniteDuration = 30.seconds): IO[ServerStats.Snapshot] =
    def look: IO[ServerStats.Snapshot] =
      s.stats[IO]
        .flatMap(st => if st.inFlight == 0 then IO.pure(st) else IO.sleep(20.millis) >> look)
    look.timeout(within)
