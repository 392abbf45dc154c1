"""Build the Persian edition's lessons: notebooks/fa/NN.ipynb from the English notebook + Persian prose.

A Persian lesson is never edited by hand. It is generated from two sources:

- the English notebook ``notebooks/NN_name.ipynb``: every code cell is copied
  unchanged (same source, same cell id), so the editions cannot drift apart
  in what they compute;
- the Persian prose ``notebooks/fa/src/NN_name.md``: one block per English
  markdown cell, opened by a marker that names the English cell's position
  and a hash of the English text the translation was made from::

      <!-- fa-cell 4 en-sha256=1a2b3c4d5e6f -->
      ## نمونهٔ کامل، گام به گام
      ...

The builder refuses to build when an English markdown cell has no Persian
block, or its hash no longer matches (the English text changed after it was
translated). Update the Persian text, then ``--stamp NN`` records the new
hash. ``tests/test_persian_edition.py`` runs the same check, so an English
edit that is not followed in Persian fails the tests.

How the Persian kernel speaks Persian: right after the title the builder
inserts one code cell of its own, tagged ``edition-language``::

    from course_utils.core import i18n
    i18n.set_language("fa")

so ``course_utils`` prints its sentences from the Persian gettext catalogue.
It is the only code cell not copied from English, and it prints nothing.
Each Persian markdown cell is wrapped in ``<div dir="rtl" lang="fa">`` (code
stays left to right).

    python scripts/make_persian_edition.py                 # rebuild every translated lesson
    python scripts/make_persian_edition.py 02 --execute    # rebuild one and run it (stores outputs)
    python scripts/make_persian_edition.py 02 --stamp      # after updating a translation
    python scripts/make_persian_edition.py --check         # exit 1 on drift (what the test does)

Outputs of code cells that did not change are kept, so a change of Persian
prose needs no re-run (``--execute`` runs the lesson when code changed).
"""

from __future__ import annotations

import argparse
import hashlib
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
ENGLISH = ROOT / "notebooks"
PERSIAN = ROOT / "notebooks" / "fa"
SOURCES = PERSIAN / "src"
LANGUAGE_TAG = "edition-language"
LANGUAGE_CELL = (
    "# The Persian edition: course_utils prints in Persian (see README.fa.md).\n"
    "from course_utils.core import i18n\n"
    'i18n.set_language("fa")'
)
RTL_OPEN = '<div dir="rtl" lang="fa">'
MARKER = re.compile(r"^<!-- fa-cell (\d+) en-sha256=([0-9a-f]{12}) -->$", re.M)


def english_hash(text: str) -> str:
    """The first 12 hex digits of the SHA-256 of an English cell's source."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


@dataclass(frozen=True)
class Block:
    """One Persian markdown cell: the English cell it translates, that cell's hash then, the text."""

    index: int
    stamp: str
    text: str


def read_blocks(path: Path) -> dict[int, Block]:
    """The Persian blocks of one source file, by English cell position."""
    source = path.read_text(encoding="utf-8")
    marks = list(MARKER.finditer(source))
    if not marks:
        raise ValueError(f"{path} holds no '<!-- fa-cell N en-sha256=... -->' marker")
    blocks = {}
    for mark, following in zip(marks, [*marks[1:], None]):
        end = following.start() if following else len(source)
        index = int(mark.group(1))
        if index in blocks:
            raise ValueError(f"{path}: two Persian blocks for English cell {index}")
        blocks[index] = Block(index, mark.group(2), source[mark.end():end].strip("\n"))
    return blocks


def english_for(source: Path) -> Path:
    return ENGLISH / f"{source.stem}.ipynb"


