package weir.cli.common

import munit.ScalaCheckSuite
import org.scalacheck.{Gen, Prop}
import weir.cli.common.RuntimeSyntax.label
import weir.runtime.RuntimePreset

/** `--runtime`'s syntax: what the command line prints reads back the same; bad values are named. */
class RuntimeSyntaxSuite extends ScalaCheckSuite:

  test("parse accepts every label it prints and names the problem otherwise") {
    val presets = List(
      RuntimePreset.WorkStealing,
      RuntimePreset.Fixed(1),
      RuntimePreset.Fixed(16),
      RuntimePreset.Virtual
    )
    presets.foreach(p => assertEquals(RuntimeSyntax.parse(p.label), Right(p)))
    assert(RuntimeSyntax.parse("fixed:0").left.exists(_.contains("positive integer")))
    assert(RuntimeSyntax.parse("fixed:x").left.exists(_.contains("positive integer")))
    assert(RuntimeSyntax.parse("green").left.exists(_.contains(RuntimeSyntax.syntax)))
  }

  property("runtimes: every preset's label parses back to the preset") {
    val presets = Gen.oneOf(
      Gen.const(RuntimePreset.WorkStealing),
      Gen.const(RuntimePreset.Virtual),
      Gen.choose(1, 512).map(RuntimePreset.Fixed(_))
    )
    Prop.forAll(presets)(p => assertEquals(RuntimeSyntax.parse(p.label.toUpperCase), Right(p)))
  }

  property("runtimes: fixed:N needs a positive N") {
    Prop.forAll(Gen.choose(-5, 0))(n => assert(RuntimeSyntax.parse(s"fixed:$n").isLeft))
  }

  test(
    "a JDK too old for virtual threads: the library's reason, and where a newer JDK comes from"
  ) {
    val reason = RuntimePreset
      .virtualThreadsCheck(17, "none", "/opt/jdk-17")
      .left
      .map(_.reason)
      .left
      .getOrElse(fail("JDK 17 was accepted"))
    assertEquals(
      RuntimeSyntax.advised(reason, 17),
      "virtual threads need JDK 21 or later; this JVM is 17 (/opt/jdk-17). " +
        "Run with a JDK >= 21 (./sbt and ./weir pick one when installed)."
    )
    val tracing = "virtual threads need fiber tracing off"
    assertEquals(RuntimeSyntax.advised(tracing, 25), tracing)
  }

  test("on this JVM (JDK >= 21, tests fork with tracing off) --runtime virtual can run") {
    assertEquals(RuntimeSyntax.parseRunnable("virtual"), Right(RuntimePreset.Virtual))
  }
