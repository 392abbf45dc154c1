"""Every relative link a learner or teacher can click points to a file that exists."""

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
LINK = re.compile(r"\]\(([^)\s#]+)")

DOCS = [ROOT / "README.md", ROOT / "TEACHING.md", ROOT / "README.fa.md", ROOT / "TEACHING.fa.md",
        ROOT / "notebooks" / "AUTHORING.md"]
ANCHORED = re.compile(r"\]\(([^)\s#]*)#([^)\s]+)\)")
NOTEBOOKS = sorted(ROOT.glob("notebooks/*.ipynb")) + sorted(ROOT.glob("exercises/*.ipynb")) + sorted(
    ROOT.glob("exercises/solutions/*.ipynb")
)


def relative_links(text: str) -> list[str]:
    return [link for link in LINK.findall(text) if not re.match(r"[a-z]+:", link)]


def broken(source: Path, text: str) -> list[str]:
    return [link for link in relative_links(text) if not (source.parent / link).exists()]


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_document_links_exist(doc):
    assert broken(doc, doc.read_text(encoding="utf-8")) == []


def heading_anchors(text: str) -> set[str]:
    """The anchors GitHub gives a Markdown file's headings: lower case, punctuation dropped, spaces to hyphens."""
    anchors, fenced = set(), False
    for line in text.splitlines():
        fenced ^= line.lstrip().startswith("```")
        if not fenced and line.startswith("#"):
            anchors.add(re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower()).replace(" ", "-"))
    return anchors


def broken_anchors(source: Path, text: str) -> list[str]:
    """Links to a section of a Markdown file (``TEACHING.md#real-models``) whose heading does not exist."""
    found = []
    for path, anchor in ANCHORED.findall(text):
        target = source.parent / path if path else source
        if target.suffix == ".md" and target.exists() and anchor not in heading_anchors(target.read_text(encoding="utf-8")):
            found.append(f"{path}#{anchor}")
    return found


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_document_section_links_exist(doc):
    """The Persian guide links to the English guide's sections: each must still be a heading there."""
    assert broken_anchors(doc, doc.read_text(encoding="utf-8")) == []


def test_the_anchor_finder_sees_a_missing_heading(tmp_path):
    (tmp_path / "G.md").write_text("# Guide\n\n## Real models\n\n```\n# not a heading\n```\n", encoding="utf-8")
    text = "[a](G.md#real-models) [b](G.md#not-a-heading) [c](G.md#gone) [d](#guide) [e](https://x.org/a#b)"
    (tmp_path / "S.md").write_text("# Guide\n", encoding="utf-8")
    assert broken_anchors(tmp_path / "S.md", text) == ["G.md#not-a-heading", "G.md#gone"]


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_notebook_links_exist(notebook):
    nb = nbformat.read(notebook, as_version=4)
    text = "\n".join(cell.source for cell in nb.cells if cell.cell_type == "markdown")
    assert broken(notebook, text) == []


def test_the_link_finder_sees_relative_links_only():
    text = "[a](notebooks/x.ipynb) [b](https://example.org/y) [c](#anchor) [d](../e.md#part)"
    assert relative_links(text) == ["notebooks/x.ipynb", "../e.md"]
