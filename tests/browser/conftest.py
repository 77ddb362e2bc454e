"""Fixtures for the browser tests: the built book on a loopback HTTP server,
Debian's Chromium driven by Playwright, and where screenshots go.

Run with ``make browser-test`` (after ``make book``), or directly::

    .venv/bin/python -m pytest tests/browser --book-html _build/html

The HTML folder comes from ``--book-html``, else the environment variable
``BOOK_HTML``, else ``_build/html``; screenshots go to ``--screenshots``, else
``BOOK_SCREENSHOTS``, else ``<html>/../screenshots`` (``_build/screenshots``).
The browser is ``CHROMIUM`` (default ``/usr/bin/chromium``, Debian's package).
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Chromium flags. The background-networking ones stop Chromium's own calls
# home (which this machine's closed network refuses and which would show up
# as failed requests); the proxy sends every non-loopback request to a closed
# port, so nothing can leave the machine even if a page tries. Chromium
# bypasses the proxy for loopback on its own; the bypass list says so
# explicitly (note: "<-loopback>" would do the opposite and proxy loopback).
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--proxy-server=http://127.0.0.1:9",
    "--proxy-bypass-list=127.0.0.1;localhost",
]


def pytest_addoption(parser):
    group = parser.getgroup("book browser tests")
    group.addoption(
        "--book-html",
        default=os.environ.get("BOOK_HTML", str(ROOT / "_build" / "html")),
        help="folder of the built HTML book (default: $BOOK_HTML or _build/html)",
    )
    group.addoption(
        "--screenshots",
        default=os.environ.get("BOOK_SCREENSHOTS"),
        help="folder for page screenshots (default: $BOOK_SCREENSHOTS or <html>/../screenshots)",
    )


def _html_dir(config) -> Path:
    return Path(config.getoption("--book-html")).resolve()


def book_pages(html_dir: Path) -> list[str]:
    """Every page of the built book, as paths relative to ``html_dir``.

    All ``.html`` files except Sphinx's machinery (``search``, ``genindex``,
    the ``_static``/``_sources``/``_images`` folders and execution reports) and
    the ``index.html`` redirect to the root page.
    """
    skip_top = {"search.html", "genindex.html", "index.html"}
    pages = []
    for path in sorted(html_dir.rglob("*.html")):
        rel = path.relative_to(html_dir)
        if rel.parts[0].startswith("_") or rel.parts[0] == "reports":
            continue
        if len(rel.parts) == 1 and rel.name in skip_top:
            continue
        pages.append(rel.as_posix())
    return pages


def pytest_generate_tests(metafunc):
    if "page_path" in metafunc.fixturenames:
        html_dir = _html_dir(metafunc.config)
        pages = book_pages(html_dir) if html_dir.is_dir() else []
        # An empty list would make pytest skip silently; a missing build must fail.
        metafunc.parametrize("page_path", pages or ["<no built book>"])


@pytest.fixture(scope="session")
def html_dir(pytestconfig) -> Path:
    path = _html_dir(pytestconfig)
    if not (path / "index.html").is_file():
        pytest.fail(
            f"--book-html: no built book at {path} (index.html missing); "
            "run `make book` first, or pass --book-html / set BOOK_HTML",
            pytrace=False,
        )
    return path


@pytest.fixture(scope="session")
def screenshot_dir(pytestconfig) -> Path:
    option = pytestconfig.getoption("--screenshots")
    path = Path(option) if option else _html_dir(pytestconfig).parent / "screenshots"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _book_serve_module():
    """book/_ext/serve.py: the server of `make serve`, which the tests use too."""
    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    try:
        import serve
    finally:
        sys.path.pop(0)
    return serve


@pytest.fixture(scope="session")
def book_server(html_dir):
    """Serve ``html_dir`` on 127.0.0.1 at a free port, as `make serve` does
    (book/_ext/serve.py); yields the base URL."""
    server = _book_serve_module().server(html_dir, quiet=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    if not os.access(path, os.X_OK):
        pytest.fail(
            f"CHROMIUM: no browser executable at {path}; install Debian's package "
            "(sudo apt-get install chromium, or `make browser-test` as root) "
            "or set CHROMIUM to a Chromium/Chrome binary",
            pytrace=False,
        )
    return path


@pytest.fixture(scope="session")
def browser(chromium_path):
    """One headless Chromium for the whole session (Playwright's sync API)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        # Playwright hides scrollbars in headless Chromium by default; a
        # reader sees them, and test_pages.py checks that they are shown.
        browser = playwright.chromium.launch(
            executable_path=chromium_path, args=CHROMIUM_ARGS, headless=True,
            ignore_default_args=["--hide-scrollbars"],
        )
        try:
            yield browser
        finally:
            browser.close()


class Offline:
    """Route handler for a page: let loopback requests through, abort and
    record every other one (the test fails listing them)."""

    def __init__(self):
        self.blocked: list[str] = []

    def __call__(self, route):
        url = route.request.url
        parts = urlsplit(url)
        if parts.scheme in ("data", "blob", "about") or parts.hostname in (
            "127.0.0.1",
            "localhost",
            "::1",
        ):
            route.continue_()
        else:
            self.blocked.append(url)
            route.abort("internetdisconnected")


@pytest.fixture
def offline_context(browser):
    """A fresh browser context with every non-loopback request aborted.

    Yields ``(context, offline)``; ``offline.blocked`` lists the aborted URLs.
    """
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    offline = Offline()
    context.route("**/*", offline)
    try:
        yield context, offline
    finally:
        context.close()
