"""Build the course website: every lesson and exercise as a page, from the committed notebooks.

    .venv/bin/python scripts/build_site.py            # -> build/site/index.html

Nothing is executed: the pages show the outputs stored in the notebooks (the
ones nbval checks). Pages are discovered from the folders, in file-name order
(00, 01, 01b, 02, ..., then A1 ...), so a new lesson or exercise gets a page
by being committed:

- English: ``notebooks/*.ipynb`` and the student copies ``exercises/*.ipynb``;
- Persian: ``notebooks/fa/*.ipynb`` and ``exercises/fa/*.ipynb``, built into
  ``fa/`` with ``lang="fa" dir="rtl"``, only when such notebooks exist. A page
  links to its counterpart in the other language (same file name, or else the
  same lesson number before the first ``_``).

Each page gets launch links (download, Binder, JupyterHub via nbgitpuller),
set in ``site/site.toml``. Mermaid's ``mermaid.min.js`` comes from the npm
package pinned there (``npm pack``, integrity checked, cached in
``build/site-cache/``); ``--mermaid-js FILE`` uses a copy you already have.
The build fails on any Sphinx warning (a broken cross-reference, a page left
out) and on any script, stylesheet, image or font that would load from
another host.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, urlencode, urlparse

import nbformat

ROOT = Path(__file__).resolve().parents[1]
SITE_DIR = ROOT / "site"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"

STRINGS = {
    "en": {
        "name": "English",
        "dir": "ltr",
        "launch_label": "Run this notebook",
        "download": "Download the notebook",
        "binder": "Open on Binder",
        "jupyterhub": "Open on JupyterHub",
        "launch_note": "This page shows the notebook with its stored outputs. To run it and use its widgets, "
        "open it on Binder or on your school's JupyterHub, or download it into your copy of the course.",
        "widget_note": "Static view of an interactive widget. The live widget needs the notebook: "
        "open it with a link at the top of this page.",
        "diagram_source": "The diagram as text",
        "home_download": "Download the first lesson",
        "home_binder": "Start on Binder",
        "home_jupyterhub": "Start on JupyterHub",
        "home_note": "These links open the first lesson; every page has its own.",
        "lessons": "Lessons",
        "exercises": "Exercises",
        "pages": "Every page",
    },
    "fa": {
        "name": "فارسی",
        "dir": "rtl",
        "launch_label": "اجرای این نوت‌بوک",
        "download": "دریافت نوت‌بوک",
        "binder": "باز کردن در Binder",
        "jupyterhub": "باز کردن در JupyterHub",
        "launch_note": "این صفحه نوت‌بوک را با خروجی‌های ذخیره‌شده‌اش نشان می‌دهد. برای اجرای آن و کار با ابزارک‌ها، "
        "آن را در Binder یا JupyterHub مدرسه باز کنید، یا در نسخهٔ خودتان از دوره دریافتش کنید.",
        "widget_note": "نمای ثابتِ یک ابزارک تعاملی. ابزارک زنده فقط در نوت‌بوک کار می‌کند: "
        "با یکی از پیوندهای بالای همین صفحه بازش کنید.",
        "diagram_source": "نمودار به صورت متن",
        "home_download": "دریافت نخستین درس",
        "home_binder": "آغاز در Binder",
        "home_jupyterhub": "آغاز در JupyterHub",
        "home_note": "این پیوندها نخستین درس را باز می‌کنند؛ هر صفحه پیوندهای خودش را دارد.",
        "lessons": "درس‌ها",
        "exercises": "تمرین‌ها",
        "pages": "همهٔ صفحه‌ها",
        "title": "مدیریت پنجرهٔ زمینه با LangChain و LangGraph",
        # The theme's own words (sphinx-book-theme and pydata-sphinx-theme have no Persian catalogue).
        "theme": {
            "Contents": "فهرست مطالب",
            "On this page": "در این صفحه",
            "Skip to main content": "رفتن به محتوای اصلی",
            "Back to top": "بازگشت به بالا",
            "Search...": "جستجو...",
            "Site navigation": "پیمایش سایت",
            "Version warning": "هشدار نسخه",
            "Toggle primary sidebar": "نمایش یا پنهان کردن فهرست درس‌ها",
            "previous page": "صفحهٔ پیشین",
            "next page": "صفحهٔ بعد",
        },
        "author": "نویسندگان دوره",
        "copyright": "نویسندگان دوره، پروانهٔ MIT",
    },
}


class SiteBuildError(RuntimeError):
    """The site could not be built as promised (a Sphinx warning, an outside URL, a bad setting)."""


@dataclass
class Edition:
    """One language's pages: repository paths of its lessons and exercise student copies, in course order."""

    lang: str
    lessons: list[Path] = field(default_factory=list)
    exercises: list[Path] = field(default_factory=list)

    @property
    def prefix(self) -> str:
        """Where the edition lives in the built site: '' for English, 'fa/' for Persian."""
        return "" if self.lang == "en" else f"{self.lang}/"

    def pages(self) -> list[tuple[str, Path]]:
        """(docname, repository path) of every page, lessons first, each group in file-name order."""
        return [(f"notebooks/{p.stem}", p) for p in self.lessons] + [(f"exercises/{p.stem}", p) for p in self.exercises]


