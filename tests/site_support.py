"""Helpers for the website tests: build the site once per test session, read its pages, check its links.

The course site (scripts/build_site.py) is built once per pytest session and
shared by tests/test_site.py and tests/test_browser_site.py, even when
pytest-xdist runs them on different workers: the first to ask builds it under
the session's shared temporary folder, behind a file lock; the other waits and
reuses it. A tiny bilingual fixture course (English + Persian) is built the
same way, to test the Persian mechanism before the Persian edition exists.
"""

from __future__ import annotations

import json
import os
import re
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from urllib.parse import unquote, urlparse

import nbformat

import build_site

ROOT = Path(__file__).resolve().parents[1]


def shared_folder(tmp_path_factory) -> Path:
    """The session's temporary folder, shared by all xdist workers of the session (their common parent)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@contextmanager
def locked(path: Path):
    """An exclusive lock on ``path`` (POSIX); without fcntl (Windows, one process) no lock is needed."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover
        yield
        return
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def build_once(tmp_path_factory, name: str, make_root=None, **options) -> Path:
    """Build a site once per session into the shared folder; ``make_root(folder)`` makes a fixture course."""
    base = shared_folder(tmp_path_factory)
    out = base / name
    with locked(base / f"{name}.lock"):
        if not (out / ".built").exists():
            root = ROOT if make_root is None else make_root(base / f"{name}-course")
            build_site.build(root, out, work=base / f"{name}-src", cache=ROOT / "build" / "site-cache", quiet=True,
                             download=False, **options)
            (out / ".built").write_text("ok")
    return out


# --- a tiny bilingual fixture course ------------------------------------------------------------------

PNG_1PX = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg=="
FIXTURE_ALT = {"en": "One blue bar: 1,080 tokens against a 1,000-token limit.", "fa": "یک میله: ۱۰۸۰ توکن در برابر سقف ۱۰۰۰."}
FIXTURE_WIDGET_TEXT = {"en": "kept 3 of 5 messages", "fa": "۳ پیام از ۵ پیام نگه داشته شد"}


def fixture_notebook(lang: str, title: str) -> nbformat.NotebookNode:
    """A lesson-shaped notebook with a Mermaid diagram, a figure stored as <img alt> and a widget with its static view."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python", "pygments_lexer": "ipython3"}
    figure = nbformat.v4.new_code_cell("figure()", execution_count=1)
    figure.outputs = [nbformat.v4.new_output("display_data", data={
        "image/png": PNG_1PX,
        "text/html": f'<img alt="{FIXTURE_ALT[lang]}" src="data:image/png;base64,{PNG_1PX}">',
        "text/plain": FIXTURE_ALT[lang],
    })]
    widget = nbformat.v4.new_code_cell("explorer", execution_count=2)
    widget.outputs = [nbformat.v4.new_output("display_data", data={
        "application/vnd.jupyter.widget-view+json": {"model_id": "0" * 32, "version_major": 2, "version_minor": 0},
        "text/html": f"<div class='explorer-static'><p>{FIXTURE_WIDGET_TEXT[lang]}</p></div>",
        "text/plain": "Explorer()",
    })]
    nb.cells = [
        nbformat.v4.new_markdown_cell(f"# {title}\n\n## {'Idea' if lang == 'en' else 'ایده'}\n\n"
                                      "```mermaid\nflowchart LR\n    A[\"history\"] --> B[\"trim\"]\n```"),
        figure,
        widget,
    ]
    return nb


def make_bilingual_course(folder: Path, extra_links: str = "") -> Path:
    """A course with two English lessons, one Persian lesson, one English exercise; returns its root."""
    pages = {
        "notebooks/00_intro.ipynb": ("en", "00 · Introduction"),
        "notebooks/01_growth.ipynb": ("en", "01 · Growth"),
        "notebooks/fa/00_intro.ipynb": ("fa", "۰۰ · آغاز"),
        "exercises/01_growth_exercise.ipynb": ("en", "Exercise 01"),
    }
    for relative, (lang, title) in pages.items():
        nb = fixture_notebook(lang, title)
        if extra_links and relative == "notebooks/01_growth.ipynb":
            nb.cells.append(nbformat.v4.new_markdown_cell(extra_links))
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, path)
    return folder


# --- reading the built site ---------------------------------------------------------------------------


@lru_cache(maxsize=None)
def parse(path: Path):
    """A built page parsed once per session (pages are large: callers must not change the tree)."""
    from bs4 import BeautifulSoup

    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def html_pages(site: Path) -> list[Path]:
    """Every HTML page of a built site."""
    return sorted(p for p in site.rglob("*.html") if "_static" not in p.parts)


def read_manifest(site_src: Path, lang: str) -> dict:
    return json.loads((site_src / f"{lang}.json").read_text(encoding="utf-8"))


SKIP_SCHEMES = ("http:", "https:", "mailto:", "javascript:", "data:", "tel:")


def broken_internal_links(site: Path) -> list[str]:
    """Every link or resource inside the site whose target file (or #anchor in it) does not exist."""
    ids: dict[Path, set[str]] = {}

    def anchors(path: Path) -> set[str]:
        if path not in ids:
            soup = parse(path)
            ids[path] = {tag["id"] for tag in soup.find_all(id=True)} | {tag["name"] for tag in soup.find_all("a", attrs={"name": True})}
        return ids[path]

    broken = []
    for page in html_pages(site):
        soup = parse(page)
        for tag in soup.find_all(["a", "link", "script", "img", "iframe", "source"]):
            target = tag.get("href") if tag.name in ("a", "link") else tag.get("src")
            if not target or target.startswith(SKIP_SCHEMES) or target.startswith("//"):
                continue
            parsed = urlparse(target)
            path = (page.parent / unquote(parsed.path)).resolve() if parsed.path else page.resolve()
            if path.is_dir():
                path = path / "index.html"
            where = f"{page.relative_to(site)}: <{tag.name}> {target}"
            if not path.exists() or not path.resolve().is_relative_to(site.resolve()):
                broken.append(where)
            elif parsed.fragment and path.suffix == ".html" and unquote(parsed.fragment) not in anchors(path):
                broken.append(where + " (no such anchor)")
    return broken


def external_request(url: str) -> bool:
    """True for a request that would leave the machine (anything but file:, data:, blob:, about: and loopback)."""
    parsed = urlparse(url)
    if parsed.scheme in ("file", "data", "blob", "about", "chrome-extension"):
        return False
    return not (parsed.hostname in ("localhost", "127.0.0.1", "::1") or re.match(r"^127\.", parsed.hostname or ""))
