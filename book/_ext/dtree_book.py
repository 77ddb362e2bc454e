"""Sphinx glue for the dtree book (loaded through ``sphinx.local_extensions`` in _config.yml).

Small things that a configuration value cannot do:

* ``dtree_version`` (``dtree.__version__``) in the template context of every
  HTML page, for the footer line in ``book/_templates/dtree-versions.html``:
  the version has one home, ``dtree/__init__.py``.
* Cross-references to a public alias find the documented object: a docstring
  may write ``dtree.export_text`` (the name users import) while the function
  is documented in its module as ``dtree.export.export_text``, or name a class
  of its own module without the module.  A reference that Sphinx cannot
  resolve is imported; if it names an object that the API reference
  documents under its defining module, or a unique documented object of that
  name, the link goes there.  A name that matches nothing still fails the
  nitpicky build.
* In numpydoc's parameter and attribute types, a name ending in an underscore
  followed by a comma or a parenthesis (``of shape (n_features_in_,)``, as in
  scikit-learn) is escaped; reStructuredText would read it as a hyperlink
  reference.
* Each <script> once per page (sphinx-thebe's inline script is written twice
  by Sphinx 7.4, and its repeated ``const`` throws in the browser).
* Glossary term ids without dots (``term-C4.5`` breaks Bootstrap's
  scroll-spy selector), links to them rewritten alike.
* Every exercise ends with a link to its solution, found in sphinx-exercise's
  registry (the solution directive names its exercise), so no page has to
  keep such links by hand.
* Citations of a source without an author by its short title
  (``dtree_author_year``, below).
* Every display equation numbered in its page's order, as JupyterLab's MyST
  renderer numbers them, so that an equation has one number in both; a
  reference to another page's equation names that page's chapter.
* The student edition (``dtree_edition = "student"``, set by ``make
  student-book``): no solution links, and a build that contains a solution
  fails, so solutions cannot slip into the edition handed to students.
"""

import importlib
import re
from dataclasses import dataclass, field

import dtree
import pybtex.style.template as bibtemplate
from sphinxcontrib.bibtex.plugin import register_plugin
from sphinxcontrib.bibtex.style.referencing import PersonStyle
from sphinxcontrib.bibtex.style.referencing.author_year import AuthorYearReferenceStyle
from sphinxcontrib.bibtex.style.template import names


def add_dtree_version(app, config):
    """Set ``html_context["dtree_version"]`` (Sphinx's ``config-inited`` event)."""
    config.html_context = {**config.html_context, "dtree_version": dtree.__version__}


