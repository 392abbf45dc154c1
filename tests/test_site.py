"""The course website (scripts/build_site.py): built from the committed notebooks, once per session.

What is checked, from the built HTML (tests/test_browser_site.py opens the
same pages in Chromium):

- every lesson (``notebooks/*.ipynb``) and every exercise student copy
  (``exercises/*.ipynb``) has a page, in file-name order, linked by
  next/previous; the home page carries the README's course map;
- every figure keeps its text alternative, every widget shows its stored
  static view with the note that the live widget needs the notebook;
- no broken internal link or anchor, and nothing loads from another host;
- every page's download, Binder and nbgitpuller links are well formed and
  point at that page's notebook (the download target is in the build);
- the Persian mechanism, on a tiny bilingual fixture course: ``lang="fa"``,
  ``dir="rtl"``, and a language switch both ways.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import nbformat
import pytest
from bs4 import BeautifulSoup

import build_site
from site_support import (
    FIXTURE_ALT,
    FIXTURE_WIDGET_TEXT,
    ROOT,
    broken_internal_links,
    html_pages,
    make_bilingual_course,
    parse,
    shared_folder,
)

LESSONS = sorted((ROOT / "notebooks").glob("*.ipynb"), key=lambda p: p.name)
EXERCISES = sorted((ROOT / "exercises").glob("*.ipynb"), key=lambda p: p.name)
NOTEBOOKS = [p.relative_to(ROOT) for p in LESSONS + EXERCISES]
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def page_of(site: Path, notebook: Path) -> Path:
    """notebooks/01_x.ipynb -> SITE/notebooks/01_x.html (Persian: notebooks/fa/01_x.ipynb -> SITE/fa/notebooks/01_x.html)."""
    parts = notebook.with_suffix(".html").parts
    if len(parts) == 3:  # notebooks/fa/x.html
        return site / parts[1] / parts[0] / parts[2]
    return site / notebook.with_suffix(".html")


def soup(path: Path) -> BeautifulSoup:
    return parse(path.resolve())


def outputs(notebook: Path):
    for cell in nbformat.read(ROOT / notebook, as_version=4).cells:
        yield from cell.get("outputs", [])


# --- pages and order ------------------------------------------------------------------------------------


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=str)
def test_every_lesson_and_exercise_has_a_page(site, notebook):
    page = page_of(site, notebook)
    assert page.exists(), f"{notebook} has no page ({page.relative_to(site)})"
    first_heading = next(
        line for cell in nbformat.read(ROOT / notebook, as_version=4).cells if cell.cell_type == "markdown"
        for line in cell.source.splitlines() if line.startswith("# ")
    )
    title = soup(page).find("h1").get_text(" ", strip=True).rstrip("#").strip()
    assert re.sub(r"\W+", " ", title).strip() == re.sub(r"\W+", " ", first_heading[2:]).strip()


def test_next_and_previous_follow_the_file_names(site):
    """Home, then the lessons, then the exercises, each in file-name order; next/previous walk that order."""
    order = [site / "index.html"] + [page_of(site, n) for n in NOTEBOOKS]
    for before, after in zip(order, order[1:]):
        nxt = soup(before).select_one("a.right-next")
        assert nxt is not None, f"{before.relative_to(site)} has no next link"
        assert (before.parent / nxt["href"]).resolve() == after.resolve(), (before, nxt["href"])
        prev = soup(after).select_one("a.left-prev")
        assert prev is not None and (after.parent / prev["href"]).resolve() == before.resolve()
    assert soup(order[-1]).select_one("a.right-next") is None


def test_home_page_is_the_course_map_and_lists_every_page(site):
    home = soup(site / "index.html")
    assert home.find(id="course-map") is not None, "the README's course map is not on the home page"
    linked = {(site / a["href"]).resolve() for a in home.select("article a[href]") if not a["href"].startswith(("http", "#"))}
    missing = [str(n) for n in NOTEBOOKS if page_of(site, n).resolve() not in linked]
    assert not missing, f"the home page does not link to {missing}"


def test_discovery_order_grows_with_new_lessons(tmp_path):
    """Pages come from the folders: 05b, 06b, 07 and an appendix A1 slot in by file name, no list to edit."""
    for name in ("07_new.ipynb", "00_start.ipynb", "A1_appendix.ipynb", "06b_more.ipynb", "06_agent.ipynb", "05b_x.ipynb", "05_y.ipynb"):
        (tmp_path / "notebooks").mkdir(exist_ok=True)
        (tmp_path / "notebooks" / name).write_text("{}")
    (tmp_path / "exercises").mkdir()
    (tmp_path / "exercises" / "07_new_exercise.ipynb").write_text("{}")
    editions = build_site.discover(tmp_path)
    assert set(editions) == {"en"}, "no Persian edition without notebooks/fa or exercises/fa"
    assert [p.stem.split("_")[0] for p in editions["en"].lessons] == ["00", "05", "05b", "06", "06b", "07", "A1"]
    assert [p.name for p in editions["en"].exercises] == ["07_new_exercise.ipynb"]


# --- what the notebooks show -----------------------------------------------------------------------------


@pytest.mark.parametrize("notebook", [n for n in NOTEBOOKS if n.parts[0] == "notebooks"], ids=str)
def test_every_figure_keeps_its_alt_text(site, notebook):
    page = soup(page_of(site, notebook))
    shown = [img.get("alt", "") for img in page.select("article img")]
    assert all(alt.strip() for alt in shown), f"an image on the page has no alt text: {shown}"
    expected = []
    for output in outputs(notebook):
        data = output.get("data", {})
        if "image/png" in data or "<img" in data.get("text/html", ""):
            html = BeautifulSoup(data.get("text/html", ""), "html.parser")
            expected += [img["alt"] for img in html.find_all("img")] or [None]
    assert None not in expected, f"{notebook} stores a figure with no text/html <img alt> to show"
    assert sorted(alt for alt in shown if alt in expected) == sorted(expected), "a stored figure is missing from the page"


@pytest.mark.parametrize("notebook", [n for n in NOTEBOOKS if n.parts[0] == "notebooks"], ids=str)
def test_every_widget_shows_its_static_view_with_a_note(site, notebook):
    page = soup(page_of(site, notebook))
    widgets = [o["data"] for o in outputs(notebook) if WIDGET_VIEW in o.get("data", {})]
    shown = page.select(".course-widget-static")
    assert len(shown) == len(widgets)
    for data, box in zip(widgets, shown):
        note = box.select_one(".course-widget-note")
        assert note is not None and "needs the notebook" in note.get_text()
        stored = BeautifulSoup(data.get("text/html", ""), "html.parser").get_text(" ", strip=True)
        assert stored and stored[:200] in box.get_text(" ", strip=True)
    assert not page.select('script[type="application/vnd.jupyter.widget-view+json"]')


def test_mermaid_diagrams_are_on_the_pages_with_their_source(site):
    for notebook in NOTEBOOKS:
        sources = [c.source for c in nbformat.read(ROOT / notebook, as_version=4).cells if c.cell_type == "markdown"]
        expected = sum(s.count("```mermaid") for s in sources)
        expected += sum("```mermaid" in o.get("data", {}).get("text/markdown", "") for o in outputs(notebook))
        page = soup(page_of(site, notebook))
        assert len(page.select("figure.course-mermaid pre.mermaid")) == expected, notebook
        if expected:
            scripts = [s.get("src", "") for s in page.find_all("script")]
            assert any(s.endswith("_static/mermaid.min.js") for s in scripts), scripts
    assert (site / "_static" / "mermaid.min.js").stat().st_size > 100_000


# --- links --------------------------------------------------------------------------------------------------


def test_no_broken_internal_link(site):
    pages = html_pages(site)
    assert len(pages) >= len(NOTEBOOKS) + 2  # + home and search
    broken = broken_internal_links(site)
    assert not broken, "broken internal links:\n" + "\n".join(broken)


def test_link_check_finds_a_planted_broken_link(tmp_path):
    (tmp_path / "a.html").write_text('<a href="b.html#there">b</a> <a href="c.html">c</a> <img src="_static/x.png" alt="x">')
    (tmp_path / "b.html").write_text('<h1 id="here">b</h1>')
    broken = broken_internal_links(tmp_path)
    assert broken == ["a.html: <a> b.html#there (no such anchor)", "a.html: <a> c.html", "a.html: <img> _static/x.png"]


def test_nothing_loads_from_another_host(site):
    assert build_site.outside_loads(site) == []
    planted = site.parent / "planted-site"
    planted.mkdir(exist_ok=True)
    (planted / "p.html").write_text('<script src="https://cdn.example.org/x.js"></script><link rel="stylesheet" href="//fonts.example.org/f.css">')
    assert len(build_site.outside_loads(planted)) == 2


def launch_links(page: BeautifulSoup) -> dict[str, str]:
    bar = page.select_one("nav.course-launch")
    assert bar is not None and bar.get("aria-label"), "no labelled launch bar"
    return {cls: bar.select_one(f"a.course-launch-{cls}")["href"] for cls in ("download", "binder", "jupyterhub")}


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=str)
def test_launch_links_point_at_the_pages_notebook(site, notebook):
    settings = build_site.load_settings(ROOT / "site", ROOT)
    page_path = page_of(site, notebook)
    links = launch_links(soup(page_path))
    target = page_path.parent / links["download"]
    assert target.exists() and target.read_bytes() == (ROOT / notebook).read_bytes(), links["download"]

    binder = urlparse(links["binder"])
    hub_of_binder = urlparse(settings["launch"]["binderhub_url"])
    assert (binder.scheme, binder.netloc) == (hub_of_binder.scheme, hub_of_binder.netloc)
    assert re.fullmatch(r"/v2/(gh/[\w.-]+/[\w.-]+|git/[^/]+)/[\w.-]+", binder.path), binder.path
    assert binder.path.endswith("/" + settings["repository"]["branch"])
    assert parse_qs(binder.query)["urlpath"] == [f"lab/tree/{notebook.as_posix()}"]

    hub = urlparse(links["jupyterhub"])
    assert f"{hub.scheme}://{hub.netloc}" == settings["launch"]["jupyterhub_url"].rstrip("/")
    assert hub.path == "/hub/user-redirect/git-pull"
    query = parse_qs(hub.query)
    repo = query["repo"][0]
    assert urlparse(repo).scheme == "https" and not repo.endswith(".git")
    assert query["branch"] == [settings["repository"]["branch"]]
    folder = repo.rstrip("/").rsplit("/", 1)[-1]
    assert query["urlpath"] == [f"lab/tree/{folder}/{notebook.as_posix()}"]
    assert (ROOT / notebook).exists()


def test_the_hub_is_set_in_one_place(tmp_path):
    """site/site.toml's jupyterhub_url is the one setting every nbgitpuller link uses."""
    (tmp_path / "site.toml").write_text(
        (ROOT / "site" / "site.toml").read_text().replace('jupyterhub_url = "https://hub.example.edu"', 'jupyterhub_url = "https://jupyter.school.test/"')
    )
    settings = build_site.load_settings(tmp_path, ROOT)
    assert build_site.jupyterhub_link(settings, "notebooks/00_start_here.ipynb").startswith(
        "https://jupyter.school.test/hub/user-redirect/git-pull?repo=")
    (tmp_path / "site.toml").write_text((tmp_path / "site.toml").read_text().replace("https://jupyter.school.test/", "jupyter.school.test"))
    with pytest.raises(build_site.SiteBuildError, match="jupyterhub_url"):
        build_site.load_settings(tmp_path, ROOT)