def discover(root: Path) -> dict[str, Edition]:
    """The editions that exist under ``root``: English always, Persian when its folders hold notebooks.

    >>> sorted(discover(ROOT))[0]
    'en'
    """
    editions = {}
    for lang, sub in (("en", ""), ("fa", "fa")):
        lessons = sorted((root / "notebooks" / sub).glob("*.ipynb"), key=lambda p: p.name)
        exercises = sorted((root / "exercises" / sub).glob("*.ipynb"), key=lambda p: p.name)
        if lessons or exercises:
            editions[lang] = Edition(lang, [p.relative_to(root) for p in lessons], [p.relative_to(root) for p in exercises])
    if "en" not in editions:
        raise SiteBuildError(f"no notebooks found in {root / 'notebooks'} or {root / 'exercises'}")
    return editions


PLACEHOLDER_REPOSITORY = "https://github.com/OWNER/REPO"
PLACEHOLDER_HUB = "hub.example.edu"
HUB_VARIABLE = "COURSE_JUPYTERHUB_URL"

GITHUB_REMOTE = re.compile(
    r"^(?:https?://(?:[^@/]+@)?github\.com/|ssh://git@github\.com(?::\d+)?/|git@github\.com:)"
    r"(?P<owner>[\w.-]+)/(?P<repo>[\w.-]+?)(?:\.git)?/?$"
)


def web_url(remote: str) -> str | None:
    """The https address of a git remote: GitHub's SSH and https forms, or any other https remote; else None.

    >>> web_url("git@github.com:school/course.git")
    'https://github.com/school/course'
    >>> web_url("ssh://git@github.com/school/course.git"), web_url("/home/me/course")
    ('https://github.com/school/course', None)
    """
    remote = remote.strip()
    found = GITHUB_REMOTE.match(remote)
    if found:
        return f"https://github.com/{found['owner']}/{found['repo']}"
    if remote.startswith("https://") and urlparse(remote).netloc:
        return remote.removesuffix("/").removesuffix(".git")
    return None


def load_settings(site_dir: Path, root: Path) -> dict:
    """site.toml, with the repository URL filled in from GitHub Actions or git when left empty.

    The repository comes from ``repository.url``, else ``$GITHUB_REPOSITORY`` (owner/name), else
    the ``origin`` remote (https or SSH); a local clone or no remote leaves the placeholder
    ``github.com/OWNER/REPO`` (see ``placeholder_links``). ``$COURSE_JUPYTERHUB_URL`` overrides
    ``launch.jupyterhub_url`` (a CI variable, so a fork's Pages build needs no edit).
    """
    settings = tomllib.loads((site_dir / "site.toml").read_text(encoding="utf-8"))
    repo = settings["repository"]
    if not repo.get("url"):
        if os.environ.get("GITHUB_REPOSITORY"):
            repo["url"] = f"https://github.com/{os.environ['GITHUB_REPOSITORY']}"
        else:
            found = subprocess.run(["git", "-C", str(root), "remote", "get-url", "origin"], capture_output=True, text=True)
            repo["url"] = (web_url(found.stdout) if found.returncode == 0 else None) or PLACEHOLDER_REPOSITORY
    repo["url"] = repo["url"].removesuffix("/").removesuffix(".git")
    if os.environ.get(HUB_VARIABLE):
        settings["launch"]["jupyterhub_url"] = os.environ[HUB_VARIABLE]
    for key in ("binderhub_url", "jupyterhub_url"):
        value = settings["launch"][key]
        if urlparse(value).scheme not in ("http", "https") or not urlparse(value).netloc:
            raise SiteBuildError(f"site.toml: launch.{key} must be an http(s) URL, got {value!r}")
    if settings["launch"].get("interface", "lab") not in ("lab", "tree"):
        raise SiteBuildError(f"site.toml: launch.interface must be 'lab' or 'tree', got {settings['launch']['interface']!r}")
    return settings


