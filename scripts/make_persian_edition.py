"""Build the Persian edition: lessons and exercise masters, from the English notebook + Persian prose.

A Persian lesson (``notebooks/fa/NN_name.ipynb``) or exercise master
(``exercises/fa/solutions/NN_name_exercise.ipynb``) is never edited by hand.
It is generated from two sources (for an exercise, read "the English master
``exercises/solutions/NN_name_exercise.ipynb``" and "``exercises/fa/src/``"):

- the English notebook ``notebooks/NN_name.ipynb``: every code cell is copied
  with the same cell id and the same program; only the strings it shows are
  Persian, from the lesson's gettext catalogue ``notebooks/fa/po/NN_name.po``
  (see ``scripts/code_catalogue.py``; ``tests/test_persian_code.py`` proves the
  two cells equal as syntax trees apart from their strings), so the editions
  cannot drift apart in what they compute;
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
    from course_utils.pictures.fonts import show_persian_output_font
    i18n.set_language("fa")
    show_persian_output_font()

so ``course_utils`` prints its own sentences (widgets, figures, feedback)
from the package's Persian gettext catalogue, and the notebook's printed text
is drawn in a font with Persian letters (a hidden ``<style>``: see
``course_utils/pictures/fonts.py``). It is the only code cell not copied from
English, and it shows nothing else.

**The strings of the lesson's own code.** ``--extract NN`` brings
``notebooks/fa/po/NN_name.po`` up to the English code (new strings come in
empty, changed ones fuzzy with their old translation, as Babel's
``pybabel update`` does); a translator fills them in with any PO editor.
The build refuses a lesson while a string its code shows (printed, or a
``title=``/``label=``/``headers=``... argument) has no usable translation.
Each Persian markdown cell is wrapped in ``<div dir="rtl" lang="fa">``; code
stays left to right: the builder puts every fenced code block of the prose
(```python, ```bash, ...) in ``<div dir="ltr">``, and isolates every Mermaid
label that holds Persian letters between U+2067 and U+2069 (Mermaid lays
labels out left to right; code inside such a label goes between U+2066 and
U+2069, and a sideways flowchart is drawn right to left), so translators
write plain fences and labels. Each paragraph's text is put in a
right-aligned block (:func:`align_paragraphs`): JupyterLab's stylesheet
sets ``text-align: left`` on ``<p>``.

    python scripts/make_persian_edition.py                 # rebuild every translated lesson
    python scripts/make_persian_edition.py 02 --execute    # rebuild one and run it (stores outputs)
    python scripts/make_persian_edition.py 02 --stamp      # after updating a translation
    python scripts/make_persian_edition.py --check         # exit 1 on drift (what the test does)
    python scripts/make_persian_edition.py 02 --extract    # bring notebooks/fa/po/02_*.po up to the English code

Outputs of code cells that did not change are kept, so a change of Persian
prose needs no re-run (``--execute`` runs the lesson when code changed).

**Exercises.** ``exercises/fa/src/NN_name_exercise.md`` holds the Persian
prose of an exercise master, with the same markers and the same drift check.
``python scripts/make_persian_edition.py 02_token_budgets_exercise --execute``
(or ``ex02``) builds and runs ``exercises/fa/solutions/02_..._exercise.ipynb``;
then ``python scripts/make_student_copies.py`` writes the Persian student copy
``exercises/fa/02_..._exercise.ipynb`` and the Persian solutions data, as for
English. Links in the prose are written from ``exercises/fa/solutions/``
(``../../../notebooks/fa/02_token_budgets.ipynb``; the student copy drops one
``../``).

The one place a Persian master's code may differ from the English master's is
a written answer. A block::

    <!-- fa-answer 12 en-sha256=1a2b3c4d5e6f -->
    ```python
    why = ("بخش‌های ثابت S + U + R از L بیشترند ...")
    ```

replaces the written answer ``why`` of English code cell 12, and nothing
else: the block must assign string literals (no other code) to names the
English cell assigns a sentence to in a solution part (between
``# BEGIN SOLUTION`` and ``# END SOLUTION``, beside code that stays English,
or on a line ending in ``# SOLUTION``, which takes a one-line answer); choice
letters and code stay English. The hash is that of the English cell, so a
changed English cell is drift as for prose.
The solution blocks are removed from the student copies, so a Persian student
copy's code cells are exactly the English student copy's.

*Why Persian answers.* The "why" answers are prose a learner reads when they
call ``qN.solution()``: a Persian learner should see a Persian reason, the
kind of reason they are asked to write (the judge of
``course_utils.checks.reasons`` reads Persian). It also means strict nbval on
the Persian master runs the Persian side of that judge on a right answer, so a
regression there fails the tests. ``scripts/make_student_copies.py`` writes
the Persian masters' solution lines to
``course_utils/checks/master_solutions/fa/exNN.json``, which ``qN.solution()``
shows when the course speaks Persian. Choices, numbers and functions stay
exactly the English code.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat

import code_catalogue

ROOT = Path(__file__).resolve().parent.parent
ENGLISH = ROOT / "notebooks"
PERSIAN = ROOT / "notebooks" / "fa"
SOURCES = PERSIAN / "src"
#: The Persian of the strings the lessons' code shows: one gettext catalogue per lesson.
CATALOGUES = PERSIAN / "po"
#: Exercises: the English masters, the Persian prose, and where the Persian masters go.
EXERCISE_ENGLISH = ROOT / "exercises" / "solutions"
EXERCISE_SOURCES = ROOT / "exercises" / "fa" / "src"
EXERCISE_PERSIAN = ROOT / "exercises" / "fa" / "solutions"
LANGUAGE_TAG = "edition-language"
LANGUAGE_CELL = (
    "# The Persian edition: course_utils prints in Persian, and printed Persian gets a font\n"
    "# with Persian letters (see README.fa.md).\n"
    "from course_utils.core import i18n\n"
    "from course_utils.pictures.fonts import show_persian_output_font\n"
    'i18n.set_language("fa")\n'
    "show_persian_output_font()"
)
RTL_OPEN = '<div dir="rtl" lang="fa">'
MARKER = re.compile(r"^<!-- fa-cell (\d+) en-sha256=([0-9a-f]{12}) -->$", re.M)
#: Any block marker: a Persian markdown cell, or a Persian written answer (exercises only).
ANY_MARKER = re.compile(r"^<!-- fa-(cell|answer) (\d+) en-sha256=([0-9a-f]{12}) -->$", re.M)
ANSWER_BEGIN = re.compile(r"^\s*# BEGIN SOLUTION\s*$")
ANSWER_END = re.compile(r"^\s*# END SOLUTION\s*$")
SOLUTION_LINE = re.compile(r"\s# SOLUTION\s*$")
FENCE = re.compile(r"\A```(?:python)?\n(.*?)\n```\Z", re.S)


def english_hash(text: str) -> str:
    """The first 12 hex digits of the SHA-256 of an English cell's source."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


