package weir.runtime

import munit.FunSuite

/** The virtual preset's refusal messages, for JDKs these tests do not run on. */
class VirtualThreadsCheckSuite extends FunSuite:

  test("JDK 17 is refused with a message naming the version needed and the one found") {
    val result = RuntimePreset.virtualThreadsCheck(17, "none", "/opt/jdk-17")
    val message = result.left.map(_.reason).left.getOrElse(fail("JDK 17 was accepted"))
    assert(message.contains("JDK 21 or later"), message)
    assert(message.contains("this JVM is 17"), message)
    assert(message.contains("/opt/jdk-17"), message)
  }

  test("JDK 20 is refused, JDK 21 and 25 with tracing off are accepted") {
    assert(RuntimePreset.virtualThreadsCheck(20, "none", "/jdk").isLeft)
    assertEquals(RuntimePreset.virtualThreadsCheck(21, "none", "/jdk"), Right(()))
    assertEquals(RuntimePreset.virtualThreadsCheck(25, "NONE", "/jdk"), Right(()))
  }

  test("tracing on is refused with the flag that turns it off") {
    val message =
      RuntimePreset
        .virtualThreadsCheck(25, "cached", "/jdk")
        .left
        .map(_.reason)
        .left
        .getOrElse(fail("accepted"))
    assert(message.contains("-Dcats.effect.tracing.mode=none"), message)
    assert(message.contains("cached"), message)
  }

  test("on this JVM (JDK >= 21, tests fork with tracing off) virtual threads are available") {
    assertEquals(RuntimePreset.virtualThreadsAvailable, Right(()))
  }