def placeholder_links(settings: dict) -> list[str]:
    """What in the launch links is a placeholder, each with the setting (or environment variable) that fixes it.

    >>> placeholder_links({"repository": {"url": "https://github.com/school/course"},
    ...                    "launch": {"jupyterhub_url": "https://jupyter.school.org"}})
    []
    """
    problems = []
    if settings["repository"]["url"].rstrip("/") == PLACEHOLDER_REPOSITORY:
        problems.append(
            f"every Binder and GitHub link points at the placeholder {PLACEHOLDER_REPOSITORY}: the git remote gives no "
            "GitHub owner/repository (a local clone, or no 'origin'). Set repository.url in site/site.toml, "
            "or the environment variable GITHUB_REPOSITORY=owner/name."
        )
    if urlparse(settings["launch"]["jupyterhub_url"]).hostname == PLACEHOLDER_HUB:
        problems.append(
            f"every \"Open on JupyterHub\" link goes to the placeholder {PLACEHOLDER_HUB}. Set launch.jupyterhub_url "
            f"in site/site.toml to your school's hub, or the environment variable {HUB_VARIABLE}."
        )
    return problems


def check_placeholders(settings: dict, strict: bool, stream=None) -> None:
    """Warn loudly (on stderr) about placeholder launch links; with ``strict``, fail the build instead."""
    problems = placeholder_links(settings)
    if not problems:
        return
    if strict:
        raise SiteBuildError("--strict: the launch links would be placeholders:\n- " + "\n- ".join(problems))
    stream = stream or sys.stderr
    if os.environ.get("GITHUB_ACTIONS") == "true":  # shown on the workflow run's summary page too
        for problem in problems:
            print(f"::warning title=Placeholder launch links::{problem}", file=stream)
    bar = "!" * 78
    print(f"{bar}\nWARNING: the site's launch links are placeholders (--strict makes this an error):\n- "
          + "\n- ".join(problems) + f"\n{bar}", file=stream)


def binder_link(settings: dict, repo_path: str) -> str:
    """A BinderHub link opening ``repo_path`` (GitHub repositories by gh/OWNER/REPO, others by git URL)."""
    repo, launch = settings["repository"], settings["launch"]
    parsed = urlparse(repo["url"])
    if parsed.netloc == "github.com":
        spec = f"gh/{parsed.path.strip('/')}/{repo['branch']}"
    else:
        spec = f"git/{quote(repo['url'], safe='')}/{repo['branch']}"
    ui = "lab/tree" if launch.get("interface", "lab") == "lab" else "tree"
    return f"{launch['binderhub_url'].rstrip('/')}/v2/{spec}?{urlencode({'urlpath': f'{ui}/{repo_path}'})}"


def jupyterhub_link(settings: dict, repo_path: str) -> str:
    """An nbgitpuller link: clone (or update) the students' repository on the hub, then open ``repo_path``."""
    repo, launch = settings["repository"], settings["launch"]
    students = (launch.get("students_repository") or repo["url"]).removesuffix("/").removesuffix(".git")
    folder = students.rsplit("/", 1)[-1]
    ui = "lab/tree" if launch.get("interface", "lab") == "lab" else "tree"
    query = urlencode({"repo": students, "branch": repo["branch"], "urlpath": f"{ui}/{folder}/{repo_path}"})
    return f"{launch['jupyterhub_url'].rstrip('/')}/hub/user-redirect/git-pull?{query}"