def drift(source: Path) -> list[str]:
    """What keeps the Persian lesson of ``source`` from matching its English notebook (empty: nothing)."""
    english = nbformat.read(english_for(source), as_version=4)
    blocks = read_blocks(source)
    problems = []
    markdown_at = {i for i, cell in enumerate(english.cells) if cell.cell_type == "markdown"}
    for i in sorted(markdown_at):
        now = english_hash(english.cells[i].source)
        if i not in blocks:
            problems.append(f"English markdown cell {i} has no Persian block in {source.name}")
        elif blocks[i].stamp != now:
            problems.append(
                f"English markdown cell {i} changed since it was translated (hash {blocks[i].stamp}, now {now}): "
                f"update its Persian block in {source.name}, then run --stamp {source.stem[:3].rstrip('_')}"
            )
    for i in sorted(set(blocks) - markdown_at):
        problems.append(f"Persian block {i} in {source.name} matches no English markdown cell")
    return problems


#: Arithmetic written with digits ("4096 − 350 = 3746", "70 <= 150", "109 + 37 = 146"), bold allowed.
ARITHMETIC = re.compile(
    r"(?<![\w.*])(?:\*\*)?\d+(?:\.\d+)?(?:\*\*)?"
    r"(?:[ \t]*(?:<=|>=|[−+×*/=<>≤≥-])[ \t]*(?:\*\*)?\d+(?:\.\d+)?(?:\*\*)?)+(?!\w)(?!\.\d)"
)
#: What the isolation must not touch: fenced blocks (code, Mermaid), inline code, HTML tags, links' targets.
PROTECTED = re.compile(r"```.*?```|`[^`\n]*`|</?[A-Za-z][^>\n]*>|\]\([^)\n]*\)", re.S)


def isolate_arithmetic(text: str) -> str:
    """Put every digit-only calculation, and every inline code span, in a left-to-right span.

    In a right-to-left paragraph the Unicode bidi algorithm treats the
    neutral "=" and "<" between Latin digits as right to left, so
    "4096 − 350 = 3746" would show as "3746 = 350 − 4096". A
    ``<span dir="ltr">`` isolates it; code, Mermaid and links are left as they are.

    >>> isolate_arithmetic("پس 4096 − 350 = 3746 و `1 + 1`")
    'پس <span dir="ltr">4096 − 350 = 3746</span> و <span dir="ltr">`1 + 1`</span>'
    >>> isolate_arithmetic("`a` (prompt سیستم) [x](y.ipynb)")
    '<span dir="ltr">`a`</span> \\u200f(prompt سیستم)\\u200f [x](y.ipynb)'
    """
    out, last = [], 0
    for match in PROTECTED.finditer(text):
        out.append(_fix_plain(text[last:match.start()]))
        piece = match.group(0)
        # Inline code is isolated too: its quotes and brackets would otherwise join the Persian text around it.
        out.append(f'<span dir="ltr">{piece}</span>' if piece.startswith("`") and not piece.startswith("```") else piece)
        last = match.end()
    out.append(_fix_plain(text[last:]))
    return "".join(out)


#: Right-to-left mark (U+200F): a strong right-to-left character that shows nothing.
RLM = "\u200f"


def _fix_plain(plain: str) -> str:
    """Arithmetic in LTR spans; parentheses anchored right to left with a mark on their outer side.

    Between two Latin words (``include_system=True`` (prompt ...) a
    parenthesis would join their left-to-right run and face the wrong way;
    a right-to-left mark before "(" and after ")" keeps it with the Persian
    sentence.
    """
    plain = ARITHMETIC.sub(lambda m: f'<span dir="ltr">{m.group(0)}</span>', plain)
    return plain.replace("(", RLM + "(").replace(")", ")" + RLM)


def wrap(text: str) -> str:
    """A Persian markdown cell: the text inside a right-to-left block (blank lines keep it Markdown)."""
    return f"{RTL_OPEN}\n\n{isolate_arithmetic(text)}\n\n</div>"


