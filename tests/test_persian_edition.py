"""The Persian edition (notebooks/fa/) follows the English lessons (issue 23).

- every Persian lesson is what scripts/make_persian_edition.py builds from the
  English notebook and the Persian prose, and the prose was translated from
  the English text as it is now (a hash per cell);
- its code cells are the English program (equal syntax trees apart from their
  strings, which come from the lesson's catalogue), plus one language cell;
- every number its outputs show is a number the English outputs show;
- its prose uses the glossary's terms, Latin digits, and right-to-left blocks.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from pathlib import Path

import nbformat
import pytest

import code_catalogue
import make_persian_edition as edition

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted(edition.SOURCES.glob("*.md"))
GLOSSARY = ROOT / "notebooks" / "fa" / "GLOSSARY.md"


def persian(source: Path) -> nbformat.NotebookNode:
    return nbformat.read(edition.PERSIAN / f"{source.stem}.ipynb", as_version=4)


def english(source: Path) -> nbformat.NotebookNode:
    return nbformat.read(edition.english_for(source), as_version=4)


def test_there_is_a_persian_edition():
    assert len(SOURCES) >= 4, [p.name for p in SOURCES]
    assert {p.stem for p in SOURCES} == {p.stem for p in edition.PERSIAN.glob("*.ipynb")}


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_no_drift_from_the_english_lesson(source):
    assert edition.drift(source) == []
    built, stored = edition.build(source), persian(source)
    assert edition.same_cells(built, stored), f"rebuild with: python scripts/make_persian_edition.py {source.stem}"


def test_an_edited_english_markdown_cell_is_drift(tmp_path, monkeypatch):
    """Edit one English markdown cell alone (in a copy): the check must name it."""
    source = SOURCES[0]
    nb = english(source)
    i = next(i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and i > 0)
    nb.cells[i].source += "\nOne more English sentence."
    monkeypatch.setattr(edition, "ENGLISH", tmp_path)
    nbformat.write(nb, tmp_path / f"{source.stem}.ipynb")
    problems = edition.drift(source)
    assert len(problems) == 1 and f"English markdown cell {i} changed" in problems[0]
    with pytest.raises(ValueError, match=f"cell {i} changed"):
        edition.build(source)


def code_cells(nb):
    return [c for c in nb.cells if c.cell_type == "code" and edition.LANGUAGE_TAG not in c.metadata.get("tags", [])]


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_code_cells_are_the_english_program(source):
    fa, en = persian(source), english(source)
    assert [c.get("id") for c in code_cells(fa)] == [c.get("id") for c in code_cells(en)]
    for fa_cell, en_cell in zip(code_cells(fa), code_cells(en)):
        assert code_catalogue.shape(fa_cell.source) == code_catalogue.shape(en_cell.source), (
            f"{source.stem}, cell {en_cell.get('id')}: the Persian code differs from the English beyond its strings")
    language = [c for c in fa.cells if edition.LANGUAGE_TAG in c.metadata.get("tags", [])]
    assert [c.source for c in language] == [edition.LANGUAGE_CELL]


NUMBER = re.compile(r"\d+(?:\.\d+)?")


def numbers(cell) -> Counter:
    """Every number in a code cell's text outputs (stdout, plain text, HTML; not images)."""
    found = Counter()
    for output in cell.get("outputs", []):
        texts = [output.get("text", "")] if output.output_type == "stream" else []
        data = output.get("data", {})
        # HTML entities are not numbers a learner reads: "user&#x27;s" in an English alt text holds no 27.
        # An inline figure's base64 PNG is no text: the Persian figure's pixels differ, its digits mean nothing.
        inline = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "", "".join(data.get("text/html", "")))
        texts += [data.get("text/plain", ""), html.unescape(inline)]
        if output.output_type == "error":
            texts.append(output.get("evalue", ""))
        for text in texts:
            # Unescaped: "agent's" in an English alt attribute is "agent&#x27;s", whose 27 is no number of the lesson.
            found.update(NUMBER.findall(html.unescape(text if isinstance(text, str) else "".join(text))))
    return found


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_every_number_equals_the_english_lessons(source):
    fa, en = code_cells(persian(source)), code_cells(english(source))
    assert sum(sum(numbers(c).values()) for c in en) > 10, "the English lesson's outputs hold too few numbers"
    for fa_cell, en_cell in zip(fa, en, strict=True):
        assert numbers(fa_cell) == numbers(en_cell), f"cell {en_cell.get('id')}: {fa_cell.source[:80]!r}"


