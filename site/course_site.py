"""Sphinx extension for the course website: launch bar, language switch, local Mermaid.

Kept small and separate from the build script so each reads on its own:

- every ``mermaid`` code block (a Markdown cell's fence, or a ``text/markdown``
  output such as LangGraph's ``draw_mermaid()``) becomes ``<pre class="mermaid">``
  with the source also in a "diagram as text" disclosure; the page then loads
  ``_static/mermaid.min.js`` (copied in by the build script from the pinned npm
  package) as a classic script, which works from ``file://`` where ES modules
  (sphinxcontrib-mermaid's loader) are refused by the browser;
- raw HTML (the notebooks' table and widget outputs) is indexed for search
  with a space where each tag was (Sphinx glues the cells together:
  "01systemyou"), and the Persian index also files every "token" under
  توکن, the word a Persian reader types (``SEARCH_SYNONYMS``);
- every page listed in the manifest (``course_site_manifest``, written by
  scripts/build_site.py) gets a launch bar at the top of its body: download
  the notebook, open it on Binder, open it on the school's JupyterHub through
  nbgitpuller, and a link to the same page in the other language.

Example (in conf.py): ``extensions = ["myst_nb", "course_site"]``.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from docutils import nodes
from sphinx.search.en import SearchEnglish

MERMAID_JS = "mermaid.min.js"

# Words the Persian edition writes in Latin letters, and the Persian word a reader searches with.
# The Persian search index files each under both (the edition keeps the glossary's Latin term).
SEARCH_SYNONYMS = {
    "fa": {"token": "توکن", "tokens": "توکن"},
}

# Tags that mark up part of a word or phrase: removed without a space. Every other tag
# (cells, rows, paragraphs, line breaks) separates words.
INLINE_TAGS = {"a", "abbr", "b", "bdi", "bdo", "code", "em", "i", "kbd", "mark", "s", "small", "span", "strong", "sub", "sup", "u"}


def _manifest(app) -> dict:
    cached = getattr(app, "_course_site_manifest", None)
    if cached is None:
        path = app.config.course_site_manifest
        cached = json.loads(Path(path).read_text(encoding="utf-8")) if path else {"pages": {}, "strings": {}}
        app._course_site_manifest = cached
    return cached


def mermaid_html(source: str, strings: dict) -> str:
    """The HTML for one diagram: rendered by mermaid.min.js in place, its source kept as text."""
    text = html.escape(source.strip("\n"))
    return (
        f'<figure class="course-mermaid">'
        f'<pre class="mermaid">{text}</pre>'
        f'<details class="course-mermaid-source"><summary>{html.escape(strings.get("diagram_source", "The diagram as text"))}</summary>'
        f"<pre>{text}</pre></details></figure>"
    )


def replace_mermaid_blocks(app, doctree, docname) -> None:
    """Turn every code block in the Mermaid language into a diagram (before Pygments sees it)."""
    strings = _manifest(app).get("strings", {})
    found = False
    for block in list(doctree.findall(nodes.literal_block)):
        if (block.get("language") or "").strip().lower() == "mermaid":
            block.replace_self(nodes.raw("", mermaid_html(block.astext(), strings), format="html"))
            found = True
    if found:
        app.env.metadata.setdefault(docname, {})["course_mermaid"] = True


def html_words(markup: str) -> str:
    """The text of raw HTML for the search index: a space for each block tag, entities decoded.

    >>> html_words("<table><tr><td>01</td><td>system</td><td><b>You</b> are</td></tr></table>").split()
    ['01', 'system', 'You', 'are']
    >>> html_words("<th>تاریخچه</th><th>token</th><style>p {}</style>").split()
    ['تاریخچه', 'token']
    """
    text = re.sub(r"<(style|script)\b.*?</\1\s*>", " ", markup, flags=re.I | re.S)
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.S)

    def tag(match: re.Match) -> str:
        return "" if match.group(1).lower() in INLINE_TAGS else " "

    text = re.sub(r"</?([a-zA-Z][\w-]*)\b[^>]*>", tag, text)
    return html.unescape(text)


class searchable_raw(nodes.Element):
    """Raw HTML written as is, whose child is its text with words kept apart (what the search index reads)."""


def visit_searchable_raw(self, node) -> None:
    """Written as docutils writes ``raw``: the HTML as is, wrapped in a div (span inline) when it has classes."""
    tag = "span" if isinstance(node.parent, nodes.TextElement) else "div"
    if node["classes"]:
        self.body.append(self.starttag(node, tag, suffix=""))
    self.body.append(node["html"])
    if node["classes"]:
        self.body.append(f"</{tag}>")
    raise nodes.SkipNode


def separate_raw_words(app, doctree, docname) -> None:
    """Replace each raw HTML node by a ``searchable_raw``: the page is unchanged, the index gets separate words."""
    for raw in list(doctree.findall(nodes.raw)):
        if "html" not in raw.get("format", "").split() or "no-search" in raw["classes"]:
            continue
        raw.replace_self(searchable_raw("", nodes.Text(html_words(raw.astext())), html=raw.astext(),
                                        classes=list(raw["classes"]), ids=list(raw["ids"])))


SCRIPT_RUN = re.compile(r"[\x00-\x7f]+|[^\x00-\x7f]+")


class SearchCourse(SearchEnglish):
    """The course's search words: English stemming, and a word split where Latin letters meet Persian ones.

    The Persian edition writes glossary terms in Latin with Persian endings ("checkpointها");
    a reader searches "checkpoint". Each language's words come from ``SEARCH_SYNONYMS`` too.

    >>> SearchPersian({}).split("سه checkpointها و یک token")
    ['سه', 'checkpoint', 'ها', 'و', 'یک', 'token', 'توکن']
    """

    def split(self, input: str) -> list[str]:
        words = [run for word in super().split(input) for run in SCRIPT_RUN.findall(word)]
        synonyms = SEARCH_SYNONYMS.get(self.lang, {})
        return words + [synonyms[w.lower()] for w in words if w.lower() in synonyms]


class SearchPersian(SearchCourse):
    """Persian pages' search (Sphinx has no Persian stemmer: the English one keeps the Latin terms whole)."""

    lang = "fa"
    # Sphinx names the browser's stemmer after language_name (window.Stemmer = EnglishStemmer): keep
    # the English one, whose code is what language_data.js carries.
    language_name = "English"