def _import(dotted):
    """The object named by a dotted path, or None (also for a relative or empty one)."""
    parts = dotted.split(".")
    if not all(parts):
        return None
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        try:
            for attr in parts[i:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return None
        return obj
    return None


def resolve_public_alias(app, env, node, contnode):
    """Resolve a Python reference to a re-exported or unqualified name (``missing-reference``)."""
    if node.get("refdomain") != "py":
        return None
    domain = env.get_domain("py")
    target = node["reftarget"]
    modname = node.get("py:module") or ""
    candidates = [target, f"{modname}.{target}", f"dtree.{target}"]
    for candidate in candidates:
        obj = _import(candidate)
        module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
        if obj is not None and module and qualname and f"{module}.{qualname}" != candidate:
            found = domain.resolve_xref(env, node["refdoc"], app.builder, node["reftype"],
                                        f"{module}.{qualname}", node, contnode)
            if found is not None:
                return found
    # A unique documented object of that name (what a leading "." asks Sphinx for).
    matches = domain.find_obj(env, modname, node.get("py:class"), target, node["reftype"],
                              searchmode=1)
    if len(matches) == 1:
        return domain.resolve_xref(env, node["refdoc"], app.builder, node["reftype"],
                                   matches[0][0], node, contnode)
    return None


# "name : type" lines of numpydoc sections; in the type, "word_" before "," or ")".
_PARAM_LINE = re.compile(r"^(\s*[\w, *\\]+ : )(.*)$")
_TRAILING_UNDERSCORE = re.compile(r"(\w)_(?=[,)])")


def escape_type_underscores(app, what, name, obj, options, lines):
    """Escape ``name_`` before ``,`` or ``)`` in numpydoc type text (``autodoc-process-docstring``)."""
    for i, line in enumerate(lines):
        match = _PARAM_LINE.match(line)
        if match:
            lines[i] = match.group(1) + _TRAILING_UNDERSCORE.sub(r"\1\\_", match.group(2))


def dedupe_scripts(app, pagename, templatename, context, doctree):
    """Drop repeated <script> entries (``html-page-context``).

    sphinx-thebe adds its inline ``THEBE_JS_URL`` script in a way that
    Sphinx 7.4 writes twice, and the second ``const`` declaration throws in
    the browser.  Keep the first copy of every script.
    """
    seen, unique = set(), []
    for script in context.get("script_files", []):
        key = (getattr(script, "filename", "") or "",
               tuple(sorted(getattr(script, "attributes", {}).items())))
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"] = unique


def _safe_term_id(anchor):
    """``term-C4.5`` -> ``term-C4-5``: a dot in an id breaks CSS selectors (Bootstrap's scroll-spy)."""
    return anchor.replace(".", "-") if anchor.startswith("term-") else anchor


def dotless_term_ids(app, doctree, docname):
    """Glossary term ids and every link to them without dots (``doctree-resolved``)."""
    from docutils import nodes

    for node in doctree.findall(nodes.Element):
        if node.get("ids"):
            node["ids"] = [_safe_term_id(i) for i in node["ids"]]
        if isinstance(node, nodes.reference):
            if node.get("refid"):
                node["refid"] = _safe_term_id(node["refid"])
            uri = node.get("refuri", "")
            if "#term-" in uri:
                page, anchor = uri.split("#", 1)
                node["refuri"] = f"{page}#{_safe_term_id(anchor)}"


def _solutions_by_exercise(env):
    """``{exercise label: (solution docname, solution label)}`` from sphinx-exercise."""
    registry = getattr(env, "sphinx_exercise_registry", {})
    found = {}
    for label, info in registry.items():
        target = info["node"].get("target_label") if info["type"].startswith("solution") else None
        if target:
            found[target] = (info["docname"], label)
    return found


def _solution_anchor(exercise_label):
    """The HTML id of the solution of an exercise.

    sphinx-exercise names a solution after its page (``book/solutions/gain-
    solution-0``); a slash is no valid CSS selector, and the theme's scripts
    throw on such a link target. This id is a plain one.
    """
    return f"solution-{exercise_label}"


def link_exercises_to_solutions(app, doctree, docname):
    """Append "Solution" links to exercises; refuse solutions in the student edition.

    Sphinx's ``doctree-resolved`` event: every document is read by then, so
    the registry knows all solutions, wherever they are.
    """
    from docutils import nodes
    from sphinx.errors import ExtensionError
    from sphinx_exercise.nodes import (exercise_enumerable_node, exercise_node, solution_node,
                                       solution_start_node)

    if app.config.dtree_edition == "student":
        if docname.startswith("book/solutions/") or any(
            "solution" in node.get("classes", []) for node in doctree.findall(nodes.Element)
        ):
            raise ExtensionError(f"the student edition must not contain solutions, but {docname} has one")
        return
    for node in doctree.findall(lambda n: isinstance(n, (solution_node, solution_start_node))):
        if node.get("target_label"):
            node["ids"].append(_solution_anchor(node["target_label"]))
    solutions = _solutions_by_exercise(app.env)
    for node in doctree.findall(lambda n: isinstance(n, (exercise_enumerable_node, exercise_node))):
        if node.get("label") not in solutions:
            continue
        soldoc, _ = solutions[node["label"]]
        uri = app.builder.get_relative_uri(docname, soldoc) + "#" + _solution_anchor(node["label"])
        link = nodes.reference("", "", nodes.Text("Solution"), internal=True, refuri=uri)
        node += nodes.paragraph("", "", link, classes=["dtree-solution-link"])


def _in_cell_output(node):
    """Whether `node` lies in a code cell's output (MyST-NB's ``cell_output`` container)."""
    parent = node.parent
    while parent is not None:
        if "cell_output" in parent.get("classes", []):
            return True
        parent = parent.parent
    return False


def number_every_display_equation(app, doctree):
    """Number every display equation of a page 1, 2, ... in reading order (``doctree-read``).

    JupyterLab's MyST renderer (jupyterlab-myst) numbers every display
    equation of a notebook from (1), labelled or not; Sphinx numbers only the
    labelled ones, and with ``math_numfig`` across the whole book.  With
    ``math_numfig: false`` (_config.yml) Sphinx shows ``node["number"]`` and
    refers to a label by the number noted in the math domain: both are set
    here to the equation's place on its page, so that "(3)" is the same
    equation in the HTML book and in JupyterLab.  A reference to another
    chapter's equation links to that chapter.
    """
    from docutils import nodes

    domain = app.env.get_domain("math")
    number = 0
    for node in doctree.findall(nodes.math_block):
        if node.get("nowrap"):  # amsmath environments: MathJax numbers their rows
            continue
        if _in_cell_output(node):  # a code cell's text/latex output: not prose
            continue
        number += 1
        node["number"] = number
        if node.get("label"):
            domain.equations[node["label"]] = (app.env.docname, number)


@bibtemplate.node
def _author_or_editor_or_short_title(children, data, **kwargs):
    """The author (or editor), else the entry's ``shorttitle``, else its title, in italics."""
    assert not children
    t = bibtemplate
    return t.first_of[
        t.optional[names("author", **kwargs)],
        t.optional[names("editor", **kwargs)],
        t.optional[t.tag("em")[t.field("shorttitle")]],
        t.tag("em")[t.field("title")],
    ].format_data(data)


@dataclass
class _ShortTitlePersonStyle(PersonStyle):
    def author_or_editor_or_title(self, full):
        return _author_or_editor_or_short_title(
            sep=self.sep, sep2=self.sep2, last_sep=self.last_sep,
            other=None if full else self.other)


@dataclass
class ShortTitleAuthorYearStyle(AuthorYearReferenceStyle):
    """sphinxcontrib-bibtex's ``author_year`` citations, with one change: a
    source without author or editor is cited by its BibTeX ``shorttitle``
    (biblatex's field) where it has one, not by its whole title.  The Chinese
    lecture notes name no author; their in-text citations read "(*GrowTree
    notes*, undated)", and the bibliography gives the full title.  Selected by
    ``bibtex_reference_style: dtree_author_year`` in _config.yml."""

    person: PersonStyle = field(default_factory=_ShortTitlePersonStyle)


register_plugin("sphinxcontrib.bibtex.style.referencing", "dtree_author_year",
                ShortTitleAuthorYearStyle)


def _chapter_math_domain():
    """Sphinx's math domain, with the chapter named in a reference to another
    page's equation: every page numbers its equations from (1)
    (``number_every_display_equation``), so "(3)" alone would be ambiguous
    there; the link reads "(3) of *Impurity measures*"."""
    from docutils import nodes
    from sphinx.domains.math import MathDomain

    class ChapterMathDomain(MathDomain):
        def resolve_xref(self, env, fromdocname, builder, typ, target, node, contnode):
            ref = super().resolve_xref(env, fromdocname, builder, typ, target, node, contnode)
            docname = self.equations.get(target, (None,))[0]
            if ref is not None and typ == "eq" and docname not in (None, fromdocname):
                ref += nodes.Text(" of ")
                ref += nodes.emphasis("", env.titles[docname].astext())
            return ref

    return ChapterMathDomain


def tag_edition(app, config):
    """Tag the student edition, for ``{only} not student_edition`` blocks (``config-inited``)."""
    if config.dtree_edition not in ("full", "student"):
        raise ValueError(f"dtree_edition must be 'full' or 'student', got {config.dtree_edition!r}")
    if config.dtree_edition == "student":
        app.tags.add("student_edition")


def setup(app):
    app.add_config_value("dtree_edition", "full", "env", types=[str])
    app.connect("config-inited", add_dtree_version)
    app.connect("config-inited", tag_edition)
    app.connect("doctree-read", number_every_display_equation)
    app.add_domain(_chapter_math_domain(), override=True)
    app.connect("doctree-resolved", link_exercises_to_solutions)
    app.connect("html-page-context", dedupe_scripts, priority=900)
    app.connect("doctree-resolved", dotless_term_ids)
    app.connect("missing-reference", resolve_public_alias)
    # Before numpydoc (priority 500) turns the sections into reStructuredText.
    app.connect("autodoc-process-docstring", escape_type_underscores, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
