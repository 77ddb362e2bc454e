# dtree book: build the HTML book and run every test.
#
#   make book    build the HTML book into _build/html, executing the notebooks
#                that changed (FRESH=1: every notebook)
#   make serve   serve the built book at http://127.0.0.1:8000/ (PORT=) to read it
#   make test    lint, pytest on tests/ and dtree's doctests, nbval on book/, then
#                the installs (make test-install)
#   make test-install   the installs: `pip install .` from a copy of the repository,
#                Binder's steps and a downloaded chapter in fresh environments
#   make test-fast      lint, then the unit tests without the homework and the
#                slow ones, and dtree's doctests (3-4 minutes; no notebooks)
#   make lint    ruff on dtree/, tests/, benchmarks/, book/_ext, book/homework
#                and the notebooks
#   make test-compat    the fast unit tests with Python 3.10 and the lowest
#                supported NumPy, pandas, SciPy, scikit-learn, ..., and with 3.13
#                and the newest (scikit-learn at its pin) (PYTHON310=, PYTHON313=)
#   make browser-test   test the built book in Chromium and JupyterLab
#   make linkcheck      check the external links (skipped offline)
#   make lab     open JupyterLab on the book
#   make cjk-font    rewrite the web font of the book's Chinese characters
#   make student-book   the student edition (no solutions) into _build/student
#   make homework       student notebooks and autograders into _build/homework
#   make grade HW=gain SUBMISSIONS=folder [SCORES=scores.csv] [TIMEOUT=seconds]
#   make venv    .venv with everything: the book, the tests and the CI tools
#   make clean   remove build output (make distclean also removes .venv)
#
# Every target but test-compat (which makes .venv-oldest and .venv-newest, see
# there) creates .venv when it is missing and installs the book's pins
# (requirements.txt) and dtree (editable); those that run notebooks make sure
# Graphviz's `dot` is on PATH, and test-unit and grade that bubblewrap's
# `bwrap` is (Debian's packages, installed when run as root).  The reader's targets (book, lab, notebooks,
# student-book) install nothing more; the others (test*, browser-test,
# linkcheck, homework, grade) add the test and CI tools of
# tests/requirements.txt.  Each install is redone when its requirements file
# or pyproject.toml is newer than it.

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# What is installed: the book's pins and dtree, then the test tools on top.
BOOK_STAMP := $(VENV)/.installed-book
TEST_STAMP := $(VENV)/.installed-test
# JupyterLab's settings for the book (see $(LAB_OVERRIDES)'s rule).
LAB_OVERRIDES := $(VENV)/share/jupyter/lab/settings/overrides.json
PIP    := $(BIN)/python -m pip --disable-pip-version-check
# Notebook kernels are started as `python`: put the venv first on PATH so that
# they run with the pinned packages and the editable dtree.
export PATH := $(CURDIR)/$(BIN):$(PATH)

NBVAL_FLAGS := --nbval --nbval-current-env --nbval-sanitize-with .nbval-sanitize.cfg -p no:randomly
# test-unit, test-fast and test-notebooks run on two pytest-xdist workers (the CI
# machines have two cores).  --dist loadfile keeps each test module, and each
# notebook, whole on one worker: a module's fixtures (the homework's otter
# assign, its graded class folder) are built once, and a notebook's cells run
# in order in one kernel, as nbval needs.
XDIST := -n 2 --dist loadfile
# browser-test hands its tests out one at a time to two workers, each with its
# own Chromium and JupyterLab server (the chapters' Run All are most of its time).
BROWSER_XDIST := -n 2 --dist load

.PHONY: help book serve cjk-font test test-unit test-notebooks test-install lab notebooks clean distclean venv dot bwrap browser-test chromium linkcheck \
  student-book homework grade lint test-fast test-compat compat-pythons \
  compat-oldest compat-newest

help:
	@awk 'NR < 3 {next} /^#$$/ {exit} {print}' Makefile | sed 's/^# \{0,1\}//'

venv: $(TEST_STAMP) $(LAB_OVERRIDES)

