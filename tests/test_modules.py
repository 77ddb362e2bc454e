"""dtree's modules are rooms of one concept each (issue 41): read from their source.

* No import circle: the graph of ``dtree`` modules importing one another (at
  the top of a module or inside a function, where a circle hides) has no
  cycle, so each module reads without the ones built on it.
* No private name (``_name``) of one module is imported by another, except
  from :mod:`dtree._helpers`, the one module of shared private pieces.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODULES = {path.stem: path for path in sorted((ROOT / "dtree").glob("*.py"))}


def _imports(path):
    """``(module, name)`` of every import of a dtree module in ``path`` (name None: the module itself)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                and (node.module == "dtree" or node.module.startswith("dtree.")):
            parent = node.module.partition(".")[2]
            for alias in node.names:
                if not parent and alias.name in MODULES:          # from dtree import kernels
                    found.append((alias.name, None))
                else:
                    found.append((parent or "__init__", alias.name))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("dtree."):
                    found.append((alias.name.partition(".")[2].partition(".")[0], None))
    return found


GRAPH = {name: {module for module, _ in _imports(path) if module in MODULES and module != name}
         for name, path in MODULES.items()}


def _cycles(graph):
    """Every module on a cycle, as the cycle found from it (depth-first search)."""
    cycles, state = [], {}

    def visit(node, stack):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, stack)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [])
    return cycles


def test_no_import_circle():
    # The package's __init__ imports the public modules; none imports it back.
    graph = {name: edges - {"__init__"} if name != "__init__" else edges for name, edges in GRAPH.items()}
    assert _cycles(graph) == []


def test_the_cycle_search_finds_a_circle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c", "a"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_private_name_crosses_modules_but_the_helpers():
    crossing = sorted(f"{name} imports {module}.{imported}"
                      for name, path in MODULES.items()
                      for module, imported in _imports(path)
                      if imported and imported.startswith("_") and not imported.startswith("__")
                      and module not in ("_helpers", name))
    assert crossing == []


def test_the_imports_are_read():
    # what the checks above read: the circle once found between the plotting
    # and the book modules, and the helpers' private names
    assert ("_helpers", "_import_optional") in _imports(MODULES["_book"])
    assert "kernels" in GRAPH["growth"] and "growth" in GRAPH["cart"]


def test_the_book_machinery_is_outside_the_public_namespace():
    # What the chapters import to record quoted numbers and figure data
    # (glue, glued, figure_data, show_source) is dtree._book: installed with
    # the package, so that a downloaded chapter runs, but no public module.
    import importlib

    import pytest

    assert "_book" in MODULES and "book" not in MODULES
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("dtree.book")
    import dtree

    assert not any("book" in name for name in dtree.__all__)