def glossary() -> list[tuple[str, str, list[str]]]:
    rows = []
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 3 and cells[0] not in ("English", "---"):
            rows.append((cells[0], cells[1], [w.strip() for w in cells[2].split("،") if w.strip()]))
    return rows


def prose(nb) -> str:
    """Markdown text without headings (a heading like "Summary" is not the term "summary")."""
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))


def test_glossary_has_the_outlines_terms():
    terms = {en: fa for en, fa, _ in glossary()}
    assert terms["context window"] == "پنجرهٔ زمینه"
    assert terms["history budget"] == "بودجهٔ تاریخچه"
    assert terms["history ceiling"] == "سقف تاریخچه"
    assert terms["trim"] == "trim" and terms["summary"] == "summary" and terms["token"] == "token"
    assert len(terms) >= 25


def uses(term: str, text: str) -> bool:
    """Whether English text uses a term as a whole word, the term itself and no inflection of it.

    "states" (the verb) or "stated" is not the term "state", and "statement"
    is not either; matching inflections made translators write "state" where
    the English only said "states".
    """
    return bool(re.search(rf"(?<![\w-]){re.escape(term)}(?![\w-])", text))


def test_uses_matches_the_term_as_a_whole_word():
    assert uses("trim", "we trim the history") and uses("token", "one token, two") and uses("state", "the state.")
    assert uses("context window", "a model's context window is") and uses("start_on", "set start_on='human'")
    assert not uses("state", "the table states it") and not uses("state", "as stated") and not uses("state", "a statement")
    assert not uses("trim", "messages are trimmed") and not uses("node", "nodejs") and not uses("node", "sub-node")


def glossary_problems(en: str, fa: str) -> tuple[list[str], list[str]]:
    """(terms the English uses that the Persian never writes in the glossary's form, forms the glossary rules out)."""
    missing, avoided = [], []
    for term, form, nots in glossary():
        if uses(term, en.lower()) and form not in fa:
            missing.append(f"{term} -> {form}")
        avoided += [f"{term}: {bad}" for bad in nots if bad in fa]
    return missing, avoided


def test_the_glossary_check_fails_when_the_persian_never_writes_a_term():
    english = "We trim the history to the threshold; the node keeps the state."
    persian = "تاریخچه را تا آستانه کوتاه می‌کنیم؛ node وضعیت را نگه می‌دارد."  # neither "trim" nor "state"
    assert glossary_problems(english, persian)[0] == ["trim -> trim", "state -> state"]
    assert glossary_problems(english, persian + " trim و state")[0] == []
    assert glossary_problems("It states the cost.", "هزینه را می‌گوید.") == ([], [])
    assert glossary_problems("The conversation.", "این مکالمه") == (["conversation -> گفتگو"], ["conversation: مکالمه"])


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_prose_uses_the_glossary(source):
    missing, avoided = glossary_problems(prose(english(source)), prose(persian(source)))
    assert not missing, f"English uses these terms but the Persian never writes them so: {missing}"
    assert not avoided, f"forms the glossary rules out: {avoided}"


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_prose_is_persian_right_to_left_with_latin_digits(source):
    for cell in persian(source).cells:
        if cell.cell_type != "markdown":
            continue
        assert cell.source.startswith(edition.RTL_OPEN) and cell.source.rstrip().endswith("</div>")
        assert re.search(r"[\u0600-\u06FF]", cell.source), cell.source[:120]
        assert not re.search(r"[\u06F0-\u06F9\u0660-\u0669]", cell.source), "Persian digits: the edition writes 0-9"


def test_matplotlib_shapes_persian_right_to_left():
    """Figures can carry Persian: matplotlib's libraqm joins the letters and lays them out right to left,
    and the DejaVu Sans it ships has the glyphs (no reshaping package needed).

    Joined: a shaped word is narrower than the same letters kept apart (a
    zero-width non-joiner between each pair stops the joining). Right to
    left: in "ب ت" (beh, space, teh) the letter drawn leftmost is teh, the
    last one typed.
    """
    import matplotlib

    matplotlib.use("Agg")
    import numpy as np
    from matplotlib import ft2font
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.font_manager import findfont

    assert ft2font.__libraqm_version__, "matplotlib is built without libraqm: Persian would not be shaped"
    font = findfont("DejaVu Sans", fallback_to_default=False)
    assert all(ft2font.FT2Font(font).get_char_index(ord(c)) for c in "بودجهٔتاریخچپگژ"), "no Persian glyphs"

    def draw(text: str):
        fig = Figure(figsize=(3, 1), dpi=60)
        canvas = FigureCanvasAgg(fig)
        label = fig.text(0.05, 0.3, text, family="DejaVu Sans", fontsize=30)
        canvas.draw()
        return label.get_window_extent(canvas.get_renderer()).width, np.asarray(canvas.buffer_rgba())[..., 0] < 128

    word = "تاریخچه"
    assert draw(word)[0] < 0.9 * draw("\u200c".join(word))[0]

    _, both = draw("ب ت")
    _, beh = draw("ب")
    _, teh = draw("ت")
    columns = np.flatnonzero(teh.any(axis=0))
    left = slice(columns.min(), columns.max() + 1)
    assert (both[:, left] == teh[:, left]).mean() > (both[:, left] == beh[:, left]).mean()
    assert (both[:, left] == teh[:, left]).all()