# --- the Persian mechanism, on a fixture course ---------------------------------------------------------------


def test_persian_pages_are_right_to_left_and_linked_both_ways(bilingual):
    fa_page = bilingual / "fa" / "notebooks" / "00_intro.html"
    en_page = bilingual / "notebooks" / "00_intro.html"
    fa, en = soup(fa_page), soup(en_page)
    assert fa.html["lang"] == "fa" and fa.html["dir"] == "rtl"
    assert en.html["lang"] == "en" and en.html.get("dir") in (None, "ltr")
    to_en = fa.select_one("a.course-language-switch")
    assert to_en["hreflang"] == "en" and (fa_page.parent / to_en["href"]).resolve() == en_page.resolve()
    to_fa = en.select_one("a.course-language-switch")
    assert to_fa["hreflang"] == "fa" and to_fa["lang"] == "fa" and to_fa["dir"] == "rtl"
    assert (en_page.parent / to_fa["href"]).resolve() == fa_page.resolve()
    # the homes link to each other; a page with no Persian counterpart has no switch
    assert (bilingual / soup(bilingual / "index.html").select_one("a.course-language-switch")["href"]).resolve() == (bilingual / "fa" / "index.html").resolve()
    assert soup(bilingual / "notebooks" / "01_growth.html").select_one("a.course-language-switch") is None
    assert soup(bilingual / "fa" / "index.html").html["dir"] == "rtl"


