"""course_utils.checks: how a check reports, when it raises, and what it says about broken code.

The questions themselves (right and wrong answers per exercise) are tested in
tests/test_exercises.py; here is the machinery every question shares.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from course_utils import checks
from course_utils.checks import CheckResult, Exercise, Note, ex01, ex02, ex03, ex04, ex05, ex06, solutions
from course_utils.checks.ex05 import ex05_tool_tokens
from course_utils.checks.questions import ChoiceQuestion, Kind, Statement, Statements, statements_of
from course_utils.checks import cells as cells_module
from course_utils.window.sequences import orphaned_tool_messages


pytestmark = pytest.mark.usefixtures("lenient")  # tests/conftest.py: wrong answers are returned, not raised


ROOT = Path(__file__).resolve().parents[1]


def _exercises() -> dict[str, Exercise]:
    """Every exercise the package has (ex01, ex02, ... whatever is added later), by its two digits."""
    found = checks.exercises()
    assert found, "no exercises found in course_utils.checks"
    return found


def test_every_exercise_has_at_least_three_questions_with_hints():
    for exercise in _exercises().values():
        assert len(exercise.questions) >= 3, exercise
        for q in exercise.questions:
            assert q.hints and all(h.strip() for h in q.hints), q
            assert q.usage.startswith(f"q{q.number}.check("), q
            assert exercise.q1 is exercise.questions[0]


def test_every_solution_shown_is_the_masters_solution_lines():
    """Issue 19: the master is the one source; `qN.solution()` shows its solution lines, for every question."""
    masters = {solutions.exercise_of(p): p for p in (ROOT / "exercises" / "solutions").glob("*_exercise.ipynb")}
    exercises = _exercises()
    assert set(masters) == set(exercises)
    for number, exercise in exercises.items():
        cells = json.loads(masters[number].read_text(encoding="utf-8"))["cells"]
        from_master = solutions.master_solutions(cells)  # read from the master now, not from the generated file
        assert sorted(from_master) == [q.number for q in exercise.questions], exercise
        for q in exercise.questions:
            shown = q.solution()
            assert shown.code == from_master[q.number], q
            assert "SOLUTION" not in shown.code and "# PROMPT:" not in shown.code
            # the solution holds what the check is called with: the names the master's check cell passes
            for name in q.answer_names:
                assert name in cells_module.names_set(shown.code), (q, name)


def test_no_solution_strings_are_left_in_the_check_modules():
    for path in (ROOT / "course_utils" / "checks").glob("*.py"):
        assert 'solution="""' not in path.read_text(encoding="utf-8"), path
    ex = Exercise("99", "test", "none")
    with pytest.raises(TypeError, match="lives in its master notebook"):
        ex.question("x", "q1.check(x)", hints=("h",), solution="x = 1")


def test_no_check_module_imports_another_modules_private_names():
    """Issue 19: what one module of course_utils.checks needs from another is public and documented."""
    import ast

    for path in (ROOT / "course_utils" / "checks").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("course_utils"):
                # "_" is gettext's translation function (course_utils.core.i18n._), by convention, not a private name
                private = [a.name for a in node.names if a.name.startswith("_") and a.name != "_"]
                assert not private, f"{path.name} imports {private} from {node.module}"
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.attr.startswith("_") \
                    and node.value.id in ("machinery", "kinds", "questions", "status", "solutions", "spies", "record",
                                          "cells") and not node.attr.startswith("__"):
                raise AssertionError(f"{path.name} uses {node.value.id}.{node.attr}")


