"""Every relative link a learner or teacher can click points to a file that exists."""

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
LINK = re.compile(r"\]\(([^)\s#]+)")

DOCS = [ROOT / "README.md", ROOT / "TEACHING.md", ROOT / "notebooks" / "AUTHORING.md"]
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


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_notebook_links_exist(notebook):
    nb = nbformat.read(notebook, as_version=4)
    text = "\n".join(cell.source for cell in nb.cells if cell.cell_type == "markdown")
    assert broken(notebook, text) == []


def test_the_link_finder_sees_relative_links_only():
    text = "[a](notebooks/x.ipynb) [b](https://example.org/y) [c](#anchor) [d](../e.md#part)"
    assert relative_links(text) == ["notebooks/x.ipynb", "../e.md"]