@dataclass(frozen=True)
class Block:
    """One Persian markdown cell: the English cell it translates, that cell's hash then, the text."""

    index: int
    stamp: str
    text: str


def _read_all(path: Path) -> dict[str, dict[int, Block]]:
    """{"cell": ..., "answer": ...}: the blocks of one source file, by kind and English cell position."""
    source = path.read_text(encoding="utf-8")
    marks = list(ANY_MARKER.finditer(source))
    if not any(m.group(1) == "cell" for m in marks):
        raise ValueError(f"{path} holds no '<!-- fa-cell N en-sha256=... -->' marker")
    blocks: dict[str, dict[int, Block]] = {"cell": {}, "answer": {}}
    for mark, following in zip(marks, [*marks[1:], None]):
        end = following.start() if following else len(source)
        kind, index = mark.group(1), int(mark.group(2))
        if index in blocks[kind]:
            raise ValueError(f"{path}: two Persian {kind} blocks for English cell {index}")
        blocks[kind][index] = Block(index, mark.group(3), source[mark.end():end].strip("\n"))
    return blocks


def read_blocks(path: Path) -> dict[int, Block]:
    """The Persian markdown blocks of one source file, by English cell position."""
    return _read_all(path)["cell"]


def read_answers(path: Path) -> dict[int, Block]:
    """The Persian written answers of one exercise's source file, by English code cell position."""
    return _read_all(path)["answer"]


