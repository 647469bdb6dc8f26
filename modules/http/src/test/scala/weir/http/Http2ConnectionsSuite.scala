package weir.http

import munit.FunSuite

/** How many HTTP/2 connections a load opens per host when it is not told
  * ([[Http2Client.connectionsFor]]).
  */
class Http2ConnectionsSuite extends FunSuite:

  test("no limit from the server: the default") {
    assertEquals(Http2Client.connectionsFor(1000, None), Http2Client.DefaultConnections)
  }

  test("Go's 250 streams a connection: 4 for 1 000 streams, 5 for 1 001, the default for 100") {
    assertEquals(Http2Client.connectionsFor(1000, Some(250L)), 4)
    assertEquals(Http2Client.connectionsFor(1001, Some(250L)), 5)
    assertEquals(Http2Client.connectionsFor(100, Some(250L)), Http2Client.DefaultConnections)
  }

  test("never more than 1 024, and a limit of 0 (no streams at all) changes nothing") {
    assertEquals(Http2Client.connectionsFor(1_000_000, Some(1L)), 1024)
    assertEquals(Http2Client.connectionsFor(10, Some(0L)), Http2Client.DefaultConnections)
  }
