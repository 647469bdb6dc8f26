package weir

import munit.ScalaCheckSuite
import org.scalacheck.{Gen, Prop}
import scala.concurrent.duration.*

/** Round trips of core's parsers: what weir prints (or a user writes) reads back the same. */
class ParsersPropertySuite extends ScalaCheckSuite:

  private val units = List(
    "ns" -> 1L,
    "us" -> 1000L,
    "ms" -> 1000000L,
    "s" -> 1000000000L,
    "m" -> 60000000000L,
    "h" -> 3600000000000L
  )

  property("durations: N<unit> parses to N times the unit, whatever the case and spaces") {
    Prop.forAll(Gen.choose(0L, 100000L), Gen.oneOf(units), Gen.oneOf(true, false)) {
      (n, unit, upper) =>
        val (name, nanos) = unit
        val text = s" $n${if upper then name.toUpperCase else name} "
        assertEquals(Durations.parse(text), Right((n * nanos).nanos))
    }
  }

  property("durations: a bare number is milliseconds; decimals are kept to the nanosecond") {
    Prop.forAll(Gen.choose(0, 100000), Gen.choose(0, 999)) { (whole, frac) =>
      assertEquals(
        Durations.parse(f"$whole.$frac%03d"),
        Right((whole * 1000000L + frac * 1000L).nanos)
      )
    }
  }

  property("durations: anything else is refused with the forms it accepts") {
    val junk = Gen.oneOf("soon", "-1s", "1 parsec", "", "ms", "1e3s", "1s2", "∞")
    Prop.forAll(junk)(text => assert(Durations.parse(text).left.exists(_.contains("250ms"))))
  }
