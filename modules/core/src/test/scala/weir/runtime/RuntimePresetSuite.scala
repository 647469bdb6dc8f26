package weir.runtime

import cats.effect.IO
import cats.syntax.all.*
import munit.CatsEffectSuite

/** Each preset really runs fibers on the threads it claims. */
class RuntimePresetSuite extends CatsEffectSuite:

  private val here = IO(Thread.currentThread())

  // 200 fibers, each hopping threads with cede, report where they ran.
  private def threadsOf(preset: RuntimePreset): IO[List[Thread]] =
    preset.run(
      (1 to 200).toList.parTraverse(_ => here <* IO.cede).flatMap(seen => here.map(_ :: seen))
    )

  test("wsp runs fibers on cats-effect's io-compute worker threads") {
    threadsOf(RuntimePreset.WorkStealing).map { threads =>
      assert(threads.forall(_.getName.startsWith("io-compute")), threads.map(_.getName).distinct)
      assert(threads.forall(t => !RuntimePreset.isVirtual(t)))
    }
  }

  test("fixed:3 runs fibers on at most 3 platform threads named weir-fixed-N") {
    threadsOf(RuntimePreset.Fixed(3)).map { threads =>
      val names = threads.map(_.getName).distinct
      assert(names.forall(_.startsWith("weir-fixed-")), names)
      assert(names.size <= 3, names)
      assert(threads.forall(t => !RuntimePreset.isVirtual(t)))
    }
  }

  test("virtual runs fibers on virtual threads named weir-virtual-N") {
    threadsOf(RuntimePreset.Virtual).map { threads =>
      assert(threads.forall(RuntimePreset.isVirtual), threads.map(_.toString).distinct.take(5))
      assert(
        threads.forall(_.getName.startsWith("weir-virtual-")),
        threads.map(_.getName).distinct.take(5)
      )
      // A virtual thread per task: the fibers did not all run on one thread.
      assert(threads.distinct.size > 1)
    }
  }

  test("run returns the program's result and re-raises its error") {
    val boom = new RuntimeException("boom")
    for
      value <- RuntimePreset.Fixed(1).run(IO.pure(42))
      failed <- RuntimePreset.Fixed(1).run(IO.raiseError[Int](boom)).attempt
    yield
      assertEquals(value, 42)
      assertEquals(failed, Left(boom))
  }