def is_exercise(source: Path) -> bool:
    return source.stem.endswith("_exercise")


def english_for(source: Path) -> Path:
    return (EXERCISE_ENGLISH if is_exercise(source) else ENGLISH) / f"{source.stem}.ipynb"


def persian_for(source: Path) -> Path:
    """Where the Persian notebook built from ``source`` goes."""
    return (EXERCISE_PERSIAN if is_exercise(source) else PERSIAN) / f"{source.stem}.ipynb"


def _assigned(code: str) -> list[str] | None:
    """The names ``code`` assigns string literals to, when it does nothing else; None otherwise."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    names = []
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
            return None
        names.append(node.targets[0].id)
    return names or None


def answer_code(block: Block) -> str:
    """The Python of a ``fa-answer`` block (inside its ```python fence), or ValueError."""
    match = FENCE.match(block.text.strip())
    if not match:
        raise ValueError(f"Persian answer for English cell {block.index} must be one ```python fenced block")
    return match.group(1)


def _written_answers(english_source: str) -> dict[str, tuple[int, int, bool]]:
    """The written answers of an English code cell: {name: (first line, last line, is a ``# SOLUTION`` line)}.

    A written answer is a top-level statement that assigns a string literal
    holding a space (a sentence: a choice letter is not one) to one name, and
    lies in a solution part of the cell: between ``# BEGIN SOLUTION`` and
    ``# END SOLUTION``, or on one line ending in ``# SOLUTION``. Lines are
    0-based and inclusive.
    """
    lines = english_source.split("\n")
    inside, block = set(), None
    for i, line in enumerate(lines):
        if ANSWER_BEGIN.match(line):
            block = i
        elif ANSWER_END.match(line):
            block = None
        elif block is not None:
            inside.add(i)
    try:
        tree = ast.parse(english_source)
    except SyntaxError:
        return {}
    found = {}
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
                and " " in node.value.value):
            continue
        first, last = node.lineno - 1, node.end_lineno - 1
        if all(i in inside for i in range(first, last + 1)):
            found[node.targets[0].id] = (first, last, False)
        elif first == last and SOLUTION_LINE.search(lines[first]):
            found[node.targets[0].id] = (first, last, True)
    return found


def with_answer(english_source: str, block: Block) -> str:
    """An English code cell with its written answers replaced by the Persian ones.

    The Persian block assigns string literals to some of the names the
    English cell's solution parts assign a sentence to (see
    :func:`_written_answers`), and does nothing else; each such English
    statement is replaced, everything else (code, choice letters, markers)
    stays. A ``# SOLUTION`` line takes a one-line Persian assignment.

    >>> src = 'choice = "c"  # SOLUTION\\n# BEGIN SOLUTION\\nwhy = "because it is so"\\n# END SOLUTION'
    >>> print(with_answer(src, Block(3, "x", '```python\\nwhy = "چون چنین است"\\n```')))
    choice = "c"  # SOLUTION
    # BEGIN SOLUTION
    why = "چون چنین است"
    # END SOLUTION
    >>> print(with_answer('choice = "c"  # SOLUTION\\nwhy = "because it is so"  # SOLUTION',
    ...                   Block(3, "x", '```python\\nwhy = "چون چنین است"\\n```')))
    choice = "c"  # SOLUTION
    why = "چون چنین است"  # SOLUTION
    """
    answers = _written_answers(english_source)
    if not answers:
        raise ValueError(f"English cell {block.index} has no written answer (a sentence assigned in a solution "
                         f"block or on a '# SOLUTION' line): only a written answer can be Persian")
    persian = answer_code(block)
    given = _assigned(persian)
    if given is None or len(set(given)) != len(given) or not set(given) <= set(answers):
        raise ValueError(f"Persian answer for English cell {block.index} must assign string literals to "
                         f"some of {sorted(answers)}, once each, and do nothing else, got {given}")
    statements = {node.targets[0].id: ast.get_source_segment(persian, node) for node in ast.parse(persian).body}
    lines = english_source.split("\n")
    for name in sorted(given, key=lambda n: answers[n][0], reverse=True):
        first, last, one_line = answers[name]
        text = statements[name]
        if one_line:
            if "\n" in text:
                raise ValueError(f"English cell {block.index} answers `{name}` on one '# SOLUTION' line: its "
                                 f"Persian answer must be one line too")
            node = next(n for n in ast.parse(english_source).body if getattr(n, "lineno", 0) == first + 1)
            text += lines[first][node.end_col_offset:]  # the "  # SOLUTION" that follows
        lines[first:last + 1] = text.split("\n")
    return "\n".join(lines)


