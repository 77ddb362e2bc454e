"""Every page of the built book, opened in Chromium with the network cut off.

For each page (one test per page) the test checks, as a reader would see it:

- no request leaves the loopback server (the book works offline) and every
  request it makes is answered (no 404 for a script, style sheet or font);
- every formula is typeset: MathJax finished, pages with maths have
  ``mjx-container`` elements, no ``merror``, and no visible text still holds
  raw TeX delimiters (``$$``, ``\\(``, ``\\[``);
- every image and figure loaded (``naturalWidth > 0``);
- every internal link resolves: the target file is served (HTTP 200) and a
  ``#fragment`` names an ``id`` (or ``name``) in the target page;
- no console error and no uncaught JavaScript exception;
- a favicon that is served, and no horizontal overflow in a 390 px (phone) viewport;
- no raw MyST or Markdown in the rendered text (a role, a directive fence,
  backticks, asterisks, a link or ``$`` maths that did not render);
- every figure of the article (an image in a cell output or a figure) has a
  numbered caption ("Fig. N"), and every tree drawing's box text is at least
  MIN_TREE_TEXT_PX high, at 1280 px and at 390 px, and a drawing whose content
  lies outside its box's visible area has a visible scrollbar there;
- every code cell shown at 1280 px fits the text column (no sideways scroll);
- at 390 px no equation number overlaps its equation;
- on a page with Chinese text, the book's CJK web font loads and holds every
  Chinese character shown (machines without a CJK font show it in that font);
- a reference to another page's equation names that page ("(3) of Impurity
  measures");
- every display equation is numbered, (1), (2), ... in reading order on its
  page (as JupyterLab's MyST renderer numbers a notebook's; the JupyterLab
  test checks the same there);
- on a page built from a notebook, the download button offers the ``.ipynb``
  and what it serves is a valid notebook (``nbformat.validate``);

and saves a full-page screenshot under ``_build/screenshots/<page>.png``.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import nbformat

from tests.browser.conftest import Offline, book_pages

TIMEOUT_MS = 30_000

# JavaScript run in the page -------------------------------------------------

WAIT_FOR_MATHJAX = """
async (timeoutMs) => {
  const start = Date.now();
  // MathJax is loaded with `defer`: wait for the global to become the real
  // MathJax object (the page first sets a plain config object).
  while (!(window.MathJax && window.MathJax.startup && window.MathJax.startup.promise)) {
    if (Date.now() - start > timeoutMs) return "MathJax never started (not loaded?)";
    await new Promise(r => setTimeout(r, 50));
  }
  await window.MathJax.startup.promise;
  return "ok";
}
"""

MATH_REPORT = """
() => {
  const raw = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, {
    acceptNode(node) {
      const parent = node.parentElement;
      if (!parent || parent.closest("script, style, pre, code, textarea, mjx-container, .highlight"))
        return NodeFilter.FILTER_REJECT;
      return NodeFilter.FILTER_ACCEPT;
    },
  });
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent;
    if (text.includes("$$") || text.includes("\\\\(") || text.includes("\\\\["))
      raw.push(text.trim().slice(0, 80));
  }
  return {
    mathElements: document.querySelectorAll(".math").length,
    typeset: document.querySelectorAll("mjx-container").length,
    errors: [...document.querySelectorAll("mjx-merror, merror")].map(e => e.textContent.slice(0, 80)),
    raw: raw,
  };
}
"""

LOAD_IMAGES = """
async (timeoutMs) => {
  const images = [...document.images];
  for (const img of images) img.loading = "eager";
  await Promise.race([
    Promise.all(images.map(img => img.complete ? null :
      new Promise(r => { img.addEventListener("load", r); img.addEventListener("error", r); }))),
    new Promise(r => setTimeout(r, timeoutMs)),
  ]);
  return images.map(img => ({src: img.currentSrc || img.src, complete: img.complete,
                             naturalWidth: img.naturalWidth}));
}
"""

LINKS = "() => [...document.querySelectorAll('a[href]')].map(a => a.href)"

# Text a reader sees, outside code, maths and scripts: raw MyST or Markdown in
# it means a role or directive did not render (e.g. a line of inline maths that
# starts with "- " became a bullet list and cut a role in two).
RAW_MARKUP = r"""
() => {
  const patterns = [
    [/\{[a-z][\w:-]*\}`/, "a MyST role"],
    [/```|^:::|\n:::/, "a directive fence"],
    [/`/, "a backtick"],
    [/\*\*\S/, "Markdown bold"],
    [/(^|[\s(])\*[A-Za-z][\w ]{0,40}\*(?=[\s.,;:)]|$)/, "Markdown emphasis"],
    [/\]\((https?:|\.|#)/, "a Markdown link"],
    [/\$/, "a $ of unrendered maths"],
    [/\\[A-Za-z]{2,}/, "a raw TeX command"],
  ];
  const found = [];
  const root = document.querySelector("article") || document.body;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode(node) {
      const parent = node.parentElement;
      if (!parent || parent.closest("script, style, pre, code, kbd, textarea, mjx-container, .highlight, .math, .sig"))
        return NodeFilter.FILTER_REJECT;
      // numpydoc's name of a ``**kwargs`` parameter, drawn in bold: "**arrays"
      if (parent.matches("dt > strong") && /^\*{1,2}[A-Za-z_]\w*$/.test(node.textContent))
        return NodeFilter.FILTER_REJECT;
      return NodeFilter.FILTER_ACCEPT;
    },
  });
  // Join the text of each block element, so that a role cut over two nodes is seen whole.
  const blocks = new Map();
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const block = node.parentElement.closest(
      "p, li, dd, dt, td, th, figcaption, h1, h2, h3, h4, caption") || node.parentElement;
    blocks.set(block, (blocks.get(block) || "") + node.textContent);
  }
  for (const text of blocks.values())
    for (const [pattern, what] of patterns)
      if (pattern.test(text)) found.push(`${what}: ${text.trim().slice(0, 100)}`);
  return found;
}
"""

# Every figure of the article: an image in a cell's output or in a figure.
FIGURES = r"""
() => [...document.querySelectorAll("article div.cell_output img, article figure img")].map(img => {
  const figure = img.closest("figure");
  const caption = figure ? figure.querySelector("figcaption") : null;
  return {src: img.getAttribute("src"),
          caption: caption ? caption.textContent.trim().replace(/\s+/g, " ").slice(0, 60) : null};
})
"""

# Box text of a Graphviz drawing: 14 pt in the SVG (18.7 px at natural size),
# scaled as the page shows the image (CSS zoom included).
TREE_TEXT_PX = """
() => [...document.querySelectorAll("article img.tree-drawing")].map(img => {
  const shown = img.getBoundingClientRect().width;
  return {src: img.getAttribute("src"), px: img.naturalWidth ? 14 * 4 / 3 * shown / img.naturalWidth : 0};
})
"""

# Code cells a reader sees (not folded: a hide-input cell's code, inside
# sphinx-togglebutton's ".hide.above-input" box, may be wider): wider than their
# column?
WIDE_CODE = """
() => [...document.querySelectorAll("article div.cell_input pre")]
  .filter(pre => pre.clientWidth > 0 && !pre.closest("details:not([open]), .hide.above-input"))
  .filter(pre => pre.scrollWidth > pre.clientWidth + 1)
  .map(pre => pre.textContent.split("\\n").reduce((a, b) => a.length >= b.length ? a : b).slice(0, 60))
"""

MIN_TREE_TEXT_PX = 11

# dtree.plot_tree's drawings (PNG, image class tree-plot, stored at twice the
# size they are drawn for): shown narrower than that size, their text is
# smaller than matplotlib drew it.
TREE_PLOTS_SHRUNK = """
() => [...document.querySelectorAll("article img.tree-plot")]
  .filter(img => img.naturalWidth && img.getBoundingClientRect().width < img.naturalWidth / 2 - 1)
  .map(img => `${img.getAttribute("src")} (${Math.round(img.getBoundingClientRect().width)} of `
              + `${img.naturalWidth / 2} px)`)
"""

# Tree drawings whose content lies partly outside the visible area of the box
# that clips them (the nearest ancestor that does not let it overflow, else the
# article), with the height of that box's horizontal scrollbar: content out of
# sight needs a scrollbar that is shown (Chromium draws a styled scrollbar,
# which takes room; an overlay scrollbar, hidden until touched, takes none).
TREE_CLIPPED = r"""
() => [...document.querySelectorAll("article img.tree-drawing, article img.tree-plot")].map(img => {
  let box = img.parentElement;
  while (box.tagName !== "ARTICLE" && getComputedStyle(box).overflowX === "visible")
    box = box.parentElement;
  const style = getComputedStyle(box);
  const borders = parseFloat(style.borderTopWidth) + parseFloat(style.borderBottomWidth);
  const scrollbar = ["auto", "scroll"].includes(style.overflowX)
    ? box.offsetHeight - box.clientHeight - borders : 0;
  const a = img.getBoundingClientRect(), b = box.getBoundingClientRect();
  const left = b.left + box.clientLeft, right = left + box.clientWidth;
  const hidden = box.scrollWidth > box.clientWidth + 1 || a.left < left - 1 || a.right > right + 1;
  // The zoom button above a drawing too wide for its column
  // (book/_static/dtree-tree-drawings.js), shown and clickable.
  const frame = img.closest(".tree-drawing-frame");
  const bar = frame && frame.previousElementSibling;
  const button = bar && !bar.hidden && bar.querySelector("button.tree-drawing-zoom");
  const affordance = Boolean(button && button.getBoundingClientRect().width > 0);
  return {src: img.getAttribute("src"), hidden: hidden, scrollbar: scrollbar,
          affordance: affordance,
          shown: Math.round(Math.min(a.right, right) - Math.max(a.left, left)),
          width: Math.round(a.width)};
})
"""

# References to another page's equation: their text (each page numbers its
# equations from (1), so the chapter must be named: "(3) of Impurity measures").
OTHER_PAGE_EQUATION_REFS = r"""
() => [...document.querySelectorAll("article a[href*='#equation-']")]
  .filter(a => new URL(a.href).pathname !== location.pathname)
  .map(a => a.textContent.trim().replace(/\s+/g, " "))
"""

# Chinese text of the article, rendered by the book's CJK web font: false if the
# font does not load or lacks a character; null on a page without Chinese.
CJK_WEB_FONT = r"""
async () => {
  const text = (document.querySelector("article") || document.body).innerText;
  const cjk = [...new Set(text.match(/[　-ヿ㐀-䶿一-鿿豈-﫿＀-￯]/g) || [])].join("");
  if (!cjk) return null;
  const font = '16px "dtree book CJK subset"';
  try {
    const faces = await document.fonts.load(font, cjk);
    return faces.length > 0 && faces.every(f => f.status === "loaded") && document.fonts.check(font, cjk);
  } catch (error) {
    return false;
  }
}
"""

# The number of every display equation of the article, in reading order (None
# for an unnumbered one).
EQUATION_NUMBERS = r"""
() => [...document.querySelectorAll("article div.math")].map(div => {
  const eqno = div.querySelector("span.eqno");
  const match = eqno ? eqno.textContent.match(/\((\d+)\)/) : null;
  return match ? Number(match[1]) : null;
})
"""

# Equation numbers that overlap their equation (a wide equation on a phone).
EQNO_OVERLAPS = """
() => [...document.querySelectorAll("article span.eqno")].filter(eqno => {
  const maths = eqno.parentElement.querySelector("mjx-container");
  if (!maths) return false;
  const a = eqno.getBoundingClientRect(), b = maths.getBoundingClientRect();
  return a.width > 0 && a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
}).map(eqno => eqno.textContent.trim())
"""


# Helpers --------------------------------------------------------------------


class _Anchors(HTMLParser):
    """Collect every ``id`` and ``name`` attribute of an HTML page."""

    def __init__(self):
        super().__init__()
        self.names: set[str] = set()

    def handle_starttag(self, tag, attrs):
        for key, value in attrs:
            if key in ("id", "name") and value:
                self.names.add(value)


_anchor_cache: dict[str, set[str] | None] = {}


def _fetch(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, b""


def _anchors_of(url: str) -> set[str] | None:
    """Anchors of the page at ``url``, or None when it is not served (not 200)."""
    if url not in _anchor_cache:
        status, body = _fetch(url)
        if status != 200:
            _anchor_cache[url] = None
        else:
            parser = _Anchors()
            if url.endswith((".html", "/")):
                parser.feed(body.decode("utf-8", errors="replace"))
            _anchor_cache[url] = parser.names
    return _anchor_cache[url]


def _screenshot_name(page_path: str) -> str:
    return re.sub(r"\.html$", ".png", page_path)


# The test -------------------------------------------------------------------


def test_page(page_path, html_dir, book_server, offline_context, screenshot_dir):
    context, offline = offline_context
    page = context.new_page()
    console_errors: list[str] = []
    failed: list[str] = []
    page.on(
        "console",
        lambda msg: console_errors.append(f"console.{msg.type}: {msg.text}")
        if msg.type == "error"
        else None,
    )
    page.on("pageerror", lambda error: console_errors.append(f"uncaught: {error}"))
    page.on(
        "requestfailed",
        lambda request: failed.append(f"{request.url} ({request.failure})")
        if urlsplit(request.url).hostname == "127.0.0.1"
        else None,
    )
    page.on(
        "response",
        lambda response: failed.append(f"{response.url} (HTTP {response.status})")
        if response.status >= 400
        else None,
    )

    url = urljoin(book_server, page_path)
    response = page.goto(url, wait_until="load", timeout=TIMEOUT_MS)
    assert response is not None and response.status == 200, f"{page_path}: not served"
    problems: list[str] = []

    # Formulas: wait for MathJax (if the page loads it), then inspect.
    math = page.evaluate(MATH_REPORT)
    if math["mathElements"]:
        state = page.evaluate(WAIT_FOR_MATHJAX, TIMEOUT_MS)
        if state != "ok":
            problems.append(f"maths: {state}")
        math = page.evaluate(MATH_REPORT)
        if not math["typeset"]:
            problems.append(
                f"maths: {math['mathElements']} formulas on the page but no mjx-container"
            )
        if math["errors"]:
            problems.append(f"maths: MathJax errors {math['errors']}")
    if math["raw"]:
        problems.append(f"maths: raw TeX left in the text: {math['raw'][:5]}")

    # Images and figures.
    images = page.evaluate(LOAD_IMAGES, TIMEOUT_MS)
    broken = [img["src"] for img in images if not (img["complete"] and img["naturalWidth"] > 0)]
    if broken:
        problems.append(f"images not loaded: {broken}")

    # Internal links and anchors (targets fetched from the same server).
    base = book_server.rstrip("/")
    bad_links = set()
    for href in sorted(set(page.evaluate(LINKS))):
        parts = urlsplit(href)
        if f"{parts.scheme}://{parts.netloc}" != base:
            continue  # external: `make linkcheck` checks those
        target = href.split("#", 1)[0]
        anchors = _anchors_of(target)
        if anchors is None:
            bad_links.add(f"{href} (target not served)")
        elif parts.fragment and unquote(parts.fragment) not in anchors:
            bad_links.add(f"{href} (no element with id {unquote(parts.fragment)!r})")
    if bad_links:
        problems.append(f"broken internal links: {sorted(bad_links)}")

    # The tab's icon (headless Chromium does not fetch it by itself).
    icons = page.eval_on_selector_all(
        "link[rel~='icon']", "links => links.map(l => l.href)")
    if not icons:
        problems.append("no favicon link")
    for icon in icons:
        status, _ = _fetch(icon)
        if status != 200:
            problems.append(f"favicon {icon}: HTTP {status}")

    # What a reader sees: no raw markup, numbered figures, code that fits.
    raw = page.evaluate(RAW_MARKUP)
    if raw:
        problems.append(f"raw MyST/Markdown in the rendered text: {raw[:5]}")
    uncaptioned = [f["src"] for f in page.evaluate(FIGURES)
                   if not (f["caption"] and re.match(r"Fig\. \d+", f["caption"]))]
    if uncaptioned:
        problems.append(f"figures without a numbered caption: {uncaptioned}")
    if page.evaluate(CJK_WEB_FONT) is False:
        problems.append("the CJK web font (dtree book CJK subset) does not load or lacks "
                        "some of the page's Chinese characters")
    unnamed = [text for text in page.evaluate(OTHER_PAGE_EQUATION_REFS)
               if not re.fullmatch(r"\(\d+\) of \S.*", text)]
    if unnamed:
        problems.append(f"references to another page's equation without its chapter: {unnamed[:5]}")
    numbers = page.evaluate(EQUATION_NUMBERS)
    if numbers != list(range(1, len(numbers) + 1)):
        problems.append(f"display equations numbered {numbers}, not 1 to {len(numbers)} in order")
    wide = page.evaluate(WIDE_CODE)
    if wide:
        problems.append(f"code wider than the column at 1280 px: {wide[:3]}")
    small = [f"{t['src']} ({t['px']:.1f} px)" for t in page.evaluate(TREE_TEXT_PX)
             if t["px"] < MIN_TREE_TEXT_PX]
    if small:
        problems.append(f"tree drawings with box text under {MIN_TREE_TEXT_PX} px at 1280 px: {small}")
    shrunk = page.evaluate(TREE_PLOTS_SHRUNK)
    if shrunk:
        problems.append(f"plot_tree drawings shrunk below their size at 1280 px: {shrunk}")
    clipped = [f"{t['src']} ({t['shown']} of {t['width']} px shown)"
               for t in page.evaluate(TREE_CLIPPED) if t["hidden"] and t["scrollbar"] < 6]
    if clipped:
        problems.append(f"tree drawings cut off at 1280 px without a visible scrollbar: {clipped}")

    # A phone: at 390 px nothing widens the page (it would scroll sideways),
    # and tree drawings stay legible (scrolling inside their box if need be).
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_timeout(300)
    widths = page.evaluate(
        "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    if widths[0] > widths[1]:
        problems.append(f"at 390 px the page is {widths[0]} px wide (scrolls sideways)")
    small = [f"{t['src']} ({t['px']:.1f} px)" for t in page.evaluate(TREE_TEXT_PX)
             if t["px"] < MIN_TREE_TEXT_PX]
    if small:
        problems.append(f"tree drawings with box text under {MIN_TREE_TEXT_PX} px at 390 px: {small}")
    clipped = [f"{t['src']} ({t['shown']} of {t['width']} px shown)"
               for t in page.evaluate(TREE_CLIPPED) if t["hidden"] and t["scrollbar"] < 6]
    if clipped:
        problems.append(f"tree drawings cut off at 390 px without a visible scrollbar: {clipped}")
    shrunk = page.evaluate(TREE_PLOTS_SHRUNK)
    if shrunk:
        problems.append(f"plot_tree drawings shrunk below their size at 390 px: {shrunk}")
    overlaps = page.evaluate(EQNO_OVERLAPS)
    if overlaps:
        problems.append(f"at 390 px equation numbers overlap their equations: {overlaps[:5]}")
    page.set_viewport_size({"width": 1280, "height": 900})

    # Full-page screenshot (after MathJax and images, before the download menu is opened).
    shot = screenshot_dir / _screenshot_name(page_path)
    shot.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shot), full_page=True)

    # Download button: a page built from a notebook must offer the notebook.
    source = html_dir / "_sources" / Path(page_path).with_suffix(".ipynb")
    if source.is_file():
        problems.extend(_check_download(page, page_path))

    if offline.blocked:
        problems.append(f"requests leaving loopback (blocked): {sorted(set(offline.blocked))}")
    if failed:
        problems.append(f"failed requests: {sorted(set(failed))}")
    if console_errors:
        problems.append(f"console errors: {console_errors}")
    assert not problems, f"{page_path}:\n  " + "\n  ".join(problems)


def _check_download(page, page_path: str) -> list[str]:
    """Open the download menu, take its .ipynb entry, validate what it serves."""
    toggle = page.locator(".dropdown-download-buttons button.dropdown-toggle")
    if toggle.count() == 0:
        return ["download: no download button"]
    toggle.first.click()
    item = page.locator(".dropdown-download-buttons a[href$='.ipynb']")
    if item.count() == 0:
        return ["download: the download menu offers no .ipynb"]
    item.first.wait_for(state="visible", timeout=TIMEOUT_MS)
    href = item.first.evaluate("a => a.href")
    response = page.request.get(href)
    if response.status != 200:
        return [f"download: {href} answered HTTP {response.status}"]
    try:
        notebook = nbformat.reads(response.text(), as_version=4)
        nbformat.validate(notebook)
    except (json.JSONDecodeError, nbformat.ValidationError, ValueError) as error:
        return [f"download: {href} is not a valid notebook: {error}"]
    if not notebook.cells:
        return [f"download: {href} has no cells"]
    return []


def test_tree_drawings_on_a_phone(html_dir, book_server, browser):
    """Every page with a tree drawing, on an emulated phone (390 px, touch):
    phones draw overlay scrollbars, which stay hidden until the reader scrolls,
    so a drawing too wide for the column must show its zoom button
    (book/_static/dtree-tree-drawings.js); its box text is at least
    MIN_TREE_TEXT_PX; "Fit to column" shows the whole tree within the column,
    and a second click returns to the readable size."""
    pages = [p for p in book_pages(html_dir)
             if re.search(r"tree-(drawing|plot)", (html_dir / p).read_text(encoding="utf-8"))]
    assert pages, "no page with a tree drawing"
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                                  has_touch=True, device_scale_factor=2)
    context.route("**/*", Offline())
    problems = []
    try:
        page = context.new_page()
        for page_path in pages:
            page.goto(urljoin(book_server, page_path), wait_until="load", timeout=TIMEOUT_MS)
            page.evaluate(LOAD_IMAGES, TIMEOUT_MS)
            page.wait_for_timeout(300)
            for t in page.evaluate(TREE_TEXT_PX):
                if t["px"] < MIN_TREE_TEXT_PX:
                    problems.append(f"{page_path}: {t['src']} box text {t['px']:.1f} px")
            problems += [f"{page_path}: {t} shrunk" for t in page.evaluate(TREE_PLOTS_SHRUNK)]
            drawings = page.evaluate(TREE_CLIPPED)
            for index, t in enumerate(drawings):
                if not t["hidden"]:
                    continue
                if not t["affordance"]:
                    problems.append(f"{page_path}: {t['src']} shows {t['shown']} of "
                                    f"{t['width']} px, with no visible scrollbar or zoom button")
                    continue
                button = page.locator("article img.tree-drawing, article img.tree-plot").nth(
                    index).locator(
                    "xpath=ancestor::div[contains(@class, 'tree-drawing-frame')]"
                    "/preceding-sibling::div[contains(@class, 'tree-drawing-bar')]//button")
                button.click()
                page.wait_for_timeout(100)
                after = page.evaluate(TREE_CLIPPED)
                if len(after) != len(drawings):
                    problems.append(f"{page_path}: the zoom button of {t['src']} left the page "
                                    f"({page.url})")
                    break
                fitted = after[index]
                if fitted["hidden"]:
                    problems.append(f"{page_path}: {t['src']} still cut off after "
                                    f"'Fit to column' ({fitted['shown']} of {fitted['width']} px)")
                button.click()
                page.wait_for_timeout(100)
                if page.evaluate(TREE_CLIPPED)[index]["width"] != t["width"]:
                    problems.append(f"{page_path}: {t['src']} not back to its readable size "
                                    "after the second click")
    finally:
        context.close()
    assert not problems, "tree drawings on a phone:\n  " + "\n  ".join(problems)