def test_persian_pages_show_figures_widgets_and_launch_links(bilingual):
    fa = soup(bilingual / "fa" / "notebooks" / "00_intro.html")
    assert [img["alt"] for img in fa.select("article img")] == [FIXTURE_ALT["fa"]]
    box = fa.select_one(".course-widget-static")
    assert FIXTURE_WIDGET_TEXT["fa"] in box.get_text() and "نوت‌بوک" in box.select_one(".course-widget-note").get_text()
    links = launch_links(fa)
    assert (bilingual / "fa" / "notebooks" / links["download"]).exists()
    assert parse_qs(urlparse(links["binder"]).query)["urlpath"] == ["lab/tree/notebooks/fa/00_intro.ipynb"]
    assert parse_qs(urlparse(links["jupyterhub"]).query)["urlpath"][0].endswith("/notebooks/fa/00_intro.ipynb")
    assert broken_internal_links(bilingual) == []


def test_a_broken_link_in_a_lesson_fails_the_build(tmp_path_factory):
    folder = shared_folder(tmp_path_factory) / "broken-link"
    root = make_bilingual_course(folder / "course", extra_links="See [lesson 09](09_missing.ipynb).")
    with pytest.raises(build_site.SiteBuildError, match="09_missing"):
        build_site.build(root, folder / "out", work=folder / "src", cache=ROOT / "build" / "site-cache", quiet=True,
                         mermaid_js=next((ROOT / "build" / "site-cache").glob("mermaid-*/mermaid.min.js"), None))