def catalogue_for(source: Path, create: bool = False) -> Path | None:
    """The catalogue of a lesson's code strings, or None: an exercise's code stays English.

    A lesson still written with ``_()`` has none until ``--extract`` creates it
    (``tests/test_persian_code.py`` requires one for every lesson).
    """
    path = CATALOGUES / f"{source.stem}.po"
    return path if not is_exercise(source) and (create or path.exists()) else None


def code_cells(english: nbformat.NotebookNode) -> list[tuple[str, str]]:
    return [(cell.get("id", "?"), cell.source) for cell in english.cells if cell.cell_type == "code"]


def code_translations(source: Path) -> dict[str, str]:
    """The usable Persian of the lesson's code strings (none for an exercise)."""
    path = catalogue_for(source)
    return code_catalogue.translations(code_catalogue.read_catalogue(path)) if path else {}


def extract(source: Path) -> Path | None:
    """Bring the lesson's catalogue up to its English code (``--extract``); return where it is."""
    path = catalogue_for(source, create=True)
    if path is None:
        return None
    english = nbformat.read(english_for(source), as_version=4)
    catalogue = code_catalogue.update_catalogue(code_catalogue.read_catalogue(path), code_cells(english))
    code_catalogue.write_catalogue(catalogue, path)
    return path


def code_drift(source: Path, english: nbformat.NotebookNode) -> list[str]:
    """Strings the lesson's code shows with no usable Persian, and translations that cannot be used."""
    path = catalogue_for(source)
    if path is None:
        return []
    number = source.stem[:3].rstrip("_")
    catalogue = code_catalogue.read_catalogue(path)
    problems = [
        f"{path.relative_to(ROOT)}: no Persian (or a fuzzy one) for the printed string {msgid!r}: run "
        f"--extract {number}, translate it, and clear 'fuzzy'"
        for msgid in dict.fromkeys(code_catalogue.missing(catalogue, code_cells(english)))
    ]
    translations = code_catalogue.translations(catalogue)
    for cell_id, code in code_cells(english):
        try:
            code_catalogue.translate_code(code, translations)
        except code_catalogue.CatalogueError as exc:
            problems.append(f"{path.relative_to(ROOT)} (cell {cell_id}): {exc}")
    return problems


def drift(source: Path) -> list[str]:
    """What keeps the Persian lesson of ``source`` from matching its English notebook (empty: nothing)."""
    english = nbformat.read(english_for(source), as_version=4)
    blocks = read_blocks(source)
    problems = code_drift(source, english)
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
    for i, block in sorted(read_answers(source).items()):
        if i >= len(english.cells) or english.cells[i].cell_type != "code":
            problems.append(f"Persian answer {i} in {source.name} matches no English code cell")
            continue
        now = english_hash(english.cells[i].source)
        if block.stamp != now:
            problems.append(
                f"English code cell {i} changed since its answer was translated (hash {block.stamp}, now {now}): "
                f"update its Persian answer in {source.name}, then run --stamp {source.stem[:3].rstrip('_')}"
            )
            continue
        try:
            with_answer(english.cells[i].source, block)
        except ValueError as exc:
            problems.append(f"{source.name}: {exc}")
    return problems


