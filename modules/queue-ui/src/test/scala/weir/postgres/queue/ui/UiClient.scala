package weir.postgres.queue.ui

import cats.effect.{IO, Ref}
import org.http4s.*
import org.http4s.headers.Cookie

/** A browser without a browser, for the routes under http4s' test client: keeps the cookies the
  * routes set, reads the anti-forgery token of the last page, posts forms.
  */
final class UiClient(app: HttpApp[IO], cookies: Ref[IO, Map[String, String]]):

  /** Runs `req` with the cookies kept so far; keeps those the response sets. */
  def run(req: Request[IO]): IO[(Response[IO], String)] =
    for
      jar <- cookies.get
      withCookies =
        if jar.isEmpty then req
        else
          req.putHeaders(
            Cookie(
              cats.data.NonEmptyList.fromListUnsafe(jar.toList.map((k, v) => RequestCookie(k, v)))
            )
          )
      resp <- app.run(withCookies)
      _ <- cookies.update(_ ++ resp.cookies.map(c => c.name -> c.content))
      body <- resp.as[String]
    yield (resp, body)

  def get(uri: String): IO[(Response[IO], String)] =
    run(Request[IO](Method.GET, Uri.unsafeFromString(uri)))

  def post(uri: String, fields: (String, String)*): IO[(Response[IO], String)] =
    run(Request[IO](Method.POST, Uri.unsafeFromString(uri)).withEntity(UrlForm(fields*)))

  def cookieJar: IO[Map[String, String]] = cookies.get

object UiClient:

  /** Lets a `for` over `IO` take a result apart with a tuple pattern (`(resp, body) <- get(...)`),
    * which Scala 3 desugars through `withFilter`: a result that does not match fails the test.
    */
  extension [A](io: IO[A])
    def withFilter(p: A => Boolean): IO[A] =
      io.flatMap(a => if p(a) then IO.pure(a) else IO.raiseError(new MatchError(a)))

  def apply(app: HttpApp[IO]): IO[UiClient] =
    Ref.of[IO, Map[String, String]](Map.empty).map(new UiClient(app, _))

  /** The anti-forgery token in a page's forms. */
  def csrf(page: String): String =
    """name="csrf" value="([^"]+)"""".r
      .findFirstMatchIn(page)
      .map(_.group(1))
      .getOrElse(
        throw new AssertionError(s"no form with an anti-forgery token in:\n$page")
      )