$(BOOK_STAMP): requirements.txt pyproject.toml
	@$(PYTHON) -c 'import sys; v = sys.version_info[:2]; ok = (3, 10) <= v <= (3, 13); \
	  print(f"Python {v[0]}.{v[1]} found; the pinned requirements need Python 3.10-3.13 " \
	        "(run e.g. make PYTHON=python3.12 ...)", file=sys.stderr) if not ok else None; \
	  sys.exit(0 if ok else 1)'
	@if [ ! -x $(BIN)/python ]; then \
	  $(PYTHON) -m venv $(VENV) 2>/dev/null || { \
	    if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	      rm -rf $(VENV); apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	        apt-get install -y -qq python3-venv >/dev/null && $(PYTHON) -m venv $(VENV); \
	    else \
	      echo "Cannot create a virtual environment: install Python's venv module (Debian/Ubuntu: sudo apt-get install python3-venv)" >&2; exit 1; \
	    fi; }; \
	fi
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -r requirements.txt
	$(PIP) install --quiet --no-deps --no-build-isolation -e .
	@touch $(BOOK_STAMP)

# JupyterLab's settings for the book (.binder/overrides.json), installed where
# JupyterLab reads a site's defaults (<prefix>/share/jupyter/lab/settings;
# Binder's postBuild installs the same file): "windowingMode": "none" attaches
# every cell of a notebook, since with JupyterLab's default windowing the
# Markdown cells below the viewport keep their quoted numbers ({eval}`glued(...)`)
# raw after Run All.  A reader's own settings still win over it.
$(LAB_OVERRIDES): .binder/overrides.json $(BOOK_STAMP)
	install -D -m 644 $< $@

# Both files in one call, so that pip checks the test tools against the
# book's pins (and keeps those).
$(TEST_STAMP): $(BOOK_STAMP) tests/requirements.txt
	$(PIP) install --quiet -r requirements.txt -r tests/requirements.txt
	@touch $(TEST_STAMP)

dot:
	@command -v dot >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "Installing Debian's graphviz package (provides dot) ..."; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz >/dev/null; \
	  else \
	    echo "Graphviz's dot is missing: install it with 'sudo apt-get install graphviz' (Debian/Ubuntu), 'brew install graphviz' (macOS) or 'conda install -c conda-forge graphviz', then re-run make." >&2; \
	    exit 1; \
	  fi; }

# Homework grading runs each submission in a bubblewrap sandbox
# (book/homework/sandbox.py).
bwrap:
	@command -v bwrap >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "Installing Debian's bubblewrap package (provides bwrap) ..."; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null; \
	  else \
	    echo "bubblewrap is missing: homework grading runs each submission in its sandbox. Install it with 'sudo apt-get install bubblewrap' (Debian/Ubuntu) or 'sudo dnf install bubblewrap' (Fedora), then re-run make." >&2; \
	    exit 1; \
	  fi; }

# `make book` re-executes only the notebooks that changed since the last
# complete build (Sphinx keeps every page's doctree, the {eval} numbers
# included, in _build/.doctrees), unless something the notebooks run changed
# that Sphinx does not watch: dtree (code and data), the book's Sphinx extensions,
# the homework scripts the instructors' guide imports, the benchmark tables of
# the appendix's speed page, or the pins.  Their SHA-256 sums at the start of the
# last complete build are kept in $(BOOK_DONE) (contents, not times: a
# checkout that leaves a file as it was costs nothing).  After a failed build
# (a warning under -W of a page that would now be skipped), when _build has no
# complete build, or with FRESH=1, every notebook runs again (jupyter-book's
# --all).  Sphinx itself reads every page again when a setting of _config.yml
# that pages depend on changes.  Measured: 8 s with nothing changed, 46 s with
# the three C4.5 notebooks changed, 4-7 min for every notebook (.github/CONTRIBUTING.md).
BOOK_DONE    := _build/.book-complete
BOOK_DEPENDS := dtree book/_ext/dtree_book.py book/_ext/unix_socket_kernels.py book/homework \
  $(wildcard benchmarks/results*.csv) requirements.txt pyproject.toml
book: $(BOOK_STAMP) dot
	@mkdir -p _build; \
	find $(BOOK_DEPENDS) -type f -not -path '*/__pycache__/*' -print0 | sort -z \
	  | xargs -0 sha256sum > $(BOOK_DONE).start; fresh=--all; \
	if [ -n "$(FRESH)" ]; then \
	  echo "make book: every notebook is executed (FRESH=$(FRESH))"; \
	elif [ ! -f $(BOOK_DONE) ]; then \
	  echo "make book: every notebook is executed (_build holds no complete build to reuse)"; \
	elif ! cmp -s $(BOOK_DONE) $(BOOK_DONE).start; then \
	  changed=$$({ diff $(BOOK_DONE) $(BOOK_DONE).start || true; } | sed -n 's/^[<>] [0-9a-f]*  //p' | sort -u | sed -n 1,3p); \
	  echo "make book: every notebook is executed (changed since the last build: $$(echo $$changed))"; \
	else \
	  fresh=; echo "make book: only the pages changed since the last build are executed and read again"; \
	fi; \
	rm -f $(BOOK_DONE); \
	$(BIN)/jupyter-book build . --builder html -W -n --keep-going $$fresh
	@mv $(BOOK_DONE).start $(BOOK_DONE)
	@echo "The book is in _build/html/index.html"