#: Arithmetic written with digits ("4096 − 350 = 3746", "70 <= 150", "109 + 37 = 146"), bold allowed.
ARITHMETIC = re.compile(
    r"(?<![\w.*])(?:\*\*)?\d+(?:\.\d+)?(?:\*\*)?"
    r"(?:[ \t]*(?:<=|>=|[−+×*/=<>≤≥-])[ \t]*(?:\*\*)?\d+(?:\.\d+)?(?:\*\*)?)+(?!\w)(?!\.\d)"
)
#: What the isolation must not touch: fenced blocks (code, Mermaid), inline code (as in CommonMark, it may
#: go on over a line break, not over a blank line), HTML tags, links' targets.
PROTECTED = re.compile(r"```.*?```|`(?:[^`\n]|\n(?![ \t]*\n))*`|</?[A-Za-z][^>\n]*>|\]\([^)\n]*\)", re.S)


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
    >>> isolate_arithmetic("با `f(a,\\nb=1)` trim")  # a code span over a line break is one span
    'با <span dir="ltr">`f(a,\\nb=1)`</span> trim'
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
    # A call written in prose (log2(n)): its closing parenthesis would join the Persian that follows.
    plain = CALL.sub(lambda m: f'<span dir="ltr">{m.group(0)}</span>', plain)
    return _anchor_parentheses(plain)


#: A call in prose, outside code spans: a Latin name, then parentheses with no space or Persian inside.
CALL = re.compile(r"(?<![\w>])[A-Za-z_][\w.]*\([^()\s\u0600-\u06FF]*\)")


def _anchor_parentheses(plain: str) -> str:
    """A right-to-left mark before each "(" that opens a Persian aside, and after its ")".

    A parenthesis right after a Latin letter or digit is part of a call or a
    formula (``log2(n)``, ``f(x)``): it stays with its Latin run, unmarked, and
    so does its closing one.

    >>> _anchor_parentheses("حدود log2(n) بار (نه بیشتر)") == "حدود log2(n) بار \u200f(نه بیشتر)\u200f"
    True
    """
    out, marked = [], []
    for i, char in enumerate(plain):
        if char == "(":
            aside = i == 0 or not re.match(r"[A-Za-z0-9_\]]", plain[i - 1])
            marked.append(aside)
            out.append(RLM + char if aside else char)
        elif char == ")":
            out.append(char + RLM if (marked.pop() if marked else True) else char)
        else:
            out.append(char)
    return "".join(out)


LTR_OPEN = '<div dir="ltr">'
#: An opening fence at the start of a line (indent kept), with its info string ("python", "bash", "mermaid").
FENCE_OPEN = re.compile(r"^([ \t]*)(`{3,})[ \t]*([\w+-]*).*$")
PERSIAN_LETTER = re.compile(r"[\u0600-\u06FF\uFB50-\uFDFF\uFE70-\uFEFF]")
#: Right-to-left isolate (U+2067) ... pop directional isolate (U+2069); left-to-right isolate (U+2066).
RLI, PDI, LRI = "\u2067", "\u2069", "\u2066"
#: Mermaid labels: a quoted string ("..." in [..], (..), {..}, -- ".." -->, |".."|), or an unquoted |edge label|.
MERMAID_QUOTED = re.compile(r'"([^"\n]*)"')
MERMAID_PIPE = re.compile(r"\|([^|\"\n]+)\|")
MERMAID_BREAK = re.compile(r"(<br\s*/?>)")