def build(source: Path) -> nbformat.NotebookNode:
    """The Persian notebook for ``source`` (no outputs), or ValueError naming every drift."""
    problems = drift(source)
    if problems:
        raise ValueError("\n".join(problems))
    english = nbformat.read(english_for(source), as_version=4)
    blocks = read_blocks(source)
    cells = []
    for i, cell in enumerate(english.cells):
        if cell.cell_type == "code":
            new = nbformat.v4.new_code_cell(cell.source, metadata=dict(cell.metadata))
        else:
            new = nbformat.v4.new_markdown_cell(wrap(blocks[i].text), metadata=dict(cell.metadata))
        new.id = cell.id
        cells.append(new)
        if i == 0:
            language = nbformat.v4.new_code_cell(LANGUAGE_CELL, metadata={"tags": [LANGUAGE_TAG]})
            language.id = "fa-edition-language"
            cells.append(language)
    nb = nbformat.v4.new_notebook(cells=cells, metadata=dict(english.metadata))
    nb.metadata["language_info"] = dict(english.metadata.get("language_info", {"name": "python"}))
    nb.metadata["course_edition"] = {"lang": "fa", "dir": "rtl", "english": f"../{english_for(source).name}"}
    nb.nbformat, nb.nbformat_minor = english.nbformat, english.nbformat_minor
    return nb


def same_cells(a: nbformat.NotebookNode, b: nbformat.NotebookNode) -> bool:
    key = lambda nb: [(c.cell_type, c.get("id"), c.source) for c in nb.cells]  # noqa: E731
    return key(a) == key(b)


def write(source: Path) -> tuple[Path, bool]:
    """Write the Persian notebook; keep the stored one (and its outputs) when no cell changed."""
    target = PERSIAN / f"{source.stem}.ipynb"
    new = build(source)
    if target.exists():
        stored = nbformat.read(target, as_version=4)
        if same_cells(stored, new):
            return target, False
        # Outputs depend on code only: keep those of code cells that did not change.
        before = {(c.get("id"), c.source): c for c in stored.cells if c.cell_type == "code"}
        for cell in new.cells:
            if cell.cell_type == "code" and (cell.get("id"), cell.source) in before:
                old = before[(cell.get("id"), cell.source)]
                cell.outputs, cell.execution_count = old.outputs, old.execution_count
    nbformat.write(new, target)
    return target, True


def stamp(source: Path) -> None:
    """Record the current English hashes in ``source``: the translator says the Persian now follows."""
    english = nbformat.read(english_for(source), as_version=4)

    def restamp(mark: re.Match) -> str:
        i = int(mark.group(1))
        return f"<!-- fa-cell {i} en-sha256={english_hash(english.cells[i].source)} -->"

    source.write_text(MARKER.sub(restamp, source.read_text(encoding="utf-8")), encoding="utf-8")


def sources(selected: list[str]) -> list[Path]:
    every = sorted(SOURCES.glob("*.md"))
    if not selected:
        return every
    chosen = [p for p in every if any(p.stem == s or p.stem.split("_")[0] == s for s in selected)]
    if len(chosen) < len(selected):
        raise SystemExit(f"no Persian source for {selected} in {SOURCES} (have {[p.stem for p in every]})")
    return chosen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lessons", nargs="*", help="lesson numbers or names (default: every translated lesson)")
    parser.add_argument("--check", action="store_true", help="exit 1 when a lesson has drifted; write nothing")
    parser.add_argument("--stamp", action="store_true", help="record the English hashes the translation now follows")
    parser.add_argument("--execute", action="store_true", help="run each rebuilt notebook to store its outputs")
    args = parser.parse_args(argv)
    failed = False
    for source in sources(args.lessons):
        if args.stamp:
            stamp(source)
        if args.check:
            for problem in drift(source):
                print(problem)
                failed = True
            continue
        target, changed = write(source)
        print(f"{target.relative_to(ROOT)}: {'rebuilt' if changed else 'unchanged'}")
        if args.execute:
            subprocess.run([sys.executable, str(ROOT / "scripts" / "execute_notebooks.py"), str(target)], check=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