test: lint test-unit test-notebooks test-install

# Every test but the installs (marked install, below).
test-unit: $(TEST_STAMP) dot bwrap
	$(BIN)/python -m pytest $(XDIST) tests dtree --doctest-modules -q -m "not install"

# The installs (tests/test_install.py's tests marked install): `pip install .`
# from a copy of the repository, Binder's steps and a downloaded chapter in
# fresh virtual environments.  Minutes of pip, none of them dtree's: apart from
# the unit tests, one test to a worker.
test-install: $(TEST_STAMP) dot
	$(BIN)/python -m pytest -n 2 --dist load tests/test_install.py -q -m install

# The tests marked homework (sandboxed grading, over half of test-unit's time)
# and slow (over about 5 s each) left out: markers in pyproject.toml.
FAST_TESTS := not homework and not slow
test-fast: $(TEST_STAMP) dot lint
	$(BIN)/python -m pytest $(XDIST) tests dtree --doctest-modules -q -m "$(FAST_TESTS)"

# The library with the oldest and the newest versions it claims to support
# (pyproject.toml), beside the pinned ones of test-unit: the fast unit tests
# with Python 3.10 and the lowest versions of tests/requirements-oldest.txt in
# .venv-oldest, and with Python 3.13 and the newest releases of the same
# packages in .venv-newest (upgraded on every run).  dtree is imported from
# the work tree.  Left out: the modules marked book or homework (they check
# the book's files and pinned environment, and import its packages) and
# dtree's doctests (their expected output is NumPy 2's repr).  The
# interpreters are pyenv's on the CI machines; point PYTHON310 and PYTHON313
# elsewhere if needed.
PYTHON310 ?= /root/.pyenv/versions/3.10.13/bin/python
PYTHON313 ?= /root/.pyenv/versions/3.13.0/bin/python
OLDEST := .venv-oldest
NEWEST := .venv-newest
COMPAT_REQUIREMENTS := tests/requirements-oldest.txt
COMPAT_PACKAGES = $(shell sed -e 's/[#=<>].*//' $(COMPAT_REQUIREMENTS))
# scikit-learn is the tests' oracle: the newest environment keeps the book's
# pin, since releases 1.8 and later changed two of the behaviours dtree
# reproduces (values closer than 1e-7 are not split; a feature whose known
# values are constant in a node is a candidate).
SKLEARN_PIN = $(shell sed -n 's/^scikit-learn==\([^ ]*\).*/\1/p' requirements.txt)
COMPAT_IGNORE = $(addprefix --ignore=,$(shell grep -lE '^pytestmark = pytest\.mark\.(book|homework)$$' tests/test_*.py))
COMPAT_VERSIONS = -c 'import importlib.metadata as m, sys; print("==", sys.version.split()[0], *(f"{n}=={m.version(n)}" for n in sys.argv[1:]))' $(COMPAT_PACKAGES)
COMPAT_PYTEST = -m pytest tests -q -p no:cacheprovider -m "not homework and not slow and not book" $(COMPAT_IGNORE)
# Fails unless $(1) is a Python $(2).
check_python = @"$(1)" -c 'import sys; sys.exit(sys.version_info[:2] != tuple(map(int, sys.argv[1].split("."))))' $(2) 2>/dev/null || { \
  echo "make test-compat needs Python $(2): PYTHON$(subst .,,$(2))=$(1) is missing or another version. Install Python $(2) (e.g. pyenv install $(2)) and pass its path, e.g. make test-compat PYTHON$(subst .,,$(2))=/usr/bin/python$(2)" >&2; exit 1; }

# Both interpreters are checked before anything is installed.
compat-pythons:
	$(call check_python,$(PYTHON310),3.10)
	$(call check_python,$(PYTHON313),3.13)

# The two environments install and test side by side (two jobs, each one's
# output printed whole when it ends; both run to the end if one fails).
test-compat: compat-pythons
	$(MAKE) --no-print-directory -k -j2 --output-sync=target compat-oldest compat-newest

compat-oldest: $(OLDEST)/.installed
	@$(OLDEST)/bin/python $(COMPAT_VERSIONS)
	PYTHONPATH=$(CURDIR) $(OLDEST)/bin/python $(COMPAT_PYTEST)

