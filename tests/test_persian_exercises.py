"""The Persian exercises (exercises/fa/): built from the English masters, checked in Persian (issue 23).

- every Persian master is what scripts/make_persian_edition.py builds from the
  English master and the Persian prose (exercises/fa/src/), translated from the
  English text as it is now (a hash per cell, as for the lessons);
- its code is the English code: only a written answer ("why") may be Persian,
  and the Persian student copies' code cells are exactly the English copies';
- the student copies and the Persian solutions data are what
  scripts/make_student_copies.py makes now;
- a Persian learner's wrong answer gets Persian feedback (label, message,
  lang/dir), hints and titles of exercises 01-03 are Persian, and
  ``qN.solution()`` shows the Persian master's lines;
- the stored outputs of the Persian masters show Persian feedback, and every
  number in them is a number the English master's outputs show.

The masters themselves run under strict nbval (pyproject's testpaths), the
grader grades them in tests/test_grade_persian.py.
"""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

import nbformat
import pytest

import make_persian_edition as edition
import make_student_copies as make_copies
from course_utils.core import i18n
from course_utils import checks
from course_utils.checks import ex02, ex03, machinery, solutions
from test_persian_edition import glossary, numbers, prose, uses

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted(edition.EXERCISE_SOURCES.glob("*.md"))
#: Every exercise with a Persian edition: its checks must speak Persian (at least 01-03).
PERSIAN_EXERCISES = {p.name[:2]: getattr(checks, f"ex{p.name[:2]}") for p in SOURCES}
PO = ROOT / "course_utils/locale/fa/LC_MESSAGES/course_utils.po"
ARABIC_SCRIPT = re.compile("[\u0600-\u06ff]")

pytestmark = pytest.mark.usefixtures("lenient")  # tests/conftest.py: wrong answers are returned, not raised


@pytest.fixture
def persian():
    i18n.set_language("fa")
    yield
    i18n.set_language("en")


def master(source: Path) -> nbformat.NotebookNode:
    return nbformat.read(edition.persian_for(source), as_version=4)


def english(source: Path) -> nbformat.NotebookNode:
    return nbformat.read(edition.english_for(source), as_version=4)


def persian_copy(source: Path) -> Path:
    return make_copies.COPIES / "fa" / f"{source.stem}.ipynb"


def code_cells(nb):
    return [c for c in nb.cells if c.cell_type == "code" and edition.LANGUAGE_TAG not in c.metadata.get("tags", [])]


# --- built from the English masters, without drift ------------------------------------------------


def test_exercises_01_to_03_have_a_persian_edition():
    assert set(PERSIAN_EXERCISES) >= {"01", "02", "03"}
    stems = {p.stem for p in SOURCES}
    assert stems == {p.stem for p in make_copies.persian_masters()}
    assert stems == {p.stem for p in (make_copies.COPIES / "fa").glob("*_exercise.ipynb")}
    assert all(edition.english_for(p).exists() for p in SOURCES)


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_no_drift_from_the_english_master(source):
    assert edition.drift(source) == []
    assert edition.same_cells(edition.build(source), master(source)), (
        f"rebuild with: python scripts/make_persian_edition.py {source.stem}")


def test_an_edited_english_cell_is_drift(tmp_path, monkeypatch):
    """Edit one English markdown cell, then one code cell holding a translated answer: each is named."""
    source = next(p for p in SOURCES if edition.read_answers(p))
    nb = english(source)
    monkeypatch.setattr(edition, "EXERCISE_ENGLISH", tmp_path)
    i = next(i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and i > 0)
    original = nb.cells[i].source
    nb.cells[i].source += "\nOne more English sentence."
    nbformat.write(nb, tmp_path / f"{source.stem}.ipynb")
    problems = edition.drift(source)
    assert len(problems) == 1 and f"English markdown cell {i} changed" in problems[0]

    nb.cells[i].source = original  # the markdown as it was; now change the cell whose answer is translated
    j = min(edition.read_answers(source))
    nb.cells[j].source = nb.cells[j].source.replace("own_words = ", "own_words = \"A new start. \" ", 1)
    nbformat.write(nb, tmp_path / f"{source.stem}.ipynb")
    problems = edition.drift(source)
    assert len(problems) == 1 and f"English code cell {j} changed" in problems[0]
    with pytest.raises(ValueError, match=f"code cell {j} changed"):
        edition.build(source)


