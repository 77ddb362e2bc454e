"""The compiled split search is safe to start however a user starts it.

* several threads fitting at once in a fresh process: one decorates the
  kernels, the others wait (once, 3 of 4 such threads raised "A jit decorator
  was called on an already jitted function");
* a read-only install with a read-only home: Numba cannot cache, so the
  kernels are compiled without a cache, with one warning (once, every fit
  raised "cannot cache function ...: no locator available");
* Ctrl-C while Numba compiles: the interrupt takes effect when the
  compilation is done, and what was compiled is whole (once, a later fit
  segfaulted or raised "no compiled object yet").

Each runs in a fresh Python process, as a user's first fit does.
"""

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("numba")


def _run(code, *, env=None, prefix=(), timeout=600):
    environment = {key: value for key, value in os.environ.items() if not key.startswith("NUMBA_")}
    environment.update({"PYTHONPATH": str(ROOT), "DTREE_NUMBA": "1", **(env or {})})
    result = subprocess.run([*prefix, sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                            text=True, env=environment, timeout=timeout, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout.split("\n")


def test_threads_that_start_together_decorate_the_kernels_once():
    """Eight threads ask at once, with a decorator slowed down so that they overlap."""
    out = _run("""
        import threading, time
        import numba
        from numba.core.dispatcher import Dispatcher
        from dtree import kernels

        njit, calls = numba.njit, []
        def slow_njit(*args, **kwargs):
            calls.append(1)
            time.sleep(0.01)
            return njit(*args, **kwargs)
        numba.njit = slow_njit

        barrier, errors = threading.Barrier(8), []
        def ask():
            barrier.wait()
            try:
                assert kernels.available()
            except Exception as error:
                errors.append(repr(error))
        threads = [threading.Thread(target=ask) for _ in range(8)]
        [thread.start() for thread in threads]
        [thread.join() for thread in threads]
        compiled = [getattr(kernels, name) for name in kernels._COMPILED]
        print(errors)
        print(all(isinstance(f, Dispatcher) and not isinstance(f.py_func, Dispatcher) for f in compiled))
        print(len(calls) == len(kernels._COMPILED))   # each function decorated once, by one thread
    """)
    assert out[:3] == ["[]", "True", "True"]


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap (make bwrap installs it)")
def test_a_read_only_install_compiles_without_a_cache(tmp_path):
    """Under a read-only root (no writable package folder, no writable home), one warning, then a fit."""
    out = _run("""
        import warnings
        import numpy as np
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            from dtree import kernels
            assert kernels.available()
        print([warning.category.__name__ for warning in caught])
        # A small compiled function of the same module runs (compiled, uncached).
        keep = np.array([True, False, True, True])
        order = np.array([[3, 1, 0, 2]], dtype=np.intp)
        print(kernels.keep_positions(order, keep), order[0, :3].tolist())
    """, env={"HOME": "/nonexistent"}, prefix=["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"])
    assert out[0] == "['CacheUnavailableWarning']"
    assert out[1] == "3 [3, 0, 2]"


def test_ctrl_c_during_a_compilation_waits_for_it_to_finish():
    """SIGINT sent as a compilation starts is raised after it, and the function compiled is whole."""
    out = _run("""
        import importlib, os, signal
        # Python's own Ctrl-C handler, as in a terminal or a Jupyter kernel (a process started in the
        # background by a non-interactive shell, as CI's are, inherits SIGINT ignored)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        import numba
        from numba.core import event
        from dtree import kernels
        assert kernels.available()          # installs dtree's listener
        kernels = importlib.reload(kernels)  # as %autoreload does: still one listener
        assert kernels.available()
        print(sum(hasattr(listener, "_record") for listener in event._registered["numba:compiler_lock"]))

        class Interrupt(event.Listener):
            def on_start(self, event):
                os.kill(os.getpid(), signal.SIGINT)
            def on_end(self, event):
                pass

        @numba.njit(cache=False)
        def add_one(x):
            return x + 1

        with event.install_listener("numba:compile", Interrupt()):
            try:
                add_one(1)
                print("no interrupt")
            except KeyboardInterrupt:
                print("interrupted")
        print(len(add_one.signatures), add_one(2))
        print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)
    """)
    assert out[:4] == ["1", "interrupted", "1 3", "True"]


@pytest.mark.slow
def test_a_fit_interrupted_while_compiling_grows_the_same_tree_after(tmp_path):
    """A first fit stopped by Ctrl-C as dtree's kernels compile; the next fit is the tree of the
    loop as written."""
    out = _run("""
        import os, signal
        signal.signal(signal.SIGINT, signal.default_int_handler)  # as above: not inherited ignored
        import numpy as np
        from numba.core import event
        from sklearn.datasets import load_iris
        from dtree import DecisionTreeClassifier, kernels

        X, y = load_iris(return_X_y=True)
        sent = []
        class Interrupt(event.Listener):
            def on_start(self, event):
                if not sent:
                    sent.append(1)
                    os.kill(os.getpid(), signal.SIGINT)
            def on_end(self, event):
                pass
        assert kernels.available()
        kernels.COMPILE_IN_FOREGROUND = True     # this fit compiles (not in the background)
        with event.install_listener("numba:compile", Interrupt()):
            try:
                DecisionTreeClassifier().fit(X, y)
                print("no interrupt")
            except KeyboardInterrupt:
                print("interrupted")
        tree = DecisionTreeClassifier().fit(X, y).tree_
        kernels.ENABLED = False
        reference = DecisionTreeClassifier().fit(X, y).tree_
        print(bool(np.array_equal(tree.feature, reference.feature)
                   and np.array_equal(tree.threshold, reference.threshold)))
    """, env={"NUMBA_CACHE_DIR": str(tmp_path)})
    assert out[:2] == ["interrupted", "True"]
