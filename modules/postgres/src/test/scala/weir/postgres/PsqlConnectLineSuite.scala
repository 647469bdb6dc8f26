package weir.postgres

import munit.FunSuite

/** The database of a `\connect` line, as psql reads its arguments: the forms pg_dump and pg_dumpall
  * write, and what weir refuses (another server or user).
  */
class PsqlConnectLineSuite extends FunSuite:
  import PsqlConnectLine.database

  test("a name, quoted or not, and pg_dumpall's connection string with its dbname alone") {
    assertEquals(database(" app"), Right("app"))
    assertEquals(database(" \"My Db\""), Right("My Db"))
    assertEquals(database(" \"say \"\"hi\"\"\""), Right("say \"hi\""))
    assertEquals(database(" 'it''s'"), Right("it's"))
    assertEquals(database(" -reuse-previous=on \"dbname='My Db'\""), Right("My Db"))
    assertEquals(database(" -reuse-previous=on \"dbname='it\\'s'\""), Right("it's"))
    assertEquals(database(" dbname=plain"), Right("plain"))
  }

  test("another server or user is refused, with the reason") {
    def refused(args: String) = database(args).left.getOrElse(fail(s"$args was not refused"))
    assert(refused(" app bob").contains("give a database name only"))
    assert(refused(" \"dbname=app user=bob\"").contains("naming more than its dbname"))
    assert(refused(" postgresql://h/app").contains("a connection URI"))
    assert(refused(" -reuse-previous=off app").startsWith("-reuse-previous=off:"))
    assertEquals(refused(""), "give the database to connect to")
    assertEquals(refused(" -"), "give the database to connect to")
  }