compat-newest:
	$(call check_python,$(PYTHON313),3.13)
	test -x $(NEWEST)/bin/python || "$(PYTHON313)" -m venv $(NEWEST)
	$(NEWEST)/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip \
	  $(filter-out scikit-learn,$(COMPAT_PACKAGES)) "scikit-learn==$(SKLEARN_PIN)"
	@$(NEWEST)/bin/python $(COMPAT_VERSIONS)
	PYTHONPATH=$(CURDIR) $(NEWEST)/bin/python $(COMPAT_PYTEST)

$(OLDEST)/.installed: $(COMPAT_REQUIREMENTS)
	$(call check_python,$(PYTHON310),3.10)
	rm -rf $(OLDEST)
	"$(PYTHON310)" -m venv $(OLDEST)
	$(OLDEST)/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(OLDEST)/bin/python -m pip install --quiet --disable-pip-version-check -r $(COMPAT_REQUIREMENTS)
	@touch $@

# ruff (pinned in tests/requirements.txt, rules in pyproject.toml): the Python
# files and the notebooks' code cells.  The width of the code a chapter shows
# (88 columns; folded cells may be wider) is tests/test_book_reader.py's check.
LINT_PATHS := dtree tests benchmarks book
lint: $(TEST_STAMP)
	$(BIN)/ruff check --no-cache $(LINT_PATHS)

# book/homework holds otter-assign master notebooks: tests/test_homework.py
# checks them (otter assign runs every check against the reference solution).
test-notebooks: $(TEST_STAMP) dot
	$(BIN)/python -m pytest $(XDIST) $(NBVAL_FLAGS) book --ignore=book/homework -q

# The student edition: the book without the Solutions part and without the
# links to it, its notebooks executed as the book's are (the prose's quoted
# numbers are evaluated in each chapter's kernel); book/_ext/student_edition.py
# writes its config and toc.
student-book: $(BOOK_STAMP) dot
	$(BIN)/python book/_ext/student_edition.py _build/student
	$(BIN)/jupyter-book build . --config _build/student/_config.yml --toc _build/student/_toc.yml \
	  --path-output _build/student --builder html -W -n --keep-going
	$(BIN)/python book/_ext/student_edition.py --check _build/student/_build/html
	@echo "The student edition is in _build/student/_build/html/index.html"

# Read the built book: a page opened as a file cannot load its fonts (browsers
# refuse fonts to file:// pages), so the book is served from 127.0.0.1 by
# Python's http.server (book/_ext/serve.py, which the browser tests use too).
PORT ?= 8000
serve:
	@$(PYTHON) book/_ext/serve.py --port $(PORT) _build/html

# The Chinese characters the book uses as a web font (book/_static/fonts, see
# its README.md): a subset of Debian's Noto Sans CJK SC, cut by fontTools.
# Run after adding Chinese text (tests/test_book_config.py says when).
cjk-font: $(BOOK_STAMP)
	@test -f /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "Installing Debian's fonts-noto-cjk package ..."; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-noto-cjk >/dev/null; \
	  else \
	    echo "Noto Sans CJK is missing: install it with 'sudo apt-get install fonts-noto-cjk' (Debian/Ubuntu), then re-run make cjk-font." >&2; \
	    exit 1; \
	  fi; }
	$(BIN)/python book/_ext/cjk_font.py

# Homework (book/homework, otter-grader): `make homework` writes the notebooks
# to hand out and the autograders; `make grade` grades a folder of submissions.
homework: $(TEST_STAMP)
	$(BIN)/python book/homework/homework.py assign --out _build/homework

SCORES  ?= scores.csv
TIMEOUT ?=
grade: $(TEST_STAMP) bwrap
	@test -n "$(HW)" -a -n "$(SUBMISSIONS)" || { echo "usage: make grade HW=<homework name> SUBMISSIONS=<folder of .ipynb> [SCORES=scores.csv] [TIMEOUT=seconds]" >&2; exit 2; }
	$(BIN)/python book/homework/homework.py grade "$(HW)" "$(SUBMISSIONS)" --out "$(SCORES)" $(if $(TIMEOUT),--timeout "$(TIMEOUT)")

