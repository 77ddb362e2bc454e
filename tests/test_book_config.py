"""The HTML book's configuration: offline maths, one repository URL, the footer's
version, the glossary's Chinese terms and an API reference that misses no public name.

These tests read _config.yml, _toc.yml and the pages under book/; they need no
build (tests/browser checks the built HTML).
"""

import importlib
import json
import re
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

import dtree

# Checks the book's files and its pinned environment, not dtree across versions:
# `make test-compat` leaves the module out.
pytestmark = pytest.mark.book

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
SPHINX = CONFIG["sphinx"]["config"]
CJK = re.compile(r"[\u4e00-\u9fff]")


def toc_files():
    """Every `file:` of _toc.yml (without suffix), recursively."""
    found = []

    def walk(entry):
        if isinstance(entry, dict):
            if "file" in entry:
                found.append(entry["file"])
            for value in entry.values():
                walk(value)
        elif isinstance(entry, list):
            for item in entry:
                walk(item)

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    found.append(toc["root"])
    walk(toc.get("parts", []))
    return found


# -- offline maths -------------------------------------------------------------


def test_mathjax_is_served_from_the_book():
    path = SPHINX["mathjax_path"]
    assert not re.match(r"^(https?:)?//", path), f"mathjax_path is remote: {path!r}"
    static_dirs = [ROOT / d for d in SPHINX["html_static_path"]]
    hits = [d / path for d in static_dirs if (d / path).is_file()]
    assert hits, f"mathjax_path {path!r} is in none of html_static_path {static_dirs}"
    script = hits[0]
    # The "full" component carries every TeX extension: nothing is autoloaded
    # at reading time (autoload would fetch [tex]/... files that are not here).
    assert script.name == "tex-chtml-full.js"
    assert script.stat().st_size > 1_000_000, "not the MathJax component (a pointer or a stub?)"
    # CommonHTML output loads its fonts from [mathjax]/output/chtml/fonts/woff-v2.
    fonts = sorted((script.parent / "output" / "chtml" / "fonts" / "woff-v2").glob("*.woff"))
    assert len(fonts) == 23, [f.name for f in fonts]
    assert (script.parent / "LICENSE").is_file()


def test_no_page_template_or_stylesheet_loads_from_the_network():
    """Our own static files and templates reference no remote script, style or font."""
    for path in [*(BOOK / "_static").glob("*.css"), *(BOOK / "_templates").glob("*.html")]:
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"""(src|href)=["']?(https?:)?//|url\(["']?(https?:)?//|@import""",
                             text), path


# -- one repository URL --------------------------------------------------------


def test_the_repository_url_is_named_once():
    url = CONFIG["repository"]["url"]
    assert re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+", url), url
    config_text = (ROOT / "_config.yml").read_text(encoding="utf-8")
    assert config_text.count("github.com") == 1, "the repository URL must appear once"
    # The launch buttons are made from it (and the hubs' own URLs).
    launch = CONFIG["launch_buttons"]
    assert launch["binderhub_url"] == "https://mybinder.org"
    assert launch["colab_url"] == "https://colab.research.google.com"
    assert launch["notebook_interface"] == "jupyterlab"
    # No page hard-codes it, except in each chapter's install cell, which
    # book/_ext/install_cell.py writes from _config.yml (checked below).
    for page in BOOK.rglob("*"):
        if page.suffix in {".md", ".ipynb", ".rst", ".html"} and "_build" not in page.parts:
            text = page.read_text(encoding="utf-8")
            if page.suffix == ".ipynb":
                cells = json.loads(text)["cells"]
                text = json.dumps([c for c in cells if c.get("id") != "install-dtree"])
            assert url not in text, page


def test_every_chapter_starts_by_installing_dtree_where_it_is_missing():
    """The install cell (first code cell of every chapter) is up to date with
    _config.yml's repository, installs only when ``import dtree`` fails, and is
    hidden in the HTML book."""
    sys.path.insert(0, str(BOOK / "_ext"))
    try:
        import install_cell
    finally:
        sys.path.pop(0)
    assert install_cell.main(["--check"]) == 0, "run: python book/_ext/install_cell.py"
    chapters = install_cell.chapters()
    assert len(chapters) >= 25
    url, branch = install_cell.repository()
    for path in chapters:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        first = next(c for c in cells if c["cell_type"] == "code")
        source = "".join(first["source"])
        assert first["id"] == "install-dtree" and "remove-cell" in first["metadata"]["tags"]
        assert "except ModuleNotFoundError:\n    %pip install" in source
        assert f'"dtree[notebooks] @ git+{url}@{branch}"' in source
        assert first.get("outputs", []) == [], f"{path}: the install cell printed something"