def isolate_label(label: str) -> str:
    """A Mermaid label with each line that holds Persian letters in an RTL isolate (U+2067 ... U+2069).

    Mermaid lays a label out left to right, so "4096 کل ظرفیت" would show its
    number on the wrong side; inside an isolate the line reads right to left.
    Each ``<br>``-separated line is isolated alone; Latin-only lines and lines
    already isolated are left as they are.

    >>> isolate_label("4096 کل ظرفیت<br/>model.invoke") == "\u20674096 کل ظرفیت\u2069<br/>model.invoke"
    True
    """
    parts = MERMAID_BREAK.split(label)
    return "".join(
        f"{RLI}{_isolate_code(part)}{PDI}" if i % 2 == 0 and PERSIAN_LETTER.search(part) and RLI not in part
        else part
        for i, part in enumerate(parts)
    )


#: Code inside a Persian label (``strategy='first'``, ``max_tokens=128``, ``log2(n)``): a name, then = or (.
MERMAID_CODE = re.compile(r"[A-Za-z_][\w.]*(?:=|\()[^\s\u0600-\u06FF\u2066-\u2069]*?(?=[,;:.]?(?:\s|$))")


def _isolate_code(line: str) -> str:
    """Each piece of code in a Persian label line in an LTR isolate, so its quotes stay with it.

    >>> _isolate_code("با strategy='first' خطا") == "با \u2066strategy='first'\u2069 خطا"
    True
    """
    return MERMAID_CODE.sub(lambda m: f"{LRI}{m.group(0)}{PDI}", line)


def isolate_mermaid(diagram: str) -> str:
    """Every label of a Mermaid diagram that holds Persian letters, isolated right to left (comments kept).

    >>> print(isolate_mermaid('A["گفتگو"] -->|بله| B["model"]').replace(RLI, "<").replace(PDI, ">"))
    A["<گفتگو>"] -->|"<بله>"| B["model"]
    """
    lines = []
    for line in diagram.split("\n"):
        if not line.lstrip().startswith("%%"):
            line = MERMAID_QUOTED.sub(lambda m: f'"{isolate_label(m.group(1))}"', line)
            # An unquoted edge label is quoted, so the isolate characters are plain label text to Mermaid.
            line = MERMAID_PIPE.sub(
                lambda m: f'|"{isolate_label(m.group(1))}"|' if PERSIAN_LETTER.search(m.group(1)) else m.group(0),
                line)
        lines.append(line)
    return "\n".join(lines)


#: A horizontal flowchart's first line (``flowchart LR``, ``graph LR``).
MERMAID_LR = re.compile(r"^([ \t]*(?:flowchart|graph|direction)[ \t]+)LR\b", re.M)


def flow_right_to_left(diagram: str) -> str:
    r"""A horizontal Mermaid flowchart drawn right to left, as a Persian reader reads (nested ones too).

    Every Persian diagram that flows sideways flows the same way: the English
    lessons' ``LR`` becomes ``RL``; top-to-bottom diagrams are left as they are.

    >>> flow_right_to_left("flowchart LR\n  A --> B")
    'flowchart RL\n  A --> B'
    """
    return MERMAID_LR.sub(r"\1RL", diagram)


