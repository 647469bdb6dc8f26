package weir.postgres

import cats.effect.IO
import java.net.ServerSocket
import java.nio.file.{Files, Path, Paths}
import java.util.concurrent.atomic.AtomicInteger
import scala.jdk.CollectionConverters.*
import scala.sys.process.*

/** A real PostgreSQL for the tests, once per test JVM: the server at `WEIR_PG_URL` when it is set,
  * else one started here from PostgreSQL's own binaries (`initdb` into a fresh temporary directory,
  * `pg_ctl start` on a free loopback port, stopped and deleted when the JVM exits). The server
  * refuses to run as root, so under root it runs as the `postgres` user (`runuser`). No binaries
  * and no `WEIR_PG_URL`: every test that asks for it fails with a message saying what to install.
  *
  * Each test takes a database of its own ([[database]]), so tests never see each other's tables.
  */
object TestPg:

  /** The role whose TCP logins need a password (on the server started here). */
  val passwordUser = "weir_pw"
  val passwordOfUser = "right-password"

  private val counter = new AtomicInteger

  /** A loopback port nothing listens on (just now). */
  def freePort(): Int =
    val socket = new ServerSocket(0)
    try socket.getLocalPort
    finally socket.close()

  /** Where the client binaries (psql, pg_dump) are. */
  lazy val bin: Path = findBin.getOrElse(Paths.get("/usr/bin"))

  /** What psql prints on standard output for the file `text` on `db` (`-X -q -v ON_ERROR_STOP=1 -o
    * /dev/null` and `flags`: results go nowhere, `\echo` lines and `-e`'s echoes are printed);
    * raises when psql fails.
    */
  def psql(db: PgTarget, text: String, flags: String*): IO[List[String]] = IO.blocking {
    val path = Files.writeString(Files.createTempFile("weir-psql-", ".sql"), text)
    val options = Seq("-X", "-q", "-v", "ON_ERROR_STOP=1", "-o", "/dev/null", "-f", path.toString)
    // The flags after the options: `-v ON_ERROR_STOP=0` among them wins.
    val command = Seq(bin.resolve("psql").toString) ++ options ++ flags ++
      Seq(s"host=${db.host} port=${db.port} user=${db.user} dbname=${db.database}")
    val env = db.password.map("PGPASSWORD" -> _).toSeq
    // psql has exited when `!!` returns (or throws): the file is deleted after it is read.
    try Process(command, None, env*).!!.linesIterator.toList
    finally Files.deleteIfExists(path): Unit
  }

  /** The server's administrative target (database `postgres`). */
  lazy val admin: PgTarget = sys.env.get("WEIR_PG_URL").filter(_.nonEmpty) match
    case Some(url) =>
      PgTarget.parse(Some(url), Map.empty).fold(e => throw new IllegalStateException(e), identity)
    case None => started

  /** True when the server was started here (so its authentication rules are known). */
  lazy val ownServer: Boolean = sys.env.get("WEIR_PG_URL").forall(_.isEmpty)

  // How to restart the server started here: pg_ctl, its data directory and log, and whether as root.
  @volatile private var control: Option[(String, Path, Path, Boolean)] = None

  /** Restarts the server started here with `pg_ctl restart -m immediate` (a crash: no checkpoint,
    * every connection cut; recovery replays the WAL). Fails when the server is not this JVM's own
    * ([[ownServer]] is false).
    */
  def restartImmediate(): Unit =
    admin: Unit
    val (pgCtl, data, log, asRoot) =
      control.getOrElse(
        throw new IllegalStateException("WEIR_PG_URL's server is not restarted by the tests")
      )
    val command =
      Seq(pgCtl, "-D", data.toString, "-l", log.toString, "-m", "immediate", "-w", "restart")
    val full = if asRoot then Seq("runuser", "-u", "postgres", "--") ++ command else command
    val out = new StringBuilder
    val code = Process(full).!(ProcessLogger(l => out.append(l).append('\n'): Unit))
    if code != 0 then
      throw new IllegalStateException(s"${full.mkString(" ")} failed ($code):\n$out")

  /** A new, empty database for one test. */
  def database(prefix: String): IO[PgTarget] =
    val name = s"weir_${prefix}_${ProcessHandle.current.pid}_${counter.incrementAndGet()}"
    PgSession.open[IO](admin).use(_.update(s"CREATE DATABASE $name")).as(targetFor(name))

  def targetFor(database: String): PgTarget = admin.withDatabase(database)

  private def findBin: Option[Path] =
    val root = Paths.get("/usr/lib/postgresql")
    val versions =
      if Files.isDirectory(root) then Files.list(root).iterator.asScala.toList else Nil
    val candidates = versions
      .sortBy(_.getFileName.toString.toIntOption.getOrElse(0))
      .reverse
      .map(_.resolve("bin")) ++ sys.env.getOrElse("PATH", "").split(':').map(Paths.get(_))
    candidates.find(dir => Files.isExecutable(dir.resolve("initdb")))

  private def started: PgTarget =
    val bin = findBin.getOrElse(
      throw new IllegalStateException(
        "the postgres tests need PostgreSQL: no initdb in /usr/lib/postgresql/*/bin or on PATH. Install the server (Debian/Ubuntu: apt-get install postgresql; Fedora: dnf install postgresql-server), or set WEIR_PG_URL=postgresql://user:password@host:port/database to use a running server"
      )
    )
    val root = Files.createTempDirectory("weir-pg-")
    val asRoot = "id -u".!!.trim == "0"
    def run(command: String*): Unit =
      val full = if asRoot then Seq("runuser", "-u", "postgres", "--") ++ command else command
      val log = new StringBuilder
      val code = Process(full, root.toFile).!(ProcessLogger(l => log.append(l).append('\n'): Unit))
      if code != 0 then
        throw new IllegalStateException(s"${full.mkString(" ")} failed ($code):\n$log")
    if asRoot then Seq("chown", "postgres:", root.toString).!! : Unit
    val data = root.resolve("data")
    run(
      bin.resolve("initdb").toString,
      "-D",
      data.toString,
      "-U",
      "postgres",
      "-A",
      "trust",
      "-E",
      "UTF8",
      "--locale=C.UTF-8",
      "--no-sync"
    )
    Files.writeString(
      data.resolve("pg_hba.conf"),
      s"""local all all trust
         |host all $passwordUser 127.0.0.1/32 scram-sha-256
         |host all all 127.0.0.1/32 trust
         |""".stripMargin
    )
    val port =
      val s = new ServerSocket(0);
      try s.getLocalPort
      finally s.close()
    val pgCtl = bin.resolve("pg_ctl").toString
    val options =
      s"-p $port -k $root -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60"
    run(
      pgCtl,
      "-D",
      data.toString,
      "-l",
      root.resolve("log").toString,
      "-o",
      options,
      "-w",
      "start"
    )
    control = Some((pgCtl, data, root.resolve("log"), asRoot))
    Runtime.getRuntime.addShutdownHook(
      new Thread(() =>
        try run(pgCtl, "-D", data.toString, "-m", "immediate", "-w", "stop")
        finally Seq("rm", "-rf", root.toString).! : Unit
      )
    )
    val target = PgTarget
      .parse(Some(s"postgresql://postgres@127.0.0.1:$port/postgres"), Map.empty)
      .fold(e => throw new IllegalStateException(e), identity)
    import cats.effect.unsafe.implicits.global
    PgSession
      .open[IO](target)
      .use(_.update(s"CREATE ROLE $passwordUser LOGIN PASSWORD '$passwordOfUser'"))
      .unsafeRunSync()
    target