def stdout(nb, cell_id: str) -> str:
    """What one code cell printed, without the RTL/LTR isolates (U+2066, U+2067, U+2069) around Persian text."""
    cell = next(c for c in nb.cells if c.get("id") == cell_id)
    text = "".join(o.get("text", "") for o in cell.get("outputs", []) if o.output_type == "stream")
    return re.sub("[\u2066\u2067\u2069]", "", text)


def test_lesson_01_prints_1080_and_80_over_in_persian():
    """Issue 23: the outline's worked numbers "1080, and 80 over" are computed and printed in Persian sentences."""
    from course_utils.core import i18n
    from course_utils.window.budget import overflow_working

    printed = stdout(nbformat.read(edition.PERSIAN / "01_measuring_growth.ipynb", as_version=4), "e998aac6")
    working, conclusion = printed.splitlines()[:2]
    assert working == "700 + 200 + 180 = 1080 > 1000: 80 token بیش از limit"
    assert conclusion.startswith("پس این فراخوانی 80 token بیش از limit است")
    assert "tokens over" not in printed and "So the call" not in printed  # no English left
    # and it is what the package prints in Persian for that call, not text pasted into the notebook
    i18n.set_language("fa")
    try:
        call = overflow_working(1000, history=700, prompt=200, tools=180)
        expected = [call.line, call.conclusion]
    finally:
        i18n.set_language("en")
    assert [re.sub("[\u2066\u2067\u2069]", "", line) for line in expected] == [working, conclusion]
    assert call.total == 1080 and call.over == 80
def printed(nb) -> str:
    """Everything a notebook's code cells print (stdout), without the RTL isolates around Persian messages."""
    text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code"
                   for o in c.get("outputs", []) if o.output_type == "stream")
    return text.replace("\u2067", "").replace("\u2066", "").replace("\u2069", "")


def test_lesson_05_prints_the_worked_ceiling_5892_in_persian():
    """Issue 23: lesson 05's worked example, H_max = 8192 - 500 - 300 - 1200 - 300 = 5892, is computed by the
    package and printed in Persian sentences (from the gettext catalogue), where English prints it in English."""
    source = edition.SOURCES / "05_threshold_selection.md"
    fa, en = printed(persian(source)), printed(english(source))
    assert "6192 - 300 = 5892" in fa
    assert "بنابراین سقف تاریخچه H_max = 5892 token است." in fa.splitlines()
    assert "سقف تاریخچه H_max = 5892 token است؛ پس برای trim_messages: max_tokens = 5892 + 500 + 300 = 6692" in fa
    assert "H_max = 5892" in en.splitlines() and "سقف تاریخچه" not in en
    assert "H_max = 5892; trim_messages max_tokens = 5892 + 500 + 300 = 6692" in en


FENCE = re.compile(r"^[ \t]*```([\w+-]*)[^\n]*\n.*?^[ \t]*```[ \t]*$", re.M | re.S)


def fenced_blocks(markdown: str) -> list[tuple[str, str, str, str]]:
    """(info string, block, what precedes it, what follows it) for every fenced block of a markdown cell."""
    return [(m.group(1), m.group(0), markdown[:m.start()], markdown[m.end():]) for m in FENCE.finditer(markdown)]


def test_the_builder_puts_fenced_code_left_to_right_once():
    text = "پیش از کد:\n```python\nx = 1  # one\n```\nو\n<div dir=\"ltr\">\n\n```bash\nls ...\n```\n\n</div>"
    built = edition.wrap(text)
    assert built.count('<div dir="ltr">') == 2, built  # the hand-made wrapper is not doubled
    for info, block, before, after in fenced_blocks(built):
        assert before.endswith('<div dir="ltr">\n\n') and after.startswith("\n\n</div>"), (info, built)
    mermaid = edition.wrap("```mermaid\nflowchart LR\n    A[\"x\"]\n```")
    assert 'dir="ltr"' not in mermaid  # Mermaid is laid out by Mermaid, not by the paragraph


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_code_blocks_in_persian_prose_are_left_to_right(source):
    """A ```python or ```bash block in a Persian cell sits in <div dir="ltr">, so comments and "..." keep their side."""
    for cell in persian(source).cells:
        if cell.cell_type != "markdown":
            continue
        for info, block, before, after in fenced_blocks(cell.source):
            if info == "mermaid":
                continue
            assert before.endswith('<div dir="ltr">\n\n') and after.startswith("\n\n</div>"), block[:120]