def counterpart(page: Path, other: Edition | None) -> Path | None:
    """The same lesson in the other edition: same file name, else the same number before the first '_'."""
    if other is None:
        return None
    group = other.lessons if page.parts[0] == "notebooks" else other.exercises
    for candidate in group:
        if candidate.name == page.name:
            return candidate
    number = page.stem.split("_", 1)[0]
    return next((c for c in group if c.stem.split("_", 1)[0] == number), None)


def relative(from_page: str, to_path: str) -> str:
    """A relative URL between two paths in the built site (both relative to its root)."""
    return os.path.relpath(to_path, start=os.path.dirname(from_page) or ".").replace(os.sep, "/")


def manifest(edition: Edition, editions: dict[str, Edition], settings: dict) -> dict:
    """Per page: download, Binder and JupyterHub links and the language switch; and the edition's strings."""
    other_lang = "fa" if edition.lang == "en" else "en"
    other = editions.get(other_lang)
    pages = {}
    for docname, repo_path in edition.pages():
        site_page = f"{edition.prefix}{docname}.html"
        entry = {
            "repo_path": repo_path.as_posix(),
            "download": f"{repo_path.stem}.ipynb",
            "binder": binder_link(settings, repo_path.as_posix()),
            "jupyterhub": jupyterhub_link(settings, repo_path.as_posix()),
            "counterpart": None,
        }
        match = counterpart(repo_path, other)
        if match is not None:
            target = f"{other.prefix}{docname.split('/')[0]}/{match.stem}.html"
            entry["counterpart"] = {"href": relative(site_page, target), "lang": other_lang,
                                    "dir": STRINGS[other_lang]["dir"], "label": STRINGS[other_lang]["name"]}
        pages[docname] = entry
    first_docname, first = edition.pages()[0]
    s = STRINGS[edition.lang]
    pages["index"] = dict(pages[first_docname], download=f"{first_docname}.ipynb", note=s["home_note"],
                          labels={k: s[f"home_{k}"] for k in ("download", "binder", "jupyterhub")})
    pages["index"]["counterpart"] = (
        {"href": relative(f"{edition.prefix}index.html", f"{other.prefix}index.html"), "lang": other_lang,
         "dir": STRINGS[other_lang]["dir"], "label": STRINGS[other_lang]["name"]} if other else None
    )
    return {"lang": edition.lang, "pages": pages, "strings": STRINGS[edition.lang]}


def static_view(output: dict, note: str) -> None:
    """Replace a widget's live view by its stored static HTML, with a note that the live widget needs the notebook."""
    data = output["data"]
    data.pop(WIDGET_VIEW, None)
    body = data.get("text/html") or f"<pre>{data.get('text/plain', '')}</pre>"
    if isinstance(body, list):
        body = "".join(body)
    data["text/html"] = f'<div class="course-widget-static"><p class="course-widget-note">{note}</p>{body}</div>'


LINK = re.compile(r"(\]\()([^)\s]+)")


def rewrite_links(markdown: str, repo_path: str, docname: str, pages: dict[str, str], root: Path, settings: dict) -> str:
    """Relative links in a Markdown cell, pointed at what the site has.

    A link to another page of the same edition becomes a link to its staged
    notebook (which MyST turns into the page); a link to anything else in the
    repository (a folder, README.md, a module) goes to the repository's web
    page for it. A link to nothing is left alone, so the build fails on it.
    """

    def fix(match: re.Match) -> str:
        target = match.group(2)
        if re.match(r"^[a-z][a-z0-9+.-]*:|^#|^/", target, flags=re.I):
            return match.group(0)
        path, _, anchor = target.partition("#")
        resolved = os.path.normpath(os.path.join(os.path.dirname(repo_path), path)).replace(os.sep, "/")
        if resolved in pages:
            link = relative(docname, pages[resolved] + ".ipynb")
        elif (root / resolved).exists() and not resolved.startswith(".."):
            kind = "tree" if (root / resolved).is_dir() else "blob"
            link = f"{settings['repository']['url']}/{kind}/{settings['repository']['branch']}/{resolved}"
        else:
            return match.group(0)
        return match.group(1) + link + (f"#{anchor}" if anchor else "")

    return LINK.sub(fix, markdown)


