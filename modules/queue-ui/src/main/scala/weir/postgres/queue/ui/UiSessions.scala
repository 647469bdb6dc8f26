package weir.postgres.queue.ui

import cats.effect.{Ref, Sync}
import cats.syntax.all.*
import java.nio.charset.StandardCharsets.UTF_8
import java.security.{MessageDigest, SecureRandom}
import java.util.Base64

/** The ui's browser sessions: a random id (the cookie) for each, with its anti-forgery token (the
  * hidden field of every form). At most [[UiSessions.max]] are kept; past it the oldest is
  * forgotten (its browser gets a new session, and a form it shows is refused once).
  *
  * '''Concurrency.''' One `Ref` over an immutable state, updated atomically: sessions created by
  * concurrent requests never lose one another.
  */
private[ui] final class UiSessions[F[_]: Sync] private (state: Ref[F, UiSessions.State]):
  import UiSessions.*

  /** The anti-forgery token of session `id`, if it is one of ours. */
  def csrf(id: String): F[Option[String]] = state.get.map(_.byId.get(id))

  /** A new session: its id and its anti-forgery token. */
  def create: F[(String, String)] =
    for
      id <- Sync[F].delay(random())
      token <- Sync[F].delay(random())
      _ <- state.update { s =>
        val order = s.order :+ id
        if order.size <= max then State(s.byId + (id -> token), order)
        else State(s.byId - order.head + (id -> token), order.tail)
      }
    yield (id, token)

object UiSessions:

  /** The most sessions kept at once. */
  val max: Int = 10000

  private final case class State(byId: Map[String, String], order: Vector[String])

  private val secure = new SecureRandom()

  private def random(): String =
    val bytes = new Array[Byte](24)
    secure.nextBytes(bytes)
    Base64.getUrlEncoder.withoutPadding.encodeToString(bytes)

  /** No session yet. */
  def empty[F[_]: Sync]: F[UiSessions[F]] =
    Ref.of[F, State](State(Map.empty, Vector.empty)).map(new UiSessions(_))

  /** `a` and `b` equal, compared in time that depends on neither (both are hashed first, so not
    * even their lengths show).
    */
  def same(a: String, b: String): Boolean =
    def h(s: String) = MessageDigest.getInstance("SHA-256").digest(s.getBytes(UTF_8))
    MessageDigest.isEqual(h(a), h(b))