def launch_bar(page: dict, strings: dict) -> str:
    """The page's launch links (and language switch) as one labelled navigation region."""
    links = []
    for key, cls in (("download", "download"), ("binder", "binder"), ("jupyterhub", "jupyterhub")):
        href = page.get(key)
        if not href:
            continue
        extra = ' download=""' if key == "download" else ""
        label = page.get("labels", {}).get(key) or strings[key]
        links.append(f'<a class="course-launch-{cls}" href="{html.escape(href)}"{extra}>{html.escape(label)}</a>')
    switch = page.get("counterpart")
    if switch:
        links.append(
            f'<a class="course-language-switch" href="{html.escape(switch["href"])}" hreflang="{switch["lang"]}"'
            f' lang="{switch["lang"]}" dir="{switch["dir"]}">{html.escape(switch["label"])}</a>'
        )
    note = page.get("note") or strings.get("launch_note", "")
    return (
        f'<nav class="course-launch" aria-label="{html.escape(strings["launch_label"])}">'
        + "".join(links)
        + (f'<p class="course-launch-note">{html.escape(note)}</p>' if note else "")
        + "</nav>"
    )


def add_page_extras(app, pagename, templatename, context, doctree) -> None:
    manifest = _manifest(app)
    page = manifest["pages"].get(pagename)
    if page and "body" in context:
        context["body"] = launch_bar(page, manifest["strings"]) + context["body"]
    if app.env.metadata.get(pagename, {}).get("course_mermaid"):
        app.add_js_file(MERMAID_JS)
        app.add_js_file("course-mermaid.js")


def setup(app):
    app.add_config_value("course_site_manifest", "", "env")
    app.connect("doctree-resolved", replace_mermaid_blocks)
    app.connect("doctree-resolved", separate_raw_words, priority=900)  # after the diagrams become raw HTML
    app.add_node(searchable_raw, html=(visit_searchable_raw, None))
    app.add_search_language(SearchCourse)
    app.add_search_language(SearchPersian)
    app.connect("html-page-context", add_page_extras)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