def layout_fences(text: str) -> str:
    """Fenced blocks of a Persian cell: code in a left-to-right block, Mermaid labels isolated.

    Inside the cell's right-to-left ``<div>`` a fenced code block would be laid
    out right to left too (a trailing comment or ``...`` jumps to the other
    side), so every fenced block but Mermaid goes in ``<div dir="ltr">``, with
    the blank lines Markdown needs around a fence inside HTML. A block a
    translator already wrapped so is left as it is.

    >>> print(layout_fences("پیش از کد:\\n```python\\nx = 1  # one\\n```"))
    پیش از کد:
    <div dir="ltr">
    <BLANKLINE>
    ```python
    x = 1  # one
    ```
    <BLANKLINE>
    </div>
    """
    lines, out, i = text.split("\n"), [], 0
    while i < len(lines):
        opening = FENCE_OPEN.match(lines[i])
        if not opening:
            out.append(lines[i])
            i += 1
            continue
        indent, fence, info = opening.groups()
        close = re.compile(rf"^[ \t]*{fence}`*[ \t]*$")
        end = next((j for j in range(i + 1, len(lines)) if close.match(lines[j])), None)
        if end is None:
            raise ValueError(f"unclosed {fence} fence in a Persian block: {lines[i]!r}")
        block = lines[i:end + 1]
        i = end + 1
        if info == "mermaid":
            out += [block[0], *isolate_mermaid(flow_right_to_left("\n".join(block[1:-1]))).split("\n"), block[-1]]
            continue
        before = next((line.strip() for line in reversed(out) if line.strip()), "")
        after = next((line.strip() for line in lines[i:] if line.strip()), "")
        if before == LTR_OPEN and after == "</div>":
            out += block  # wrapped by hand already
        else:
            out += [f"{indent}{LTR_OPEN}", "", *block, "", f"{indent}</div>"]
    return "\n".join(out)


#: The block a paragraph's text goes in: JupyterLab's stylesheet sets ``text-align: left`` on every ``<p>``,
#: so a right-to-left paragraph would sit against the left margin. Its sanitiser keeps ``style`` with
#: ``display`` and ``text-align`` (``tests/test_browser_persian.py`` checks the result in Chromium).
ALIGN_OPEN = '<span style="display:block;text-align:right">'
ALIGN_CLOSE = "</span>"
#: A line that is HTML of its own (a block tag, a comment), not text of a paragraph.
BLOCK_HTML = re.compile(
    r"^\s*(?:<!--|</?(?:div|details|summary|table|caption|thead|tbody|tr|td|th|p|figure|figcaption|ul|ol|li|"
    r"h[1-6]|pre|blockquote|hr|section|img|svg)\b)", re.I)
LIST_ITEM = re.compile(r"^([ \t]*(?:[-*+]|\d+[.)])[ \t]+)(\S.*)$")
NOT_PROSE = re.compile(r"^[ \t]*(?:#|\||>|-{3,}[ \t]*$|={3,}[ \t]*$|\$\$)")


def _aligned(lines: list[str]) -> list[str]:
    """One paragraph or list item's lines, its text in the aligning block."""
    item = LIST_ITEM.match(lines[0])
    prefix, first = (item.group(1), item.group(2)) if item else ("", lines[0].lstrip())
    indent = "" if item else lines[0][:len(lines[0]) - len(lines[0].lstrip())]
    lines = [f"{indent}{prefix}{ALIGN_OPEN}{first}", *lines[1:]]
    lines[-1] += ALIGN_CLOSE
    return lines


def align_paragraphs(text: str) -> str:
    """Put the text of every paragraph and list item in a right-aligned block (fences, HTML, tables, headings kept).

    >>> print(align_paragraphs("## سر\\n\\nیک بند\\nادامه\\n\\n- یک\\n  دو\\n- سه\\n\\n```python\\nx = 1\\n```"))
    ## سر
    <BLANKLINE>
    <span style="display:block;text-align:right">یک بند
    ادامه</span>
    <BLANKLINE>
    - <span style="display:block;text-align:right">یک
      دو</span>
    - <span style="display:block;text-align:right">سه</span>
    <BLANKLINE>
    ```python
    x = 1
    ```
    """
    out: list[str] = []
    segment: list[str] = []
    fence: str | None = None

    def flush() -> None:
        if segment:
            out.extend(_aligned(segment))
            segment.clear()

    for line in text.split("\n"):
        opening = FENCE_OPEN.match(line)
        if fence is not None:
            out.append(line)
            if re.match(rf"^[ \t]*{fence}`*[ \t]*$", line):
                fence = None
            continue
        if opening:
            flush()
            fence = opening.group(2)
            out.append(line)
        elif not line.strip() or BLOCK_HTML.match(line) or NOT_PROSE.match(line):
            flush()
            out.append(line)
        elif LIST_ITEM.match(line):
            flush()
            segment.append(line)
        else:
            segment.append(line)
    flush()
    return "\n".join(out)


