"""Sphinx configuration of the course website (built by scripts/build_site.py).

Sphinx + myst-nb + sphinx-book-theme: pure Python, so the site builds from the
same pinned environment as the course, and its pages come from the committed
notebooks and their stored outputs (nothing is executed). The build script
stages the notebooks, writes the home page and a manifest (per page: the
launch links and the counterpart in the other language), and passes the
manifest's path as ``course_site_manifest``; ``course_site.py`` beside this
file turns it into each page's launch bar and language switch, and renders
Mermaid diagrams with a local copy of mermaid.min.js.

Self-contained on purpose: no CDN, no web fonts, no analytics. ipywidgets'
require.js loader is switched off (the pages show the widgets' static views),
MathJax is never added (no math extension is enabled, and the build fails on
any script or stylesheet from another host).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

project = "Context Window Management with LangChain and LangGraph"
author = "the course's authors"
copyright = "the course's authors, MIT licence"

extensions = ["myst_nb", "course_site"]

# Build from the stored outputs: never execute a notebook here (nbval proves the outputs).
nb_execution_mode = "off"
# No require.js / widget-embed scripts from a CDN: widgets are shown as their static HTML.
nb_ipywidgets_js = {}
# The figures are stored twice: image/png and text/html <img alt="...">; show the one with the alt text.
nb_mime_priority_overrides = [
    ("html", "text/html", 0),
    ("html", "image/svg+xml", 1),
    ("html", "image/png", 2),
    ("html", "image/jpeg", 3),
    ("html", "text/markdown", 4),
    ("html", "text/plain", 5),
    ("html", "application/javascript", None),
    ("html", "application/vnd.jupyter.widget-view+json", None),
]
nb_merge_streams = True
myst_heading_anchors = 3
suppress_warnings = ["myst.header"]

exclude_patterns = ["_build", "**.ipynb_checkpoints", "_course_site.json"]
master_doc = "index"

html_theme = "sphinx_book_theme"
html_title = "Context Window Management"
html_static_path = ["static"]
html_css_files = ["course.css"]
html_js_files = ["course.js"]
html_copy_source = False
html_show_sourcelink = False
html_use_index = False
html_domain_indices = False
html_last_updated_fmt = None
html_theme_options = {
    "home_page_in_toc": True,
    "show_navbar_depth": 1,
    "show_toc_level": 2,
    "use_download_button": False,
    "use_fullscreen_button": False,
    "use_repository_button": False,
    "use_source_button": False,
    "use_issues_button": False,
    "use_edit_page_button": False,
    "launch_buttons": {},
    "secondary_sidebar_items": ["page-toc"],
    "article_header_end": [],
    "extra_footer": "",
}
html_context = {"default_mode": "light"}
