// What README.md's blocks take for granted: the imports of the engine's section, and the user's own
// handler, producer and JDBC types (never run: the blocks are compiled, ReadmeExampleSuite runs the
// engine's two).
import cats.effect.IO
import cats.syntax.all.*
import fs2.Stream
import scala.concurrent.duration.*
import weir.{Attempts, Concurrency, NonNegativeDuration, PositiveDuration, Source}
import weir.engine.*

def fetch(url: String): IO[Int] = ???
def staleFeeds: Stream[IO, String] = ???

final class JdbcTemplate:
  def queryForObject[T](sql: String, requiredType: Class[T], args: Any*): T = ???
trait RichDomainObject