# The built book as people use it (tests/browser, left out of `make test` by
# tests/conftest.py): every page in Chromium, offline, on a loopback server
# (maths typeset, images loaded, internal links and anchors, no console error,
# the download button's notebook), a screenshot of each page in
# _build/screenshots, and a "Run All" of a chapter in a real JupyterLab.
# Tests the existing _build/html: run `make book` first.
CHROMIUM ?= /usr/bin/chromium
export CHROMIUM
browser-test: $(TEST_STAMP) $(LAB_OVERRIDES) dot chromium
	@test -f _build/html/index.html || { echo "make browser-test tests the built book, and _build/html has none: run 'make book' first." >&2; exit 1; }
	$(BIN)/python -m pytest tests/browser -q $(BROWSER_XDIST) --book-html _build/html --screenshots _build/screenshots
	@echo "Screenshots of every page are in _build/screenshots"

chromium:
	@test -x "$(CHROMIUM)" || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "Installing Debian's chromium package ..."; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else \
	    echo "Chromium is missing at $(CHROMIUM): install it with 'sudo apt-get install chromium' (Debian/Ubuntu) or set CHROMIUM=/path/to/chrome, then re-run make." >&2; \
	    exit 1; \
	  fi; }

# External references (Sphinx's linkcheck builder, report in
# _build/linkcheck/output.txt). Offline, it says so and succeeds.
LINKCHECK_PROBE ?= doi.org
linkcheck: $(TEST_STAMP) dot
	@if ! $(BIN)/python -c 'import socket, sys; socket.create_connection((sys.argv[1], 443), timeout=5).close()' $(LINKCHECK_PROBE) 2>/dev/null; then \
	  echo "linkcheck skipped: no network (cannot reach $(LINKCHECK_PROBE):443)"; \
	else \
	  $(BIN)/jupyter-book build . --builder linkcheck; \
	fi

# Re-execute every notebook in place and store its outputs (for authors: run
# after changing dtree or a notebook, review the diff, commit).
NB ?= $(shell find book -name '*.ipynb' -not -path '*/.ipynb_checkpoints/*' -not -path '*/_build/*' | sort)
notebooks: $(BOOK_STAMP) dot
	$(BIN)/jupyter nbconvert --to notebook --execute --inplace \
	  --ExecutePreprocessor.record_timing=False --ExecutePreprocessor.timeout=600 $(NB)

# JupyterLab refuses to start as root unless told: pass --allow-root then.
lab: $(BOOK_STAMP) $(LAB_OVERRIDES) dot
	$(BIN)/jupyter lab --notebook-dir=book $(if $(filter 0,$(shell id -u)),--allow-root)

clean:
	rm -rf _build .pytest_cache .hypothesis
	find . -name __pycache__ -not -path './$(VENV)/*' -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV) $(OLDEST) $(NEWEST) *.egg-info build

# MathJax 3 is vendored in book/_static/mathjax, so that the book typesets its
# formulas with no network (mathjax_path in _config.yml).  `make mathjax`
# refreshes that copy: it fetches the pinned package from npm's registry,
# checks the tarball against its integrity hash and copies the files the book
# uses (see book/_static/mathjax/README.md).  The build itself never fetches it.
MATHJAX_VERSION   := 3.2.2
MATHJAX_INTEGRITY := sha512-Bt+SSVU8eBG27zChVewOicYs7Xsdt40qm4+UpHyX7k0/O9NliPc+x77k1/FEsPsjKPZGJvtRZM1vO+geW0OhGw==
MATHJAX_DIR       := book/_static/mathjax

.PHONY: mathjax
mathjax:
	@command -v npm >/dev/null || { echo "make mathjax needs npm (Debian/Ubuntu: sudo apt-get install npm)" >&2; exit 1; }
	tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	tgz=$$(cd "$$tmp" && npm pack --silent mathjax@$(MATHJAX_VERSION)); \
	got=$$($(PYTHON) -c 'import base64, hashlib, sys; print("sha512-" + base64.b64encode(hashlib.sha512(open(sys.argv[1], "rb").read()).digest()).decode())' "$$tmp/$$tgz"); \
	if [ "$$got" != "$(MATHJAX_INTEGRITY)" ]; then echo "mathjax@$(MATHJAX_VERSION): integrity $$got, expected $(MATHJAX_INTEGRITY)" >&2; exit 1; fi; \
	tar -xzf "$$tmp/$$tgz" -C "$$tmp"; \
	rm -rf $(MATHJAX_DIR)/output; mkdir -p $(MATHJAX_DIR)/output/chtml/fonts; \
	cp "$$tmp/package/LICENSE" "$$tmp/package/es5/tex-chtml-full.js" $(MATHJAX_DIR)/; \
	cp -r "$$tmp/package/es5/output/chtml/fonts/woff-v2" $(MATHJAX_DIR)/output/chtml/fonts/
	@echo "MathJax $(MATHJAX_VERSION) is in $(MATHJAX_DIR)"