def test_home_page_launches_the_first_lesson(site):
    links = launch_links(soup(site / "index.html"))
    first = NOTEBOOKS[0]
    assert (site / links["download"]).read_bytes() == (ROOT / first).read_bytes()
    assert parse_qs(urlparse(links["binder"]).query)["urlpath"] == [f"lab/tree/{first.as_posix()}"]
    assert parse_qs(urlparse(links["jupyterhub"]).query)["urlpath"][0].endswith(f"/{first.as_posix()}")


def fake_npm(folder: Path, tarball: bytes) -> None:
    """An `npm` on PATH whose `pack` writes ``tarball`` where the build asks (no network)."""
    (folder / "payload.tgz").write_bytes(tarball)
    script = folder / "npm"
    script.write_text(
        "#!/bin/sh\n"
        'while [ "$1" != "--pack-destination" ]; do shift; done\n'
        f'cp "{folder / "payload.tgz"}" "$2/mermaid-9.9.9.tgz"\n'
    )
    script.chmod(0o755)


def mermaid_tarball(text: str) -> bytes:
    import io
    import tarfile

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, body in (("package/dist/mermaid.min.js", text), ("package/LICENSE", "MIT")):
            data = body.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def test_mermaid_is_used_only_if_its_integrity_matches(tmp_path, monkeypatch):
    import base64
    import hashlib

    tarball = mermaid_tarball("window.mermaid = {};")
    fake_npm(tmp_path, tarball)
    monkeypatch.setenv("PATH", f"{tmp_path}:{__import__('os').environ['PATH']}")
    good = "sha512-" + base64.b64encode(hashlib.sha512(tarball).digest()).decode()
    other = "sha512-" + base64.b64encode(hashlib.sha512(b"another tarball").digest()).decode()
    settings = {"mermaid": {"version": "9.9.9", "integrity": other}}
    with pytest.raises(build_site.SiteBuildError, match="pins"):
        build_site.fetch_mermaid(settings, tmp_path / "cache")
    assert not (tmp_path / "cache" / "mermaid-9.9.9").exists()
    settings["mermaid"]["integrity"] = good
    script = build_site.fetch_mermaid(settings, tmp_path / "cache")
    assert script.read_text() == "window.mermaid = {};" and script.with_name("LICENSE").exists()


def test_a_build_without_download_never_fetches(tmp_path, monkeypatch):
    """The tests build with download=False: with Mermaid not cached, the build says how to fetch it, and npm is never run."""
    fake_npm(tmp_path, b"not a tarball")
    monkeypatch.setenv("PATH", f"{tmp_path}:{__import__('os').environ['PATH']}")
    settings = {"mermaid": {"version": "9.9.9", "integrity": "sha512-x"}}
    with pytest.raises(build_site.SiteBuildError, match="--fetch-mermaid"):
        build_site.fetch_mermaid(settings, tmp_path / "cache", download=False)
    assert not (tmp_path / "cache").exists()


# --- launch links that would be placeholders -------------------------------------------------------------