def wrap(text: str) -> str:
    """A Persian markdown cell: the text inside a right-to-left block (blank lines keep it Markdown).

    Each paragraph's text is right-aligned too (:func:`align_paragraphs`).
    """
    return f"{RTL_OPEN}\n\n{align_paragraphs(isolate_arithmetic(layout_fences(text)))}\n\n</div>"


def build(source: Path) -> nbformat.NotebookNode:
    """The Persian notebook for ``source`` (no outputs), or ValueError naming every drift."""
    problems = drift(source)
    if problems:
        raise ValueError("\n".join(problems))
    english = nbformat.read(english_for(source), as_version=4)
    blocks, answers = read_blocks(source), read_answers(source)
    strings = code_translations(source)
    cells = []
    for i, cell in enumerate(english.cells):
        if cell.cell_type == "code":
            code = with_answer(cell.source, answers[i]) if i in answers else cell.source
            code = code_catalogue.translate_code(code, strings)
            new = nbformat.v4.new_code_cell(code, metadata=dict(cell.metadata))
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
    english_path = "../" + ("../solutions/" if is_exercise(source) else "") + english_for(source).name
    nb.metadata["course_edition"] = {"lang": "fa", "dir": "rtl", "english": english_path}
    nb.nbformat, nb.nbformat_minor = english.nbformat, english.nbformat_minor
    return nb


def same_cells(a: nbformat.NotebookNode, b: nbformat.NotebookNode) -> bool:
    key = lambda nb: [(c.cell_type, c.get("id"), c.source) for c in nb.cells]  # noqa: E731
    return key(a) == key(b)


def write(source: Path) -> tuple[Path, bool]:
    """Write the Persian notebook; keep the stored one (and its outputs) when no cell changed."""
    target = persian_for(source)
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
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(new, target)
    return target, True


def stamp(source: Path) -> None:
    """Record the current English hashes in ``source``: the translator says the Persian now follows."""
    english = nbformat.read(english_for(source), as_version=4)

    def restamp(mark: re.Match) -> str:
        kind, i = mark.group(1), int(mark.group(2))
        return f"<!-- fa-{kind} {i} en-sha256={english_hash(english.cells[i].source)} -->"

    source.write_text(ANY_MARKER.sub(restamp, source.read_text(encoding="utf-8")), encoding="utf-8")


def _names(path: Path) -> set[str]:
    """What selects a source on the command line: its name, its number ("02"), "ex02" for an exercise."""
    number = path.stem.split("_")[0]
    return {path.stem, f"ex{number}"} if is_exercise(path) else {path.stem, number}


def sources(selected: list[str]) -> list[Path]:
    every = sorted(SOURCES.glob("*.md")) + sorted(EXERCISE_SOURCES.glob("*.md"))
    if not selected:
        return every
    chosen = [p for p in every if any(s in _names(p) for s in selected)]
    if len(chosen) < len(selected):
        raise SystemExit(f"no Persian source for {selected} in {SOURCES} (have {[p.stem for p in every]})")
    return chosen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lessons", nargs="*", help="lesson numbers or names, exercises as ex02 or their names "
                                                   "(default: every translated lesson and exercise)")
    parser.add_argument("--check", action="store_true", help="exit 1 when a lesson has drifted; write nothing")
    parser.add_argument("--stamp", action="store_true", help="record the English hashes the translation now follows")
    parser.add_argument("--execute", action="store_true", help="run each rebuilt notebook to store its outputs")
    parser.add_argument("--extract", action="store_true",
                        help="bring each lesson's catalogue of code strings (notebooks/fa/po/) up to its English code")
    args = parser.parse_args(argv)
    failed = False
    for source in sources(args.lessons):
        if args.stamp:
            stamp(source)
        if args.extract:
            catalogue = extract(source)
            if catalogue:
                print(f"{catalogue.relative_to(ROOT)}: extracted")
            continue
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