@pytest.mark.parametrize("bad, message", [
    ('```python\nwhy = "x"\nprint(1)\n```', "string literals"),
    ('```python\nanswer = "x"\n```', "string literals"),
    ('why = "no fence"', "fenced"),
])
def test_a_persian_answer_may_only_replace_the_written_answer(bad, message):
    english_cell = 'choice = "c"  # SOLUTION\n# BEGIN SOLUTION\nwhy = ("because it is so")\n# END SOLUTION'
    with pytest.raises(ValueError, match=message):
        edition.with_answer(english_cell, edition.Block(3, "0" * 12, bad))
    with pytest.raises(ValueError, match="only a written answer"):
        edition.with_answer("# BEGIN SOLUTION\nx = 1\n# END SOLUTION", edition.Block(3, "0" * 12, '```python\nx = "1"\n```'))


def test_a_persian_answer_replaces_only_its_own_block_of_several():
    """Exercise 05 q4: one cell, a `plan` block then a `why` block; only `why` becomes Persian."""
    english_cell = ('# BEGIN SOLUTION\nplan = {"reserve": 800}\n# END SOLUTION\n'
                    '# BEGIN SOLUTION\nwhy = ("R covers the longest answer")\n# END SOLUTION')
    persian = edition.with_answer(english_cell, edition.Block(16, "0" * 12, '```python\nwhy = "R پاسخ را می‌پوشاند"\n```'))
    assert persian == english_cell.replace('why = ("R covers the longest answer")', 'why = "R پاسخ را می‌پوشاند"')
    with pytest.raises(ValueError, match="string literals"):  # the plan is code: it cannot be replaced
        edition.with_answer(english_cell, edition.Block(16, "0" * 12, '```python\nplan = "x"\n```'))
    two_answers = english_cell.replace('plan = {"reserve": 800}', 'note = "a second written answer"')
    with pytest.raises(ValueError, match=r"some of \['note', 'why'\]"):  # a name no written answer has
        edition.with_answer(two_answers, edition.Block(16, "0" * 12, '```python\nother = "x"\n```'))


def test_a_code_span_over_a_line_break_is_isolated_whole():
    """A long call wrapped in the prose stays one left-to-right code span (split, its <span> showed as text)."""
    assert edition.isolate_arithmetic("با `f(a,\nb=1)` trim") == 'با <span dir="ltr">`f(a,\nb=1)`</span> trim'
    # a blank line ends a paragraph, so no code span goes over it
    assert "<span" not in edition.isolate_arithmetic("یک ` تنها\n\nو ` دیگر")


def solution_blocks(source: str) -> str:
    """A code cell without what lies between its solution markers, nor the value of a ``# SOLUTION`` line."""
    source = re.sub(r"(# BEGIN SOLUTION\n).*?(\n\s*# END SOLUTION)", r"\1\2", source, flags=re.S)
    return re.sub(r"^(\w+ = ).*(\s# SOLUTION)$", r"\1\2", source, flags=re.M)


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_code_is_the_english_code_except_written_answers(source):
    fa, en = code_cells(master(source)), code_cells(english(source))
    assert len(fa) == len(en)
    answers = 0
    for fa_cell, en_cell in zip(fa, en):
        if fa_cell.source == en_cell.source:
            continue
        answers += 1
        assert solution_blocks(fa_cell.source) == solution_blocks(en_cell.source), fa_cell.source
        persian_text = [n.value for n in ast.walk(ast.parse(fa_cell.source))
                        if isinstance(n, ast.Constant) and isinstance(n.value, str) and ARABIC_SCRIPT.search(n.value)]
        assert persian_text, "a Persian answer should be Persian"
    assert answers == len(edition.read_answers(source))
    language = [c for c in master(source).cells if edition.LANGUAGE_TAG in c.metadata.get("tags", [])]
    assert [c.source for c in language] == [edition.LANGUAGE_CELL]


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_student_copy_is_up_to_date_and_its_code_is_the_english_copys(source):
    path = persian_copy(source)
    assert path.read_text(encoding="utf-8") == make_copies.expected_copy(edition.persian_for(source)), (
        f"{path.relative_to(ROOT)} is stale: run python scripts/make_student_copies.py")
    fa = nbformat.read(path, as_version=4)
    en = nbformat.read(make_copies.COPIES / path.name, as_version=4)
    assert [c.source for c in code_cells(fa)] == [c.source for c in code_cells(en)]
    text = path.read_text(encoding="utf-8")
    assert "SOLUTION" not in text and "# PROMPT" not in text and ARABIC_SCRIPT.search(text)
    assert all(c.outputs == [] for c in fa.cells if c.cell_type == "code")
    assert fa.metadata["course_edition"] == {"lang": "fa", "dir": "rtl", "english": f"../{path.name}"}


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_links_resolve_from_master_and_copy(source):
    for path in (edition.persian_for(source), persian_copy(source)):
        text = "\n".join(c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "markdown")
        links = [link for link in re.findall(r"\]\(([^)\s#]+)", text) if not re.match(r"[a-z]+:", link)]
        assert links and all((path.parent / link).exists() for link in links), (path, links)