BUILD_ONLY = re.compile(
    r"^\s*(?:from|import)\s+(myst_nb|myst_parser|sphinx\w*|jupyter_book|nbval|pytest|"
    r"hypothesis|playwright|otter)\b", re.MULTILINE)


def test_chapters_import_no_build_or_test_tool():
    """A downloaded chapter runs with dtree[notebooks]: no cell imports the
    HTML build's or the test suite's packages."""
    offenders = []
    for path in sorted(BOOK.rglob("*.ipynb")):
        if "homework" in path.parts or "_build" in path.parts:
            continue
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "code":
                for match in BUILD_ONLY.finditer("".join(cell["source"])):
                    offenders.append(f"{path.relative_to(ROOT)}: {match.group(0).strip()}")
    assert not offenders, offenders


def test_prose_quotes_numbers_with_eval_not_glue():
    """JupyterLab's MyST renderer evaluates {eval}; it cannot show {glue}."""
    regex = re.compile(CONFIG["sphinx"]["config"]["nb_eval_name_regex"])
    assert CONFIG["execute"]["execute_notebooks"] == "inline"
    for path in sorted(BOOK.rglob("*.ipynb")):
        if "_build" in path.parts:
            continue
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            source = "".join(cell["source"])
            if cell["cell_type"] == "markdown":
                assert "{glue" not in source, f"{path}: a {{glue}} role"
                for expression in re.findall(r"\{eval\}`([^`]*)`", source):
                    assert regex.match(expression), f"{path}: {{eval}}`{expression}`"


def test_chapter_pages_offer_their_notebook_for_download():
    assert CONFIG["html"]["use_download_button"] is True
    for name in toc_files():
        if name.startswith("book/part"):
            assert (ROOT / f"{name}.ipynb").is_file(), f"{name} is not a notebook"


# -- the footer's version ------------------------------------------------------


def test_footer_names_the_dtree_version_from_the_package():
    """The footer line takes the version from dtree.__version__ (no second copy)."""
    assert CONFIG["sphinx"]["local_extensions"]["dtree_book"] == "book/_ext"
    sys.path.insert(0, str(BOOK / "_ext"))
    try:
        extension = importlib.import_module("dtree_book")
    finally:
        sys.path.remove(str(BOOK / "_ext"))
    config = SimpleNamespace(html_context={"other": 1})
    extension.add_dtree_version(app=None, config=config)
    assert config.html_context == {"other": 1, "dtree_version": dtree.__version__}

    template = (BOOK / "_templates" / "dtree-versions.html").read_text(encoding="utf-8")
    assert "{{ dtree_version }}" in template
    assert "pathto('book/versions')" in template
    assert (BOOK / "versions.ipynb").is_file() and "book/versions" in toc_files()
    assert "dtree-versions.html" in SPHINX["html_theme_options"]["footer_content_items"]
    assert SPHINX["templates_path"] == ["book/_templates"]
    # A static footer would be a second copy of the version.
    assert not CONFIG["html"].get("extra_footer")
    assert not re.search(r"\d+\.\d+\.\d+", template)


def test_pyproject_version_is_dtree_version():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^version = "([^"]+)"', text, re.M).group(1) == dtree.__version__


# -- glossary ------------------------------------------------------------------


def glossary_entries():
    """The entries of book/glossary.md's glossary: (terms, definition) pairs."""
    text = (BOOK / "glossary.md").read_text(encoding="utf-8")
    block = re.search(r"```\{glossary\}\n(.*?)\n```", text, re.S).group(1)
    entries = []
    for chunk in re.split(r"\n\s*\n", block.strip()):
        lines = chunk.splitlines()
        terms = [line.strip() for line in lines if line and not line[0].isspace()]
        definition = " ".join(line.strip() for line in lines if line and line[0].isspace())
        entries.append((terms, definition))
    return entries


REQUIRED_TERMS = [
    "entropy", "conditional entropy", "joint entropy", "information gain", "split information",
    "gain ratio", "Gini impurity", "Gini index", "misclassification error", "impurity", "node",
    "leaf", "root", "depth", "pre-pruning", "post-pruning", "cost-complexity pruning",
    "weakest link", "pessimistic error pruning", "continuity correction", "confidence factor",
    "sample weight", "class weight", "missing value", "threshold", "sorted sweep", "splitter",
    "feature importance", "overfitting", "ID3", "C4.5", "CART", "regression tree",
    "mean squared error", "mean absolute error", "KL divergence", "mutual information",
    "self-information", "Taylor expansion",
]


