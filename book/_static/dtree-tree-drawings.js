/* Tree drawings (Graphviz SVGs, image class tree-drawing, and dtree.plot_tree's
   PNGs, class tree-plot) that fit their column.

   A drawing is shown at three quarters of Graphviz's size (box text 14 px), or
   smaller when its column is narrower, down to box text of MIN_TEXT_PX.  A
   tree that is still wider than its column at that size (a deep tree, or any
   tree on a phone) sits in a frame with a scrollbar that is always shown, and
   a button above it switches between that readable size and the whole tree
   fitted to the column ("Fit to column" / "Readable size"): the overview and
   the details are both one click away, and nothing is hidden without a visible
   way to reach it.  Sizes follow the window (a phone turned sideways).
   tests/browser/test_pages.py checks the text size and that every drawing's
   content is visible or scrollable by a visible scrollbar. */
(() => {
  "use strict";
  const SVG_TEXT_PX = 14 * 4 / 3;   // Graphviz's 14 pt box text at natural size
  const BOOK_SCALE = 0.75;           // the book's size: 14 px box text
  const MIN_TEXT_PX = 11;
  const MIN_SCALE = MIN_TEXT_PX / SVG_TEXT_PX;
  // A matplotlib tree (dtree.plot_tree, image class tree-plot) is a PNG stored
  // at twice the size it is drawn for (sharp on high-DPI screens): shown at
  // that size or less when it fits, never below it when it does not.
  const SELECTOR = "img.tree-drawing, img.tree-plot";
  function scales(img) {
    return img.classList.contains("tree-plot")
      ? { book: 0.5, min: 0.5 } : { book: BOOK_SCALE, min: MIN_SCALE };
  }

  function frameOf(img) {
    // Sphinx links a scaled PNG to its file: the frame goes around the link,
    // so that the button above it is not part of the link.
    const item = img.parentElement.tagName === "A" ? img.parentElement : img;
    if (item.parentElement.classList.contains("tree-drawing-frame")) return item.parentElement;
    const frame = document.createElement("div");
    frame.className = "tree-drawing-frame";
    item.before(frame);
    frame.append(item);
    const bar = document.createElement("div");
    bar.className = "tree-drawing-bar";
    const note = document.createElement("span");
    note.className = "tree-drawing-note";
    const button = document.createElement("button");
    button.type = "button";
    button.className = "tree-drawing-zoom";
    button.addEventListener("click", () => {
      frame.dataset.fitted = frame.dataset.fitted === "yes" ? "no" : "yes";
      size(img);
    });
    bar.append(note, button);
    frame.before(bar);
    return frame;
  }

  function size(img) {
    if (!img.naturalWidth) return;
    const frame = frameOf(img);
    const parent = frame.parentElement, style = getComputedStyle(parent);
    const column = parent.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const natural = img.naturalWidth;
    const scale = scales(img);
    const fit = Math.min(scale.book, column / natural);
    const readable = Math.max(fit, scale.min);
    const wide = natural * readable > column + 1;
    const fitted = wide && frame.dataset.fitted === "yes";
    img.style.width = `${Math.ceil(natural * (fitted ? fit : readable))}px`;
    img.style.height = "auto";
    img.style.maxWidth = "none";
    frame.classList.toggle("tree-drawing-scrolls", wide && !fitted);
    const bar = frame.previousElementSibling;
    bar.hidden = !wide;
    if (wide) {
      bar.querySelector(".tree-drawing-note").textContent = fitted
        ? "The whole tree, reduced to the column."
        : "The tree is wider than the column: scroll sideways, or";
      bar.querySelector(".tree-drawing-zoom").textContent = fitted
        ? "Readable size" : "Fit to column";
    }
  }

  function sizeAll() {
    document.querySelectorAll(SELECTOR).forEach(size);
  }

  function start() {
    document.querySelectorAll(SELECTOR).forEach(img => {
      if (img.complete) size(img);
      else img.addEventListener("load", () => size(img), { once: true });
    });
    let pending = null;
    window.addEventListener("resize", () => {
      cancelAnimationFrame(pending);
      pending = requestAnimationFrame(sizeAll);
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
