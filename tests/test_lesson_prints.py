"""What a lesson prints in its own words goes through gettext, so the Persian edition prints it in Persian (issue 23).

The code cells of a Persian lesson are the English ones, so a sentence a code
cell prints (``print("calls over the limit:", n)``) can only be Persian there
if the shared code looks it up: ``print(_("calls over the limit:"), n)``, or
``_("total sent: {sent}").format(sent=n)`` where an f-string would have
been. Sample conversations, model replies and code names are data, printed
from variables, and stay as they are.

Two rules, over the English lessons and exercise masters (their Persian
copies share the code):

- a ``print`` argument that is a literal with words in it is wrapped in ``_()``;
- a value is printed inside its sentence, not after it (see
  :func:`values_after_a_sentence`);
- every literal wrapped in a notebook has its Persian in the catalogue
  (the modules' and templates' strings are checked in tests/test_i18n.py).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
PO = ROOT / "course_utils/locale/fa/LC_MESSAGES/course_utils.po"
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted((ROOT / "exercises/solutions").glob("*.ipynb"))
#: Two words of two or more letters: a phrase a learner reads, not a separator, a unit sign or a code name.
#: Names of code or data a table prints as they are, in both editions (lesson 04: the SQLite table's columns).
CODE_NAMES = {"thread_id", "checkpoints"}
WORDS = re.compile(r"[A-Za-z]{2,}[^A-Za-z{}_.()\[\]=]+[A-Za-z]{2,}")


def code_of(cell) -> str:
    """A code cell's Python, without IPython's %magic and !shell lines (which ast cannot parse)."""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in cell.source.splitlines())


def trees(path: Path):
    for index, cell in enumerate(nbformat.read(path, as_version=4).cells):
        if cell.cell_type == "code":
            yield index, ast.parse(code_of(cell))


def found_in(path: Path, rule) -> list[tuple[int, str]]:
    """(cell index, finding) for what ``rule`` finds in each code cell of the notebook at ``path``."""
    return [(index, found) for index, tree in trees(path) for found in rule(tree)]


def literal_text(node: ast.AST) -> str | None:
    """The words of a str literal or an f-string's literal parts; None for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return " {} ".join(v.value for v in node.values if isinstance(v, ast.Constant))
    return None


def is_call_to(node: ast.AST, name: str) -> bool:
    """Whether ``node`` calls the function ``name`` (``print(...)``, ``_(...)``)."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name


def calls_to(tree: ast.AST, name: str):
    """Every call of the function ``name`` in ``tree``."""
    return (node for node in ast.walk(tree) if is_call_to(node, name))


def unwrapped_prints(tree: ast.AST) -> list[str]:
    """The literal ``print`` arguments with words in them that are not looked up through ``_()``."""
    found = []
    for node in calls_to(tree, "print"):
        for argument in node.args:
            text = literal_text(argument)
            if text is not None and WORDS.search(text):
                found.append(text)
            # a word formatted into an f-string, as a table's header is: f"{'role':<7}{'chars':>6}"
            if isinstance(argument, ast.JoinedStr):
                found += [v.value.value for v in argument.values if isinstance(v, ast.FormattedValue)
                          and isinstance(v.value, ast.Constant) and isinstance(v.value.value, str)
                          and re.search(r"[A-Za-z]{3,}", v.value.value) and v.value.value not in CODE_NAMES]
    return found


def values_after_a_sentence(tree: ast.AST) -> list[str]:
    """``print`` calls that print a value after a wrapped sentence (``print(_("kept:"), ids)``).

    In Persian the sentence is a right-to-left isolate in a left-to-right output line, so a value
    printed after it lands at the far right, where a Persian reader starts: the value has to be
    inside the sentence, ``print(_("kept: {}").format(ids))``.
    """
    return [ast.unparse(node) for node in calls_to(tree, "print")
            if any(is_call_to(argument, "_") for argument in node.args[:-1])]


def wrapped_literals(tree: ast.AST) -> set[str]:
    return {node.args[0].value for node in calls_to(tree, "_")
            if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)}


def test_the_rule_sees_an_unwrapped_sentence_and_passes_a_wrapped_one():
    assert unwrapped_prints(ast.parse('print("calls over the limit:", n)')) == ["calls over the limit:"]
    assert unwrapped_prints(ast.parse('print(f"total sent: {a} with trimming")')) == ["total sent:  {}  with trimming"]
    assert unwrapped_prints(ast.parse('print(_("calls over the limit:"), n)')) == []
    assert unwrapped_prints(ast.parse('print(_("sent {n} tokens").format(n=n))')) == []
    assert unwrapped_prints(ast.parse('print(x, "-", y, f"{a:,}", "L - R")')) == []  # no phrase in it
    assert unwrapped_prints(ast.parse("""print(f"{'#':>2}  {'role':<7}{'chars':>6}")""")) == ["role", "chars"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_printed_sentences_go_through_gettext(path):
    unwrapped = found_in(path, unwrapped_prints)
    assert not unwrapped, (f"{path.name} prints English the Persian edition cannot translate; wrap it in _() "
                           f"(from course_utils.core.i18n import _): {unwrapped}")


def test_the_rule_sees_a_value_printed_after_its_sentence():
    assert values_after_a_sentence(ast.parse('print(_("kept:"), ids)')) == ["print(_('kept:'), ids)"]
    assert values_after_a_sentence(ast.parse('print(" ", _("kept: {}").format(ids))')) == []
    assert values_after_a_sentence(ast.parse('print(_("kept"))')) == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_values_are_printed_inside_their_sentence(path):
    after = found_in(path, values_after_a_sentence)
    assert not after, (f"{path.name} prints a value after its sentence; put it inside, "
                       f'print(_("label: {{}}").format(value)), so it reads in order in Persian: {after}')


def test_every_sentence_a_notebook_wraps_has_its_persian():
    from babel.messages.pofile import read_po

    with PO.open("rb") as f:
        translated = {m.id: m.string for m in read_po(f) if m.id and not m.context and isinstance(m.id, str)}
    missing = sorted({(path.name, text) for path in NOTEBOOKS for _, tree in trees(path)
                      for text in wrapped_literals(tree) if not translated.get(text)})
    assert not missing, f"no Persian in {PO.name} for {missing}"