def test_every_glossary_entry_has_a_chinese_equivalent():
    entries = glossary_entries()
    assert len(entries) >= 30
    for terms, definition in entries:
        assert terms and definition, (terms, definition)
        assert any(CJK.search(t) for t in terms), f"no Chinese term for {terms}"
        assert any(not CJK.search(t) for t in terms), f"no English term for {terms}"


def test_glossary_covers_the_books_terms_once_each():
    terms = [t.lower() for entry_terms, _ in glossary_entries() for t in entry_terms]
    assert len(terms) == len(set(terms)), "a term is defined twice (Sphinx warns)"
    missing = [t for t in REQUIRED_TERMS if t.lower() not in terms]
    assert not missing, missing
    # The Chinese terms of the book's central measures, as the sources write them.
    for chinese in ["信息增益", "信息增益比", "基尼指数", "剪枝", "熵", "条件熵", "预剪枝", "后剪枝"]:
        assert chinese in terms, chinese


# -- API reference -------------------------------------------------------------

API = BOOK / "api"
_DIRECTIVE = re.compile(
    r"^\.\. (auto\w+|py:\w+):: (\S+)\n((?:[ \t]+:[\w-]+:.*\n)*)", re.M)


def module_members(module):
    """The names ``automodule :members:`` documents: ``__all__``, else those defined there."""
    if hasattr(module, "__all__"):
        return list(module.__all__)
    return [n for n, obj in vars(module).items()
            if not n.startswith("_") and getattr(obj, "__module__", None) == module.__name__]


def documented_objects():
    """Objects the API pages document: explicit auto* directives and automodule members."""
    objects, names = [], set()
    for page in sorted(API.glob("*.rst")):
        for kind, name, options in _DIRECTIVE.findall(page.read_text(encoding="utf-8")):
            names.add(name)
            if kind == "automodule":
                module = importlib.import_module(name)
                if ":members:" in options:
                    excluded = re.search(r":exclude-members:(.*)", options)
                    excluded = {s.strip() for s in excluded.group(1).split(",")} if excluded else set()
                    objects += [getattr(module, n) for n in module_members(module)
                                if n not in excluded]
            elif kind.startswith("auto"):
                module_name, _, attr = name.rpartition(".")
                module_name = module_name or "dtree"
                objects.append(getattr(importlib.import_module(module_name), attr))
    return objects, names


def test_api_pages_document_every_public_name():
    objects, names = documented_objects()
    undocumented = [
        name for name in dtree.__all__
        if name != "__version__" and not any(obj is getattr(dtree, name) for obj in objects)
    ]
    assert not undocumented, (
        f"{undocumented} are in dtree.__all__ but on no page of book/api: add them to "
        "book/api/dtree.rst (estimators, exceptions) or to the __all__ of a module that "
        "book/api documents with automodule")
    assert "__version__" in names


@pytest.mark.parametrize("module", ["dtree.information", "dtree.datasets", "dtree.tree",
                                    "dtree.export", "dtree.plotting", "dtree._book"])
def test_each_public_module_has_a_page(module):
    _, names = documented_objects()
    assert module in names


def test_every_api_page_is_in_the_toc():
    """A page missing from _toc.yml would be skipped silently (only_build_toc_files)."""
    listed = set(toc_files())
    pages = {f"book/api/{p.stem}" for p in API.glob("*.rst")}
    assert pages <= listed, sorted(pages - listed)
    assert {"book/glossary", "book/notation", "book/bibliography"} <= listed