def test_solution_lines_drop_the_markers_and_keep_the_code_around_them():
    source = ("def f(x):\n    # BEGIN SOLUTION\n    return x + 1\n    # END SOLUTION\n\n\nf(1)")
    assert solutions.solution_lines(source) == "def f(x):\n    return x + 1\n\n\nf(1)"
    cells = [
        {"cell_type": "code", "source": "exploring = 1  # SOLUTION", "metadata": {}},  # sets no answer name
        {"cell_type": "code", "source": "# PROMPT: x = ...\n# BEGIN SOLUTION\nx = 2\n# END SOLUTION", "metadata": {}},
        {"cell_type": "code", "source": "q1.check(x)", "metadata": {}},
        {"cell_type": "code", "source": "y = 3", "metadata": {"tags": ["solution"]}},
        {"cell_type": "code", "source": "q2.check(z)", "metadata": {}},  # no cell sets z: every pending cell
    ]
    assert solutions.master_solutions(cells) == {1: "x = 2", 2: "y = 3"}
    with pytest.raises(ValueError, match="NN_"):
        solutions.exercise_of(Path("notes.ipynb"))


def test_long_quoted_text_is_cut_at_a_word_and_kept_whole():
    from course_utils.checks.machinery import quote

    error = ("ContextWindowExceededError: This model's maximum context length is 2048 tokens. However, your "
             "messages resulted in 2124 tokens. Please reduce the length of the messages.")
    assert quote(error) == (error, None)  # a provider's message is quoted whole
    shown, whole = quote(error, limit=100)
    assert whole == error and shown.endswith(" …") and error.startswith(shown[:-2])
    assert shown[:-2].split()[-1] in error.split()  # cut between words, never inside one
    result = CheckResult("q1 (x)", "wrong", f"turn 4 failed: {shown}", details=whole)
    assert result.text.endswith(error) and "The whole message" in result._repr_html_()
    assert "<details" in result._repr_html_()


def test_a_failed_turn_is_quoted_whole():
    """Issue 20: exercise 06 q1 with no middleware said "...Please reduce the length of the" and stopped."""
    result = ex06.q1.check([])
    assert result.status == "wrong"
    assert result.message.rstrip().endswith(("messages.", "')", "…")), result.message
    assert "Please reduce the length of the messages." in result.text


def test_result_text_and_html_are_deterministic_and_escaped():
    result = CheckResult("q1 (x)", "wrong", "use `a < b` & <b>not</b> this")
    assert repr(result) == str(result) == "[not quite] q1 (x): use `a < b` & <b>not</b> this"
    html = result._repr_html_()
    assert 'data-status="wrong"' in html
    assert "<b>not</b>" not in html and "&lt;b&gt;not&lt;/b&gt;" in html
    assert "<code" in html and "a &lt; b" in html
    assert html == CheckResult("q1 (x)", "wrong", "use `a < b` & <b>not</b> this")._repr_html_()
    assert not result and CheckResult("q", "correct", "ok")


def test_status_must_be_known():
    with pytest.raises(ValueError, match="status must be one of"):
        CheckResult("q1", "almost", "...")


@pytest.mark.parametrize("value", [..., None])
def test_blank_value_is_not_attempted(value):
    result = ex02.q1.check(value)
    assert result.status == "not attempted"
    assert "q1.check(room)" in result.message


def stub_ellipsis(messages, max_tokens, token_counter):
    ...  # your code here


def stub_pass(messages, max_tokens, token_counter):
    """Docstring only, then pass."""
    pass


def stub_raises(messages, max_tokens, token_counter):
    raise NotImplementedError


def returns_ellipsis(messages, max_tokens, token_counter):
    if messages is None:
        return None
    return ...


@pytest.mark.parametrize("fn", [stub_ellipsis, stub_pass, stub_raises, returns_ellipsis])
def test_unwritten_function_is_not_attempted(fn):
    result = ex03.q2.check(fn)
    assert result.status == "not attempted", result


def test_a_function_that_forgot_return_is_wrong_not_unattempted():
    def keep_last_tokens(messages, max_tokens, token_counter):
        kept = list(messages)[-1:]
        kept.reverse()  # noqa: F841 - the learner forgot `return kept`

    result = ex03.q2.check(keep_last_tokens)
    assert result.status == "wrong"
    assert "list of messages" in result.message and "None" in result.message


