package weir.cli

import cats.effect.ExitCode
import munit.CatsEffectSuite
import weir.cli.common.BuildInfo

/** The `weir` command line itself: `--version`, and the usage line of a bad command line. */
class MainSuite extends CatsEffectSuite:

  test("--version prints the version and the commit, exit 0") {
    InProcess.run("--version").map { case (code, out, err) =>
      assertEquals(code, ExitCode.Success, err)
      assertEquals(out, s"weir ${BuildInfo.version} (commit ${BuildInfo.commit})\n")
      assertEquals(err, "")
    }
  }

  test("an unknown command: exit 2, and the usage names every command, not the first one's") {
    InProcess.run("bogus").map { case (code, out, err) =>
      assertEquals(code.code, 2)
      assertEquals(out, "")
      assertEquals(
        err,
        """Unexpected argument: bogus
          |
          |Usage: weir COMMAND [OPTIONS], COMMAND one of: compare, runtimes, serve, load, apply-sql, queue, enqueue, worker
          |Run 'weir --help' for every option.
          |""".stripMargin
      )
    }
  }

  test("a bad option of a command made of subcommands names its subcommands") {
    InProcess.run("queue", "--bogus").map { case (code, _, err) =>
      assertEquals(code.code, 2)
      assert(
        err.startsWith(
          "Unexpected option: --bogus\n\nUsage: weir queue COMMAND [OPTIONS], COMMAND one of: init, "
        ),
        err
      )
      assert(err.endsWith("Run 'weir queue --help' for every option.\n"), err)
    }
  }

  test("a bad option of a plain command keeps that command's usage line") {
    InProcess.run("serve", "--bogus").map { case (code, _, err) =>
      assertEquals(code.code, 2)
      assert(err.startsWith("Unexpected option: --bogus\n\nUsage: weir serve [--"), err)
    }
  }