def test_some_persian_lesson_has_a_code_block():
    """The test above is not vacuous: lesson 04 shows its node's code, lesson 05b a shell line."""
    blocks = [info for source in SOURCES for cell in persian(source).cells if cell.cell_type == "markdown"
              for info, *_ in fenced_blocks(cell.source) if info != "mermaid"]
    assert {"python", "bash"} <= set(blocks), blocks


RLI, PDI = "\u2067", "\u2069"


def outside_isolates(line: str) -> str:
    """What a line of a Mermaid diagram shows outside RTL isolates (U+2067 ... U+2069; LTR ones may nest inside)."""
    return re.sub(f"{RLI}(?:[^{RLI}{PDI}\u2066]|\u2066[^{PDI}]*{PDI})*{PDI}", "", line)


def test_mermaid_labels_with_persian_are_isolated():
    diagram = 'A["4096 کل ظرفیت"] -->|بله| B["state کامل<br/>MessagesState"] -- "نه" --> C["model.invoke"]'
    built = edition.isolate_mermaid(diagram)
    assert not re.search(r"[\u0600-\u06FF]", outside_isolates(built)), built
    assert f'"{RLI}4096 کل ظرفیت{PDI}"' in built and f'|"{RLI}بله{PDI}"|' in built
    assert f"{RLI}state کامل{PDI}<br/>MessagesState" in built and '["model.invoke"]' in built
    assert edition.isolate_mermaid(built) == built  # already isolated: left as it is


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_persian_mermaid_labels_read_right_to_left(source):
    """Mermaid lays labels out left to right: every Persian letter of a diagram sits in an RTL isolate."""
    for cell in persian(source).cells:
        for info, block, *_ in fenced_blocks(cell.source) if cell.cell_type == "markdown" else []:
            if info != "mermaid":
                continue
            for line in block.splitlines():
                if not line.lstrip().startswith("%%"):
                    assert not re.search(r"[\u0600-\u06FF]", outside_isolates(line)), f"{source.stem}: {line}"


LINK = re.compile(r"\]\(([^)\s]+)\)")


def local_links(source: Path) -> list[tuple[str, Path]]:
    """(target as written, the file it names) for every relative link of a built Persian lesson."""
    links = []
    for cell in persian(source).cells:
        if cell.cell_type == "markdown":
            for target in LINK.findall(cell.source):
                if "://" not in target and not target.startswith(("#", "mailto:")):
                    links.append((target, (edition.PERSIAN / target.split("#")[0]).resolve()))
    return links


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_persian_lessons_link_to_the_persian_edition(source):
    """A link to a lesson or exercise goes to its Persian counterpart when there is one; every link resolves.

    The one English lesson a Persian lesson may link to is its own English
    version ("the English version of this lesson").
    """
    english_lessons, english_exercises = edition.ENGLISH.resolve(), (ROOT / "exercises").resolve()
    for target, path in local_links(source):
        assert path.exists(), f"{source.stem}: {target} names no file"
        if path.parent == english_lessons and path.suffix == ".ipynb" and path.stem != source.stem:
            assert not (edition.PERSIAN / path.name).exists(), f"{source.stem}: {target} has a Persian lesson"
        if path.parent == english_exercises and path.suffix == ".ipynb":
            assert not (english_exercises / "fa" / path.name).exists(), f"{source.stem}: {target} has a Persian copy"


def test_the_course_map_links_every_persian_lesson():
    """Lesson 00's map names every Persian lesson, and Persian exercises 01-03, by their Persian files."""
    source = edition.SOURCES / "00_start_here.md"
    linked = {path for _, path in local_links(source)}
    lessons = {p.resolve() for p in edition.PERSIAN.glob("0*.ipynb")} - {(edition.PERSIAN / "00_start_here.ipynb").resolve()}
    assert lessons <= linked, sorted(p.name for p in lessons - linked)
    exercises = {p.resolve() for p in (ROOT / "exercises" / "fa").glob("0[1-3]_*_exercise.ipynb")}
    assert len(exercises) == 3 and exercises <= linked
