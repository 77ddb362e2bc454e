"""Serve the built HTML book on this machine: ``make serve`` (or
``python book/_ext/serve.py [--port 8000] [folder]``), then open the address it
prints.

A page opened as a file (``file://.../index.html``) cannot load its fonts:
browsers refuse fonts from file:// pages (CORS), so the theme's icons, MathJax's
maths fonts and the Chinese web font are missing and every page logs errors.
Served over HTTP from 127.0.0.1 (Python's own http.server, nothing to install)
the book works offline, as tests/browser serves it with this same handler.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class BookHandler(http.server.SimpleHTTPRequestHandler):
    """Static files, with the notebook MIME type for the download button's .ipynb."""

    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".ipynb": "application/x-ipynb+json",
        ".woff": "font/woff",
        ".woff2": "font/woff2",
    }


def server(directory: Path, port: int = 0, quiet: bool = False) -> http.server.ThreadingHTTPServer:
    """An HTTP server for `directory` on 127.0.0.1 (port 0: a free one); not started."""
    handler_class = BookHandler
    if quiet:
        handler_class = type("QuietBookHandler", (BookHandler,),
                             {"log_message": lambda self, format, *args: None})
    handler = functools.partial(handler_class, directory=str(directory))
    return http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=ROOT / "_build" / "html")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args(argv)
    if not (args.folder / "index.html").is_file():
        print(f"{args.folder} holds no built book (index.html): run `make book` first",
              file=sys.stderr)
        return 1
    try:
        httpd = server(args.folder, args.port)
    except OSError as error:
        print(f"cannot listen on 127.0.0.1:{args.port} ({error}): "
              "choose another port, e.g. make serve PORT=8001", file=sys.stderr)
        return 1
    with httpd:
        print(f"The book is at http://127.0.0.1:{httpd.server_address[1]}/ "
              "(Ctrl-C stops the server)", flush=True)
        try:
            httpd.serve_forever()
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
