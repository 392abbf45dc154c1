"""Sphinx extension for the course website: launch bar, language switch, local Mermaid.

Kept small and separate from the build script so each reads on its own:

- every ``mermaid`` code block (a Markdown cell's fence, or a ``text/markdown``
  output such as LangGraph's ``draw_mermaid()``) becomes ``<pre class="mermaid">``
  with the source also in a "diagram as text" disclosure; the page then loads
  ``_static/mermaid.min.js`` (copied in by the build script from the pinned npm
  package) as a classic script, which works from ``file://`` where ES modules
  (sphinxcontrib-mermaid's loader) are refused by the browser;
- every page listed in the manifest (``course_site_manifest``, written by
  scripts/build_site.py) gets a launch bar at the top of its body: download
  the notebook, open it on Binder, open it on the school's JupyterHub through
  nbgitpuller, and a link to the same page in the other language.

Example (in conf.py): ``extensions = ["myst_nb", "course_site"]``.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

from docutils import nodes

MERMAID_JS = "mermaid.min.js"


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
    app.connect("html-page-context", add_page_extras)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