def git_course(folder: Path, remote: str | None) -> Path:
    """The bilingual fixture course as a git repository whose origin is ``remote`` (None: no remote)."""
    import subprocess

    root = make_bilingual_course(folder)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    if remote is not None:
        subprocess.run(["git", "-C", str(root), "remote", "add", "origin", remote], check=True)
    return root


@pytest.fixture
def no_launch_env(monkeypatch):
    for name in ("GITHUB_REPOSITORY", build_site.HUB_VARIABLE, "GITHUB_ACTIONS"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("remote", ["git@github.com:school/context-course.git", "ssh://git@github.com/school/context-course.git",
                                    "https://github.com/school/context-course.git"])
def test_a_github_remote_gives_the_repository_in_any_form(tmp_path, no_launch_env, remote):
    settings = build_site.load_settings(ROOT / "site", git_course(tmp_path, remote))
    assert settings["repository"]["url"] == "https://github.com/school/context-course"
    assert urlparse(build_site.binder_link(settings, "notebooks/00_intro.ipynb")).path == "/v2/gh/school/context-course/main"
    assert not any("OWNER/REPO" in p for p in build_site.placeholder_links(settings))


@pytest.mark.parametrize("remote", [None, "/srv/git/course", "file:///srv/git/course"], ids=["no remote", "local path", "file URL"])
def test_a_local_clone_gets_placeholders_and_the_build_warns_loudly(tmp_path, no_launch_env, capsys, remote):
    root = git_course(tmp_path / "course", remote)
    settings = build_site.load_settings(ROOT / "site", root)
    assert settings["repository"]["url"] == build_site.PLACEHOLDER_REPOSITORY
    # The warning comes before anything is built: an empty Mermaid cache stops this build right after it.
    with pytest.raises(build_site.SiteBuildError, match="--fetch-mermaid"):
        build_site.build(root, tmp_path / "out", work=tmp_path / "src", cache=tmp_path / "empty-cache", quiet=True, download=False)
    warning = capsys.readouterr().err
    assert "WARNING" in warning and "placeholder" in warning
    for fix in ("repository.url", "GITHUB_REPOSITORY", "launch.jupyterhub_url", build_site.HUB_VARIABLE, "hub.example.edu"):
        assert fix in warning, f"the warning does not name {fix}:\n{warning}"


def test_strict_fails_on_placeholder_links_and_passes_when_they_are_set(tmp_path, no_launch_env, monkeypatch, capsys):
    root = git_course(tmp_path / "course", None)
    with pytest.raises(build_site.SiteBuildError, match="--strict") as failure:
        build_site.build(root, tmp_path / "out", work=tmp_path / "src", cache=tmp_path / "empty-cache", quiet=True,
                         download=False, strict=True)
    assert "repository.url" in str(failure.value) and build_site.HUB_VARIABLE in str(failure.value)
    assert not (tmp_path / "out").exists(), "a strict build stops before writing anything"
    assert build_site.main(["--root", str(root), "--out", str(tmp_path / "out"), "--strict", "--quiet"]) == 1
    assert "--strict" in capsys.readouterr().err
    # Only the hub left as a placeholder: still an error, naming just the hub.
    monkeypatch.setenv("GITHUB_REPOSITORY", "school/context-course")
    with pytest.raises(build_site.SiteBuildError, match="jupyterhub_url") as failure:
        build_site.build(root, tmp_path / "out", cache=tmp_path / "empty-cache", download=False, strict=True)
    assert "OWNER/REPO" not in str(failure.value)
    # Both set: the placeholder check passes (the build then stops at the empty Mermaid cache, not at --strict).
    monkeypatch.setenv(build_site.HUB_VARIABLE, "https://jupyter.school.test")
    with pytest.raises(build_site.SiteBuildError, match="--fetch-mermaid"):
        build_site.build(root, tmp_path / "out", work=tmp_path / "src", cache=tmp_path / "empty-cache", download=False, strict=True)
    assert "WARNING" not in capsys.readouterr().err


# --- one _static, Persian chrome, search index, size --------------------------------------------------------


@pytest.mark.parametrize("which", ["site", "bilingual"])
def test_one_shared_static_for_both_languages(which, request):
    built = request.getfixturevalue(which)
    assert (built / "fa").is_dir(), "this check needs a Persian edition"
    assert [p.relative_to(built) for p in built.rglob("mermaid.min.js")] == [Path("_static/mermaid.min.js")]
    assert [d.relative_to(built) for d in built.rglob("_static") if d.is_dir()] == [Path("_static")]
    names = {}
    for path in (built / "_static").rglob("*"):
        if path.is_file() and path.stat().st_size > 10_000:
            names.setdefault((path.name, path.read_bytes()), []).append(path)
    assert not [v for v in names.values() if len(v) > 1], "the same file twice in _static"
    # The Persian pages use the shared files, and their own language settings.
    fa_page = soup(built / "fa" / "index.html")
    scripts = [s["src"] for s in fa_page.find_all("script", src=True)]
    assert any(s.startswith("../_static/fa/documentation_options.js") for s in scripts), scripts
    assert "LANGUAGE: 'fa'" in (built / "_static" / "fa" / "documentation_options.js").read_text()
    assert broken_internal_links(built) == []


PERSIAN_THEME = build_site.STRINGS["fa"]["theme"]


@pytest.mark.parametrize("which", ["site", "bilingual"])
def test_persian_pages_translate_the_themes_words(which, request):
    built = request.getfixturevalue(which)
    for page in html_pages(built / "fa"):
        text = page.read_text(encoding="utf-8")
        outside = re.sub(r"<article\b.*?</article>", "", text, flags=re.S)
        left = [w for w in PERSIAN_THEME if re.search(rf'[>"]\s*{re.escape(w)}\s*[<"]', outside)]
        assert not left, f"{page.relative_to(built)} still says {left}"
    toc = soup(built / "fa" / "notebooks" / "00_intro.html" if which == "bilingual" else built / "fa" / "notebooks" / "00_start_here.html")
    assert "فهرست مطالب" in toc.get_text(), "the page's Contents heading is not translated"


def search_terms(built: Path) -> dict:
    import json

    text = (built / "searchindex.js").read_text(encoding="utf-8")
    return json.loads(text[text.index("(") + 1: text.rindex(")")])["terms"]


GLUED = re.compile(r"^\d+(system|human|ai|tool|kept|dropped)[a-z]|[\u0600-\u06ff][a-z]|[a-z][\u0600-\u06ff]")


@pytest.mark.parametrize("edition", ["", "fa"])
def test_the_search_index_keeps_table_cells_apart(site, edition):
    """Raw HTML outputs (the trim tables) are indexed with a space per tag: no "01systemyou", no "تاریخچهtoken"."""
    terms = search_terms(site / edition)
    glued = sorted(t for t in terms if GLUED.search(t))
    assert not glued, f"words glued together in the search index: {glued[:20]}"
    assert {"system", "human"} <= set(terms), "the tables' cells are not indexed"


def test_searching_the_persian_word_for_token_finds_the_lessons(site):
    terms = search_terms(site / "fa")
    assert "توکن" in terms, "searching توکن would find nothing"
    docs = terms["توکن"] if isinstance(terms["توکن"], list) else [terms["توکن"]]
    token = terms["token"] if isinstance(terms["token"], list) else [terms["token"]]
    assert set(token) <= set(docs) and len(docs) > 5


def test_raw_html_text_for_the_index(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "site"))
    import course_site

    assert course_site.html_words("<tr><td>01</td><td>system</td><td>You are&nbsp;kind</td></tr>").split() == [
        "01", "system", "You", "are", "kind"]
    assert course_site.html_words("<b>to</b>ken <script>var x;</script>").split() == ["token"]


def site_size(built: Path) -> float:
    return sum(p.stat().st_size for p in built.rglob("*") if p.is_file() and p.name != ".built") / 1e6


def test_the_readmes_give_the_sites_measured_size(site):
    total, mermaid = site_size(site), (site / "_static" / "mermaid.min.js").stat().st_size / 1e6
    claims = {
        "README.md": r"about (\d+) MB, ([\d.]+) MB of it Mermaid",
        "README.fa.md": r"حدود (\d+) مگابایت است که\s+([\d.]+) مگابایت آن Mermaid",
    }
    for readme, pattern in claims.items():
        found = re.search(pattern, (ROOT / readme).read_text(encoding="utf-8"))
        assert found, f"{readme} does not give the site's size"
        said_total, said_mermaid = float(found.group(1)), float(found.group(2))
        assert abs(said_total - total) <= 0.1 * total, f"{readme} says {said_total:g} MB; the build is {total:.1f} MB"
        assert abs(said_mermaid - mermaid) <= 0.1, f"{readme} says Mermaid is {said_mermaid:g} MB; it is {mermaid:.1f} MB"