def prepare_notebook(source: Path, target: Path, strings: dict, fix_links=None) -> None:
    """Copy a notebook for the site: widgets become their static views; JupyterLab-only scripts are dropped."""
    nb = nbformat.read(source, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "markdown" and fix_links is not None:
            cell.source = fix_links(cell.source)
        if cell.cell_type != "code":
            continue
        kept = []
        for output in cell.get("outputs", []):
            data = output.get("data")
            if data is not None:
                data.pop("application/javascript", None)
                if WIDGET_VIEW in data:
                    static_view(output, strings["widget_note"])
                if not any(k for k in data if k != "text/plain") and not "".join(data.get("text/plain", "")).strip():
                    continue  # nothing left to show (the script's empty text/plain)
            kept.append(output)
        cell.outputs = kept
    nb.metadata.pop("widgets", None)
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, target)


def course_map(root: Path) -> str:
    """The README's "Course map" section (its links to notebooks/ and exercises/ become page links)."""
    readme = root / "README.md"
    if not readme.exists():
        return ""
    text = readme.read_text(encoding="utf-8")
    found = re.search(r"^## Course map\n(.*?)(?=^## )", text, flags=re.S | re.M)
    return f"## Course map\n{found.group(1).rstrip()}\n" if found else ""


def home_page(edition: Edition, root: Path, settings: dict) -> str:
    """The edition's home page: the course map (English), then a table of contents of every page."""
    s = STRINGS[edition.lang]
    if edition.lang == "en":
        head = (
            "# Context Window Management with LangChain and LangGraph\n\n"
            "An interactive course that runs offline, with no API key: measure how a conversation's history grows, "
            "work out token budgets, watch the real `trim_messages` decide which messages are kept, build LangGraph "
            "chatbots that trim and summarise, and pick thresholds for real models.\n\n"
            "These pages show every lesson and exercise with the outputs stored in its notebook. To run one, use the "
            "links at the top of its page, or set up the course on your own computer "
            f"([the README's two commands]({settings['repository']['url']}#set-up-two-commands)).\n\n"
            + course_map(root)
        )
    else:
        head = f"# {s['title']}\n\n"
    toc = f"\n## {s['pages']}\n"
    for caption, group, folder in ((s["lessons"], edition.lessons, "notebooks"), (s["exercises"], edition.exercises, "exercises")):
        if group:
            toc += f"\n```{{toctree}}\n:caption: {caption}\n:maxdepth: 1\n\n" + "".join(f"{folder}/{p.stem}\n" for p in group) + "```\n"
    return head + toc


def fetch_mermaid(settings: dict, cache: Path, download: bool = True) -> Path:
    """mermaid.min.js from the pinned npm package (``npm pack``, integrity checked); cached after the first time.

    With ``download=False`` only the cache is read (the tests build this way, so no
    test opens a network connection; the README's test command fetches first with
    ``build_site.py --fetch-mermaid``).
    """
    version, integrity = settings["mermaid"]["version"], settings["mermaid"]["integrity"]
    folder = cache / f"mermaid-{version}"
    script = folder / "mermaid.min.js"
    if script.exists():
        return script
    if not download:
        raise SiteBuildError(f"mermaid {version} is not in {cache}: fetch it once with "
                             "`.venv/bin/python scripts/build_site.py --fetch-mermaid` (the README's test command does)")
    npm = shutil.which("npm")
    if npm is None:
        raise SiteBuildError("npm is needed once to fetch Mermaid (apt-get install npm), or pass --mermaid-js FILE")
    cache.mkdir(parents=True, exist_ok=True)
    # Fetch and unpack in a private folder, then rename it into place: two builds at once cannot clash.
    scratch = Path(tempfile.mkdtemp(prefix="mermaid-", dir=cache))
    try:
        subprocess.run([npm, "pack", f"mermaid@{version}", "--pack-destination", str(scratch), "--silent"],
                       check=True, stdout=subprocess.DEVNULL)
        tarball = scratch / f"mermaid-{version}.tgz"
        algorithm, expected = integrity.split("-", 1)
        actual = base64.b64encode(hashlib.new(algorithm, tarball.read_bytes()).digest()).decode()
        if actual != expected:
            raise SiteBuildError(f"mermaid-{version}.tgz: {algorithm} is {actual}, site.toml pins {expected}")
        unpacked = scratch / "files"
        unpacked.mkdir()
        with tarfile.open(tarball) as archive:
            for member, name in (("package/dist/mermaid.min.js", "mermaid.min.js"), ("package/LICENSE", "LICENSE")):
                (unpacked / name).write_bytes(archive.extractfile(member).read())
        try:
            unpacked.rename(folder)
        except OSError:
            if not script.exists():  # another build put it there first; anything else is an error
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return script