def test_the_package_names_the_same_repository():
    """pyproject's [project.urls] Repository (which dtree._book.repository_file
    reads outside a clone) is _config.yml's repository.url."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["urls"]["Repository"] == CONFIG["repository"]["url"]
    assert CONFIG["repository"]["branch"] == "main"  # repository_file's default branch


def test_repository_file_in_a_clone_and_outside(tmp_path, monkeypatch):
    from dtree._book import repository_file

    monkeypatch.chdir(BOOK / "part4")
    assert Path(repository_file("benchmarks/results.csv")) == ROOT / "benchmarks" / "results.csv"
    monkeypatch.chdir(tmp_path)  # a downloaded chapter: no clone around it
    url = repository_file("benchmarks/results.csv")
    assert url == CONFIG["repository"]["url"] + "/raw/main/benchmarks/results.csv"
    for bad in ("/etc/passwd", "../secrets.txt", "benchmarks/../../x", ""):
        with pytest.raises(ValueError, match="path must be relative to the repository's root"):
            repository_file(bad)


def test_the_book_has_a_favicon():
    """Without one, every first visit logs a 404 for /favicon.ico."""
    icon = ROOT / CONFIG["html"]["favicon"]
    assert icon.is_file() and icon.suffix == ".svg"
    assert icon.read_text(encoding="utf-8").lstrip().startswith("<svg")



def test_the_build_skips_every_directory_git_ignores():
    """`make test-compat` leaves .venv-oldest and .venv-newest in the root; a book
    build after it read their packages' READMEs as pages and failed (the CI run of
    0870839). Sphinx prunes a directory whose path matches a pattern: every
    directory .gitignore names must match, in the root and (for caches) below it."""
    from sphinx.util.matching import Matcher

    excluded = Matcher(CONFIG["exclude_patterns"])
    ignored = [
        line.strip().rstrip("/")
        for line in (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
        if line.strip().endswith("/") and not line.startswith("#")
    ]
    assert {".venv", ".venv-oldest", ".venv-newest", "_build"} <= set(ignored)
    for name in ignored:
        assert excluded(name), f"{name}/ is ignored by git but the book build would read it"
    for cache in ("__pycache__", ".pytest_cache", ".hypothesis", ".ipynb_checkpoints", "x.egg-info"):
        assert excluded(f"book/part1/{cache}"), cache
    assert not excluded("book/part1/entropy.ipynb")


def test_the_compatibility_page_lists_every_feature_of_sklearns_trees():
    """book/api/sklearn.rst names every parameter, public method and fitted
    attribute of scikit-learn's two trees, and every parameter of its exports,
    and what it says is supported dtree has."""
    import inspect

    import numpy as np
    import sklearn.tree as sk

    page = (BOOK / "api" / "sklearn.rst").read_text(encoding="utf-8")
    rows = {}  # name -> status, from the list-tables' first two columns
    for names, status in re.findall(r"^   \* - (.+)\n     - (yes|no|not yet)\n", page, re.M):
        for name in re.findall(r"``(\w+)``", names):
            rows[name] = status
    X, y = np.arange(20.0).reshape(10, 2), np.arange(10) % 2
    for ours, theirs in [(dtree.DecisionTreeClassifier, sk.DecisionTreeClassifier),
                         (dtree.DecisionTreeRegressor, sk.DecisionTreeRegressor)]:
        fitted = theirs().fit(X, y)
        names = set(inspect.signature(theirs).parameters)
        names |= {n for n in dir(theirs) if not n.startswith("_") and callable(getattr(theirs, n))}
        names |= {n for n in dir(fitted) if n.endswith("_") and not n.startswith("_")}
        assert names <= set(rows), f"not on the page: {sorted(names - set(rows))}"
        mine = ours().fit(X, y)
        for name in names:
            supported = name in inspect.signature(ours).parameters or hasattr(mine, name)
            assert supported == (rows[name] == "yes"), f"{name}: the page says {rows[name]!r}"
    for function in ("export_graphviz", "export_text", "plot_tree"):
        assert rows[function] == "yes"
        assert set(inspect.signature(getattr(sk, function)).parameters) <= set(
            inspect.signature(getattr(dtree, function)).parameters), function
    assert "1.7" in page and sklearn_version_line(page) == ".".join(
        __import__("sklearn").__version__.split(".")[:2])


def sklearn_version_line(page):
    return re.search(r"\|sklearn_version\| replace:: (\S+)", page).group(1)


def test_kernels_talk_over_unix_sockets(tmp_path):
    """nbval, the tests' nbclient and the book build start kernels on Unix
    sockets (book/_ext/unix_socket_kernels.py); a kernel so started answers,
    and its channels are socket files, not TCP ports."""
    jupyter_client = pytest.importorskip("jupyter_client")
    sys.path.insert(0, str(BOOK / "_ext"))
    from unix_socket_kernels import _socket_directory, use_unix_sockets

    assert "unix_socket_kernels" in CONFIG["sphinx"]["local_extensions"]
    assert use_unix_sockets() and use_unix_sockets()  # once, then a no-op
    km = jupyter_client.KernelManager(kernel_name="python3")
    km.start_kernel(cwd=str(tmp_path))
    try:
        kc = km.client()
        kc.start_channels()
        try:
            kc.wait_for_ready(timeout=120)
            # the reply on the shell channel (no output to wait for on IOPub,
            # whose subscription may lag behind the kernel's first messages)
            msg_id = kc.execute("x = 6 * 7")
            # wait_for_ready may return on one kernel_info reply while another of
            # its requests is still answered later (seen under load: the reply to
            # its first request came after ours was sent); replies are matched to
            # their request by the parent's msg_id, as Jupyter's clients do.
            reply = kc.get_shell_msg(timeout=120)
            while reply["parent_header"]["msg_id"] != msg_id:
                assert reply["msg_type"] == "kernel_info_reply", reply["msg_type"]
                reply = kc.get_shell_msg(timeout=120)
            assert reply["msg_type"] == "execute_reply"
            assert reply["content"]["status"] == "ok"
        finally:
            kc.stop_channels()
        info = km.get_connection_info()
        assert info["transport"] == "ipc"
        assert Path(info["ip"]).parent == Path(_socket_directory())
        for port in ("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port"):
            path = Path(f"{info['ip']}-{info[port]}")
            assert path.is_socket() and len(str(path).encode()) < 108
    finally:
        km.shutdown_kernel(now=True)
    assert not any(Path(_socket_directory()).iterdir())  # the socket files are removed


# -- JupyterLab's settings for the book ---------------------------------------------


def test_the_book_ships_jupyterlab_settings_that_jupyterlab_knows():
    """.binder/overrides.json (installed by `make lab` and Binder's postBuild as
    JupyterLab's overrides.json) names only settings that JupyterLab's schemas
    declare, with allowed values; it attaches every notebook cell, without which
    the Markdown cells below the viewport keep their quoted numbers raw."""
    jsonschema = pytest.importorskip("jsonschema")
    jupyterlab = pytest.importorskip("jupyterlab")
    overrides = json.loads((ROOT / ".binder" / "overrides.json").read_text(encoding="utf-8"))
    assert overrides["@jupyterlab/notebook-extension:tracker"]["windowingMode"] == "none"
    schemas = Path(sys.prefix) / "share" / "jupyter" / "lab" / "schemas"
    assert schemas.is_dir(), f"no JupyterLab schemas under {schemas} ({jupyterlab.__version__})"
    for plugin, values in overrides.items():
        package, name = plugin.rsplit(":", 1)
        schema = json.loads((schemas / package / f"{name}.json").read_text(encoding="utf-8"))
        for key, value in values.items():
            assert key in schema["properties"], f"{plugin} has no setting {key}"
            jsonschema.validate(value, {**schema["properties"][key],
                                        "definitions": schema.get("definitions", {})})
    # Both installs put it where JupyterLab reads a site's defaults.
    target = "share/jupyter/lab/settings/overrides.json"
    assert ".binder/overrides.json" in (ROOT / ".binder" / "postBuild").read_text()
    assert target in (ROOT / ".binder" / "postBuild").read_text()
    makefile = (ROOT / "Makefile").read_text()
    assert f"LAB_OVERRIDES := $(VENV)/{target}" in makefile
    assert re.search(r"^lab: .*\$\(LAB_OVERRIDES\)", makefile, re.M)


# -- Chinese text --------------------------------------------------------------------


def _cjk_font():
    sys.path.insert(0, str(BOOK / "_ext"))
    try:
        import cjk_font
    finally:
        sys.path.pop(0)
    return cjk_font


def test_the_cjk_web_font_holds_every_chinese_character_of_the_book():
    """book/_static/fonts/dtree-cjk-subset.woff (book/_ext/cjk_font.py) covers
    the book's Chinese, and its licence and source are recorded beside it."""
    cjk_font = _cjk_font()
    assert cjk_font.characters(), "no Chinese found in the book's sources"
    missing = cjk_font.missing()
    assert not missing, f"the CJK web font lacks {missing!r}: run `make cjk-font`"
    fonts = cjk_font.FONT.parent
    assert "SIL OPEN FONT LICENSE Version 1.1" in (fonts / "OFL.txt").read_text(encoding="utf-8")
    readme = (fonts / "README.md").read_text(encoding="utf-8")
    assert "Open Font License" in readme and "fonts-noto-cjk" in readme
    from fontTools.ttLib import TTFont

    names = TTFont(cjk_font.FONT)["name"]
    assert names.getDebugName(1) == cjk_font.FAMILY  # a modified version's own name
    assert "Open Font License" in names.getDebugName(13)


def test_the_stylesheet_declares_a_cjk_font_stack_ending_in_the_web_font():
    css = (BOOK / "_static" / "dtree-book.css").read_text(encoding="utf-8")
    family = _cjk_font().FAMILY
    face = re.search(r"@font-face\s*\{[^}]*\}", css)
    assert face and f'"{family}"' in face.group(0)
    assert 'url("fonts/dtree-cjk-subset.woff")' in face.group(0)
    assert _cjk_font().UNICODE_RANGE in face.group(0)
    stack = re.search(r"--dtree-font-family-cjk:([^;]+);", css).group(1)
    fonts = [f.strip().strip('"') for f in stack.split(",")]
    assert "Noto Sans CJK SC" in fonts and fonts[-1] == family
    assert re.search(r"--pst-font-family-base:[^;]*var\(--dtree-font-family-cjk\)", css)


def test_sources_without_an_author_are_cited_by_a_short_title():
    """The in-text citation of a source with no author is its shorttitle
    (book/_ext/dtree_book.py's dtree_author_year style), not its whole title."""
    assert SPHINX["bibtex_reference_style"] == "dtree_author_year"
    bib = (BOOK / "references.bib").read_text(encoding="utf-8")
    for entry in re.split(r"\n(?=@)", bib):
        if not entry.startswith("@") or re.search(r"^\s*(author|editor)\s*=", entry, re.M):
            continue
        key = re.match(r"@\w+\{([^,]+),", entry).group(1)
        short = re.search(r"^\s*shorttitle\s*=\s*\{\{?(.*?)\}?\},?\s*$", entry, re.M)
        assert short, f"{key} names no author: give it a shorttitle for in-text citations"
        assert len(short.group(1)) <= 30, f"{key}: shorttitle {short.group(1)!r} is long"


# -- make book: what it executes again ------------------------------------------------


def test_make_book_executes_every_notebook_only_when_it_must(tmp_path):
    """The Makefile's book target passes jupyter-book --all unless the last
    build completed and nothing the notebooks run (dtree, ...) changed in
    content; a failed build is never reused (run with a stand-in jupyter-book
    in a copy holding the Makefile and the files it hashes)."""
    import os
    import shutil
    import subprocess

    if shutil.which("make") is None or shutil.which("sha256sum") is None:
        pytest.skip("needs make and sha256sum")
    for name in ("Makefile", "requirements.txt", "pyproject.toml"):
        shutil.copy2(ROOT / name, tmp_path / name)
    for folder in ("dtree", "book/homework"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "module.py").write_text("x = 1\n")
    (tmp_path / "book/_ext").mkdir()
    for name in ("dtree_book.py", "unix_socket_kernels.py"):
        (tmp_path / "book/_ext" / name).write_text("")
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks/results.csv").write_text("a\n")
    stamp = tmp_path / ".venv" / ".installed-book"
    stamp.parent.mkdir()
    stamp.touch()
    os.utime(stamp, (2**31 - 1, 2**31 - 1))  # newer than the pins: nothing to install
    fake = tmp_path / "fakebin"
    fake.mkdir()
    (fake / "jupyter-book").write_text('#!/bin/sh\necho "jupyter-book $*"\nexit "${FAIL:-0}"\n')
    (fake / "jupyter-book").chmod(0o755)

    def build(**env):
        result = subprocess.run(["make", "--no-print-directory", "book", f"BIN={fake}",
                                 *(f"{k}={v}" for k, v in env.items() if k != "FAIL")],
                                cwd=tmp_path, capture_output=True, text=True,
                                env={**os.environ, "FAIL": str(env.get("FAIL", 0))})
        line = next((l for l in result.stdout.splitlines() if l.startswith("jupyter-book")), "")
        return result.returncode, line.endswith("--all")

    assert build() == (0, True)            # nothing to reuse
    assert build() == (0, False)           # nothing changed
    (tmp_path / "dtree/module.py").write_text("x = 2\n")
    assert build() == (0, True)            # dtree changed
    os.utime(tmp_path / "dtree/module.py")  # a newer time, the same content
    assert build() == (0, False)
    assert build(FRESH=1) == (0, True)
    assert build(FAIL=1)[0] != 0           # a failed build ...
    assert build() == (0, True)            # ... is not reused