def test_an_exception_in_learner_code_is_explained_with_its_line():
    def keep_last_tokens(messages, max_tokens, token_counter):
        total = 0
        for message in messages:
            total += token_counter([message]) / message.cost  # no such attribute: the learner's line raises
        return []

    result = ex03.q2.check(keep_last_tokens)
    assert result.status == "error"
    assert "`keep_last_tokens` raised" in result.message
    assert "total += token_counter([message]) / message.cost" in result.message
    assert "Traceback" not in result.message


def test_checker_crash_becomes_an_error_result_not_an_exception():
    exercise = Exercise("99", "test", "none")

    @exercise.question("boom", "q1.check(x)", hints=("h",))
    def _boom(q, x):
        return {}[x]

    result = exercise.q1.check("missing")
    assert result.status == "error"
    assert "KeyError" in result.message


def test_wrong_number_of_arguments_shows_how_to_call():
    result = ex01.q3.check(1)
    assert result.status == "error"
    assert "q3.check(report, fig, first_over)" in result.message


def test_strict_mode_raises_for_every_status_but_correct():
    checks.set_strict(True)
    assert ex02.q1.check(lambda limit, system, user, reserve: limit - system - user - reserve).status == "correct"
    with pytest.raises(AssertionError, match=r"\[not quite\] q1 \(compute B\): room\(8192, 1200, 450, 1024\): you "
                                             r"forgot to take off the reply reserve"):
        ex02.q1.check(lambda limit, system, user, reserve: limit - system - user)
    with pytest.raises(AssertionError, match="not attempted"):
        ex02.q1.check(...)
    with pytest.raises(AssertionError, match="raised ZeroDivisionError"):
        ex02.q2.check(lambda limit, system, user, reserve: 1 // 0)
    checks.set_strict(False)
    assert ex02.q1.check(lambda limit, system, user, reserve: limit - system - user).status == "wrong"


def test_set_strict_rejects_non_bool():
    with pytest.raises(TypeError):
        checks.set_strict("yes")


def test_correct_output_is_the_same_strict_or_not():
    def h_max(limit, system, user, reserve, margin):
        return limit - system - user - reserve - margin

    lenient_result = ex05.q1.check(h_max)
    assert lenient_result.status == "correct"
    checks.set_strict(True)
    assert ex05.q1.check(h_max) == lenient_result
    assert repr(ex05.q1.check(h_max)) == repr(lenient_result)


@pytest.mark.parametrize(("value", "strict"), [("1", True), ("0", False), ("", False)])
def test_strict_mode_is_read_from_the_environment(value, strict):
    env = {**os.environ, "COURSE_CHECKS_STRICT": value}
    out = subprocess.run(
        [sys.executable, "-c", "import course_utils.checks as c; print(c.is_strict())"],
        env=env, capture_output=True, text=True, check=True,
    )
    assert out.stdout.strip() == str(strict)


def test_hints_grow_and_solution_can_be_hidden(monkeypatch):
    q = ex03.q2
    first, second = q.hint(), q.hint(2)
    assert isinstance(first, Note) and first.kind == "hint"
    assert first.message != second.message and "hint(2)" in first.message
    assert q.hint(99).message == q.hint(len(q.hints)).message
    assert "level must be" in q.hint(0).message
    assert "def keep_last_tokens" in q.solution().code
    assert 'data-status="solution"' in q.solution()._repr_html_()
    monkeypatch.setenv("COURSE_HIDE_SOLUTIONS", "1")
    hidden = q.solution()
    assert hidden.code is None and "switched off" in hidden.message


def test_generated_conversations_are_seeded_and_well_formed():
    a = checks.random_conversation(5, turns=8)
    b = checks.random_conversation(5, turns=8)
    assert [(m.id, m.content) for m in a] == [(m.id, m.content) for m in b]
    assert len({m.id for m in a}) == len(a)
    assert not orphaned_tool_messages(a)
    state = checks.random_conversation(5, turns=4, end_with_ai=False)
    assert state[-1].type == "human"


#: Every question that asks for a reason, and right answers to go with it.
REASONED = [
    (ex01.q4, ("d", "c")),
    (ex02.q4, ("c",)),
    (ex03.q4, ("a",)),
    (ex04.q3, ("d",)),
    (ex05.q4, ({"reserve": 800, "margin": 500, "include_system": False, "max_tokens": 5492 - ex05_tool_tokens(),
                "start_on": "human"},)),
    (ex06.q3, ("c",)),
]

#: Own words in three languages, right, wrong and nonsense: none of them changes a status (the teacher reads them).
OWN_WORDS = ("the pasted document is too big, so shrink it", "粘贴的文档太长了，应该缩短它",
             "سند چسبانده‌شده بزرگ است و باید کوتاه شود", "It is the save of facts and the small call.", "because")


@pytest.mark.parametrize(("q", "answers"), REASONED, ids=[f"ex{q.exercise}-q{q.number}" for q, _ in REASONED])
def test_own_words_are_never_marked_and_reasons_are_exact(q, answers):
    statements = statements_of(q)
    right = set(statements.right)
    for words in OWN_WORDS:
        result = q.check(*answers, right, words)
        assert result.status == "correct" and result.answer_text == words, result
        assert statements.model_answer[:30] in result.message
    blank = q.check(*answers, right, ...)
    assert blank.status == "correct" and blank.answer_text is None
    assert "own_words" in blank.message and statements.model_answer[:30] not in blank.message
    extra = max(set(range(1, len(statements.items) + 1)) - right)
    assert q.check(*answers, right | {extra}, ...).status == "wrong"
    for shape in ("1, 2", ["1"], 0, 99, set()):
        assert q.check(*answers, shape, ...).status == "wrong", shape
    assert q.check(*answers, ..., "words").status == "not attempted"
    result = q.check(*answers, right, 5)
    assert result.status == "wrong" and "as a string" in result.message, result


def test_orphan_diagnosis_uses_the_library_rule():
    """A ToolMessage separated from its call is an orphan too (the real rule), named as such."""
    from langchain_core.messages import trim_messages
    from langchain_core.messages.utils import count_tokens_approximately

    def tool_result_after_the_next_message(messages, max_tokens):
        out = trim_messages(messages, max_tokens=max_tokens, token_counter=count_tokens_approximately,
                            strategy="last", start_on="human", include_system=True)
        for j in range(1, len(out) - 1):
            if out[j].type == "tool" and out[j - 1].type == "ai":
                out[j], out[j + 1] = out[j + 1], out[j]  # the call is kept, but its result no longer follows it
                break
        return out

    result = ex03.q3.check(tool_result_after_the_next_message)
    assert result.status == "wrong", result
    assert "does not come right after the AIMessage" in result.message, result


def test_a_choice_question_is_data_registered_in_one_call():
    statements = Statements((Statement("y keeps it", Kind.JUSTIFIES), Statement("y drops it", Kind.REVERSED),
                             Statement("the sky is blue", Kind.IRRELEVANT)), model_answer="Because y keeps it.",
                            rubric="Says y keeps it.")
    ex = Exercise("99", "test", "99_test")
    q = ChoiceQuestion("pick", ("h",), {"a": "x", "b": "y"}, "b", {"a": "not x"}, "y it is.", statements).register(ex)
    assert ex.q1 is q and q.usage == "q1.check(choice, reasons, own_words)"
    assert q.check("a", {1}, "it is x for sure").status == "wrong"
    assert q.check("b", {1}, "because it drops the newest messages").status == "correct"
    assert q.check("b", {1, 2}, ...).status == "wrong"
    assert q.check("b", {1, 3}, ...).status == "wrong"
    assert q.check("b", ..., ...).status == "not attempted"
    assert "No worked solution" in q.solution().message  # no master for exercise 99
    with pytest.raises(ValueError, match="missing"):
        ChoiceQuestion("pick", ("h",), {"a": "x", "b": "y"}, "b", {}, "", statements)
    with pytest.raises(ValueError, match="reverse or swap"):
        Statements((Statement("y keeps it", Kind.JUSTIFIES),), model_answer="", rubric="")