def run_sphinx(srcdir: Path, outdir: Path, doctrees: Path, lang: str, manifest_path: Path, site_dir: Path, quiet: bool) -> None:
    """One edition through Sphinx; any warning fails the build (broken links, pages left out)."""
    from sphinx.application import Sphinx
    from sphinx.util.docutils import docutils_namespace, patch_docutils

    warnings = io.StringIO()
    # As sphinx-build does: docutils' directive registry is global, so each build gets its own namespace.
    with patch_docutils(site_dir), docutils_namespace():
        app = Sphinx(str(srcdir), str(site_dir), str(outdir), str(doctrees), "html",
                     confoverrides={"language": lang, "course_site_manifest": str(manifest_path),
                                **({"html_title": STRINGS[lang]["title"]} if "title" in STRINGS[lang] else {}),
                                **({"copyright": STRINGS[lang]["copyright"], "author": STRINGS[lang]["author"]}
                                   if "copyright" in STRINGS[lang] else {})},
                     status=None if quiet else sys.stdout, warning=warnings, freshenv=True)
        app.build()
    if warnings.getvalue().strip():
        raise SiteBuildError(f"Sphinx warned while building the {lang} pages:\n{warnings.getvalue()}")


STATIC_REF = re.compile(r"""(?P<quote>["'(])(?P<up>(?:\.\./)*)_static/(?P<path>[^"'?#)\s]+)""")


def share_static(out: Path, edition: Edition) -> None:
    """One ``_static`` for the whole site: an edition's copy goes, its pages point at the root's.

    Files the same as the English ones are dropped; the few that differ (the language's
    ``documentation_options.js``, Sphinx's ``translations.js``) move to ``_static/<lang>/``.
    """
    own, shared = out / edition.prefix / "_static", out / "_static"
    moved = {}
    for path in sorted(p for p in own.rglob("*") if p.is_file()):
        rel = path.relative_to(own).as_posix()
        twin = shared / rel
        if not (twin.exists() and twin.read_bytes() == path.read_bytes()):
            moved[rel] = f"{edition.lang}/{rel}"
            (shared / moved[rel]).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, shared / moved[rel])
    shutil.rmtree(own)
    up = "../" * edition.prefix.count("/")

    def point(match: re.Match) -> str:
        return f"{match['quote']}{match['up']}{up}_static/{moved.get(match['path'], match['path'])}"

    for page in (out / edition.prefix).rglob("*.html"):
        page.write_text(STATIC_REF.sub(point, page.read_text(encoding="utf-8")), encoding="utf-8")


def translate_theme(page: str, strings: dict[str, str]) -> str:
    """The theme's English words (outside the article) in the edition's language: ``>Contents<``, ``"On this page"``.

    >>> translate_theme('<h2> Contents </h2><article><h2>Contents</h2></article>', {"Contents": "فهرست"})
    '<h2> فهرست </h2><article><h2>Contents</h2></article>'
    """
    parts = re.split(r"(<article\b.*?</article>)", page, flags=re.S)
    for i in range(0, len(parts), 2):  # the even parts are outside the article
        for english, translated in strings.items():
            parts[i] = re.sub(rf'(?<=[>"])(\s*){re.escape(english)}(\s*)(?=[<"])', rf"\g<1>{translated}\g<2>", parts[i])
    return "".join(parts)


OUTSIDE = re.compile(
    r"""<(?:script|link|img|iframe|source|video|audio|embed)\b[^>]*?\b(?:src|href|srcset)\s*=\s*["']\s*(?:https?:)?//"""
    r"""|url\(\s*["']?\s*(?:https?:)?//|@import\s+["']?(?:url\()?\s*["']?(?:https?:)?//""",
    re.I,
)


def outside_loads(outdir: Path) -> list[str]:
    """Every place in the built HTML/CSS/JS that would load something from another host."""
    found = []
    for path in outdir.rglob("*"):
        if path.suffix not in (".html", ".css") or not path.is_file():
            continue
        for match in OUTSIDE.finditer(path.read_text(encoding="utf-8", errors="replace")):
            found.append(f"{path.relative_to(outdir)}: {match.group(0)[:120]}")
    return found