def test_persian_solutions_data_is_up_to_date():
    for path in make_copies.persian_masters():
        data = solutions.data_path(solutions.exercise_of(path), "fa")
        assert data.read_text(encoding="utf-8") == solutions.render(path, ROOT), (
            f"{data} is stale: run scripts/make_student_copies.py")


# --- the prose ------------------------------------------------------------------------------------


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_prose_is_persian_right_to_left_with_latin_digits_and_the_glossarys_terms(source):
    for cell in master(source).cells:
        if cell.cell_type == "markdown":
            assert cell.source.startswith(edition.RTL_OPEN) and cell.source.rstrip().endswith("</div>")
            assert ARABIC_SCRIPT.search(cell.source), cell.source[:120]
            assert not re.search(r"[\u06F0-\u06F9\u0660-\u0669]", cell.source), "Persian digits: the edition writes 0-9"
    en, fa = prose(english(source)).lower(), prose(master(source))
    missing = [f"{term} -> {form}" for term, form, _ in glossary() if uses(term, en) and form not in fa]
    avoided = [f"{term}: {bad}" for term, _, nots in glossary() for bad in nots if bad in fa]
    assert not missing and not avoided, (missing, avoided)


# --- feedback in Persian --------------------------------------------------------------------------


def test_a_persian_learners_wrong_answer_gets_persian_feedback(persian):
    result = ex02.q1.check(lambda limit, system, user, reserve: limit - user - reserve)  # forgot the system prompt
    assert result.status == "wrong" and result.lang == "fa"
    plain = result.text.replace(i18n.RLI, "").replace(i18n.PDI, "").replace("\u2066", "")
    assert plain.startswith("[هنوز درست نیست] q1 (محاسبهٔ B): room(8192, 1200, 450, 1024): فراموش کردید prompt سیستم")
    html = result._repr_html_()
    assert 'lang="fa" dir="rtl"' in html and "هنوز درست نیست" in html
    # generic feedback from the machinery and the kinds, in Persian too
    assert ARABIC_SCRIPT.search(ex02.q1.check(...).message)
    assert ARABIC_SCRIPT.search(ex02.q1.check("many").message)
    assert ARABIC_SCRIPT.search(ex02.q4.check("c", "no").message)
    assert ARABIC_SCRIPT.search(ex03.q1.check(["h3", "a3"]).message)
    broken = ex02.q2.check(lambda limit, system, user, reserve: 1 / 0)
    assert broken.status == "error" and "ZeroDivisionError" in broken.message and ARABIC_SCRIPT.search(broken.message)


def test_english_feedback_is_unchanged_by_the_persian_catalogue():
    result = ex02.q1.check(lambda limit, system, user, reserve: limit - user - reserve)
    assert result.lang == "en"
    assert result.text == ("[not quite] q1 (compute B): room(8192, 1200, 450, 1024): you forgot to take off the "
                           "system prompt S.")


@pytest.mark.parametrize("number", sorted(PERSIAN_EXERCISES))
def test_titles_and_hints_of_the_persian_exercises_are_persian(number, persian):
    for q in PERSIAN_EXERCISES[number].questions:
        code_name = re.fullmatch(r"\w+\([\w, ]*\)", q.title)  # "budget(limit, system, user, reserve)" stays
        assert code_name or ARABIC_SCRIPT.search(q.label), q.label
        for level in range(1, len(q.hints) + 1):
            note = q.hint(level)
            assert ARABIC_SCRIPT.search(note.message), (q.label, level, note.message)
            assert 'lang="fa" dir="rtl"' in note._repr_html_()


