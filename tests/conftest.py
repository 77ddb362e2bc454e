"""pytest configuration shared by every test under tests/."""

# tests/browser drives Chromium and JupyterLab over the *built* book: it needs
# `make book` first and takes minutes, so the unit run (`pytest tests`, i.e.
# `make test-unit`) leaves it out. `make browser-test` runs it by naming the
# folder (`pytest tests/browser`), which collect_ignore does not affect.
#
# tests/hostile_homework holds the code of hostile homework cells (a fork bomb,
# a memory hog, a process killer, ...): test_homework.py runs them inside the
# grader's sandbox, and pytest must never import them itself.
collect_ignore = ["browser", "hostile_homework"]

# The kernels these tests start in-process (nbclient in test_homework.py and
# test_benchmarks.py) talk over Unix domain sockets, as nbval's and the book
# build's do: book/_ext/unix_socket_kernels.py says why.
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).parents[1] / "book" / "_ext"))
from unix_socket_kernels import use_unix_sockets  # noqa: E402


def pytest_configure(config):
    use_unix_sockets()


def _compile_small_fits():
    # A small fit on a machine whose compiled code is not at hand runs the split
    # search as written while it compiles in the background
    # (dtree.growth.compiled): which of the two a test's fit runs would then
    # depend on the order of the tests and the machine's speed.  The tests
    # compile every fit (the search as written is tested on its own, in
    # tests/test_sweep.py, and the policy in fresh processes there).
    import dtree.kernels

    dtree.kernels.COMPILE_IN_FOREGROUND = True


_compile_small_fits()


def _hypothesis_without_timing_checks():
    # Hypothesis's timing checks (a test's deadline, and the health check that
    # fails a test whose data generation is slow) measure the machine, not the
    # property: on CI's two workers, one drawing while the other compiles, a
    # draw of 1.5 s failed test_concavity (compat, oldest).  Every property
    # test runs without them; a test's own settings still add to this profile.
    from hypothesis import HealthCheck, settings

    settings.register_profile("dtree", deadline=None,
                              suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile("dtree")


_hypothesis_without_timing_checks()