def build(root: Path = ROOT, out: Path | None = None, work: Path | None = None, cache: Path | None = None,
          site_dir: Path = SITE_DIR, mermaid_js: Path | None = None, quiet: bool = False,
          download: bool = True, strict: bool = False) -> Path:
    """Build the site from ``root``'s notebooks into ``out`` (default build/site); return ``out``.

    ``download=False`` never fetches Mermaid: it must already be in ``cache``. Placeholder
    launch links are a loud warning, or with ``strict`` an error (``check_placeholders``).
    """
    out = out or root / "build" / "site"
    work = work or root / "build" / "site-src"
    cache = cache or root / "build" / "site-cache"
    settings = load_settings(site_dir, root)
    check_placeholders(settings, strict)
    editions = discover(root)
    mermaid = mermaid_js or fetch_mermaid(settings, cache, download)
    for folder in (out, work):
        if folder.exists():
            shutil.rmtree(folder)
    for lang, edition in editions.items():
        srcdir, outdir = work / lang, out / edition.prefix
        pages = {repo_path.as_posix(): docname for docname, repo_path in edition.pages()}
        for docname, repo_path in edition.pages():
            fix = lambda text, r=repo_path.as_posix(), d=docname: rewrite_links(text, r, d, pages, root, settings)
            prepare_notebook(root / repo_path, srcdir / f"{docname}.ipynb", STRINGS[lang], fix)
        (srcdir / "index.md").write_text(home_page(edition, root, settings), encoding="utf-8")
        manifest_path = work / f"{lang}.json"
        manifest_path.write_text(json.dumps(manifest(edition, editions, settings), ensure_ascii=False, indent=1), encoding="utf-8")
        run_sphinx(srcdir, outdir, work / f"doctrees-{lang}", lang, manifest_path, site_dir, quiet)
        for docname, repo_path in edition.pages():  # the download links' targets: the notebooks as committed
            shutil.copyfile(root / repo_path, outdir / f"{docname}.ipynb")
        if edition.prefix:
            share_static(out, edition)
        if STRINGS[lang]["dir"] == "rtl":
            for page in outdir.rglob("*.html"):
                text = page.read_text(encoding="utf-8")
                page.write_text(text.replace("<html ", '<html dir="rtl" ', 1), encoding="utf-8")
        if "theme" in STRINGS[lang]:
            for page in outdir.rglob("*.html"):
                page.write_text(translate_theme(page.read_text(encoding="utf-8"), STRINGS[lang]["theme"]), encoding="utf-8")
    shutil.copyfile(mermaid, out / "_static" / "mermaid.min.js")
    licence = Path(mermaid).with_name("LICENSE")
    if licence.exists():
        shutil.copyfile(licence, out / "_static" / "mermaid.LICENSE.txt")
    (out / ".nojekyll").write_text("")  # GitHub Pages: serve _static/ as is
    loads = outside_loads(out)
    if loads:
        raise SiteBuildError("the site would load from another host:\n" + "\n".join(loads))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the course folder (default: this repository)")
    parser.add_argument("--out", type=Path, help="output folder (default: ROOT/build/site)")
    parser.add_argument("--mermaid-js", type=Path, help="a mermaid.min.js to use instead of fetching the pinned one")
    parser.add_argument("--quiet", action="store_true", help="print only the result")
    parser.add_argument("--strict", action="store_true",
                        help="fail when a launch link would be a placeholder (github.com/OWNER/REPO, hub.example.edu)")
    parser.add_argument("--fetch-mermaid", action="store_true",
                        help="only fetch the pinned Mermaid into build/site-cache (a set-up step; the tests never fetch)")
    args = parser.parse_args(argv)
    try:
        if args.fetch_mermaid:
            root = args.root.resolve()
            print(f"mermaid: {fetch_mermaid(load_settings(SITE_DIR, root), root / 'build' / 'site-cache')}")
            return 0
        out = build(args.root.resolve(), args.out, mermaid_js=args.mermaid_js, quiet=args.quiet, strict=args.strict)
    except SiteBuildError as error:
        print(f"build_site: {error}", file=sys.stderr)
        return 1
    print(f"built {out / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