@pytest.mark.parametrize("number", sorted(PERSIAN_EXERCISES))
def test_solution_shows_the_persian_masters_lines(number, persian):
    exercise = PERSIAN_EXERCISES[number]
    persian_lines = solutions.load(number, "fa")
    assert persian_lines and set(persian_lines) == {q.number for q in exercise.questions}
    for q in exercise.questions:
        assert q.solution().code == persian_lines[q.number]
    # where the master has a Persian written answer, the Persian solution differs from the English one, in Persian
    differ = [n for n in persian_lines if persian_lines[n] != solutions.load(number)[n]]
    source = next(p for p in SOURCES if p.name.startswith(number))
    assert len(differ) == len(edition.read_answers(source))
    assert all(ARABIC_SCRIPT.search(persian_lines[n]) for n in differ)
    i18n.set_language("en")
    assert all(q.solution().code == solutions.load(number)[q.number] for q in exercise.questions)


def test_every_wrapped_check_string_has_a_persian_translation():
    from babel.messages.pofile import read_po

    with PO.open("rb") as f:
        translated = {(m.context, m.id): m.string for m in read_po(f) if m.id}
    found = set()
    for name in ("machinery", "kinds", "questions", "subagent_decision", "state_costs",
                 *(f"ex{n}" for n in PERSIAN_EXERCISES)):
        tree = ast.parse((ROOT / "course_utils" / "checks" / f"{name}.py").read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                args = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
                if node.func.id == "_" and len(args) == 1:
                    found.add((None, args[0]))
                elif node.func.id == "pgettext" and len(args) == 2:
                    found.add((args[0], args[1]))
    found |= {("check feedback", label) for label in machinery.LABELS.values()}
    assert len(found) > 150
    missing = sorted(s for s in found if not translated.get(s))
    assert not missing, f"no Persian in {PO.name} for {missing}"


# --- what the Persian masters show ----------------------------------------------------------------


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_stored_outputs_show_persian_feedback_and_the_english_numbers(source):
    shown = []
    for cell in code_cells(master(source)):
        if re.match(r"q\d+\.check\(", cell.source):
            [result] = [o.data["text/plain"] for o in cell.outputs if o.output_type == "execute_result"]
            shown.append(result)
    assert shown and all(text.startswith("[\u2067درست\u2069]") for text in shown), shown
    fa, en = code_cells(master(source)), code_cells(english(source))
    for fa_cell, en_cell in zip(fa, en, strict=True):
        if re.match(r"q\d+\.check\(", fa_cell.source):
            # a check's message may say its numbers in another order, never other numbers (its text; the
            # HTML box's style holds colours)
            assert set(plain_numbers(fa_cell)) == set(plain_numbers(en_cell)), fa_cell.source
        else:
            assert numbers(fa_cell) == numbers(en_cell), fa_cell.source


def plain_numbers(cell) -> list[str]:
    text = "".join(o.get("data", {}).get("text/plain", "") for o in cell.get("outputs", []))
    return re.findall(r"\d+(?:\.\d+)?", text)


def _execute(path: Path) -> nbformat.NotebookNode:
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    return nb


def test_persian_student_copy_runs_and_says_not_attempted_in_persian(monkeypatch):
    """One copy in a fresh kernel (the English copies all run in tests/test_exercises.py): exercise 02, the quickest."""
    monkeypatch.delenv("COURSE_CHECKS_STRICT", raising=False)
    nb = _execute(make_copies.COPIES / "fa" / "02_token_budgets_exercise.ipynb")
    shown = []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            assert output.output_type != "error", f"{output.ename}: {output.evalue}"
        if cell.cell_type == "code" and re.match(r"q\d+\.check\(", cell.source):
            shown += [o.data["text/plain"] for o in cell.outputs if o.output_type == "execute_result"]
    assert len(shown) == len(ex02.questions)
    assert all(text.startswith("[\u2067هنوز پاسخ نداده‌اید\u2069]") for text in shown), shown
    assert os.environ.get("COURSE_CHECKS_STRICT") is None
