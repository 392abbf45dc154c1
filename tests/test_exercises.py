"""The exercises: student copies are fresh, hold no solutions, run offline, and the checks can't be fooled.

- A committed student copy equals what scripts/make_student_copies.py makes
  from its master now (a stale copy fails, with the command that fixes it).
- No solution line or marker survives in a student copy; outputs are cleared.
- Every student copy runs top to bottom in a fresh kernel, offline and with
  strict mode off, without an error, and every check says "not attempted yet".
- Every question rejects at least two plausible wrong answers (off by one,
  wrong order, the other strategy, a mutated state, ...) with a message that
  names the mistake, and accepts a right one.

The masters themselves run under strict nbval (pyproject's testpaths).
"""

import json
import os
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest
from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, trim_messages
from langchain_core.messages import utils as message_utils
from langchain_core.messages.utils import count_tokens_approximately

from course_utils import checks
from course_utils.window.budget import history_budget
from course_utils.checks import ex01, ex02, ex03, ex04, ex05, ex06, ex07, ex08, ex04_state_messages
from course_utils.checks.ex05 import ex05_tool_tokens
from course_utils.checks.questions import statements_of
from course_utils.window.growth import replay_growth
from course_utils.core.samples import load_conversation
from test_exercise04_summaries import eraser, forgetful, summarizer
import exercise08_answers as E08

import make_student_copies as make_copies  # scripts/, on the tests' path (pyproject's pythonpath)

ROOT = Path(__file__).resolve().parents[1]

EXERCISES = {
    "01_measuring_growth_exercise": ex01,
    "02_token_budgets_exercise": ex02,
    "03_trimming_walkthrough_exercise": ex03,
    "04_langgraph_integration_exercise": ex04,
    "05_threshold_selection_exercise": ex05,
    "06_agent_context_exercise": ex06,
    "07_beyond_one_window_exercise": ex07,
    "08_provider_side_context_exercise": ex08,
}
MASTERS = {name: ROOT / "exercises" / "solutions" / f"{name}.ipynb" for name in EXERCISES}
COPIES = {name: ROOT / "exercises" / f"{name}.ipynb" for name in EXERCISES}


pytestmark = pytest.mark.usefixtures("lenient")  # tests/conftest.py: wrong answers are returned, not raised


# --- the student copies ------------------------------------------------------------------


def test_one_master_and_one_copy_per_lesson():
    assert sorted(p.name for p in make_copies.masters()) == sorted(p.name for p in MASTERS.values())
    for path in [*MASTERS.values(), *COPIES.values()]:
        assert path.exists(), f"missing {path.relative_to(ROOT)}"


@pytest.mark.parametrize("name", EXERCISES)
def test_student_copy_is_up_to_date(name):
    expected = make_copies.expected_copy(MASTERS[name])
    assert COPIES[name].read_text(encoding="utf-8") == expected, (
        f"exercises/{name}.ipynb is stale: run `python scripts/make_student_copies.py` and commit the result"
    )


def split_master(master: nbformat.NotebookNode) -> tuple[list[str], list[str]]:
    """The master's code lines, stripped: (marked as solution, everything else). Parsed here, not by the script."""
    solution, other = [], []
    for cell in master.cells:
        if cell.cell_type != "code":
            continue
        inside = False
        for line in cell.source.split("\n"):
            if "# BEGIN SOLUTION" in line:
                inside = True
            elif "# END SOLUTION" in line:
                inside = False
            elif inside:
                solution.append(line.strip())
            elif line.rstrip().endswith("# SOLUTION"):
                solution.append(line.split("=", 1)[1].replace("# SOLUTION", "").strip())
            else:
                other.append(line.strip())
    return [line for line in solution if len(line) >= 8 and re.search(r"[A-Za-z0-9]", line)], other


@pytest.mark.parametrize("name", EXERCISES)
def test_student_copy_has_no_solutions_markers_or_outputs(name):
    master = nbformat.read(MASTERS[name], as_version=4)
    copy = nbformat.read(COPIES[name], as_version=4)
    code = "\n".join(cell.source for cell in copy.cells if cell.cell_type == "code")
    copy_lines = [line.strip() for line in code.split("\n")]
    hidden, other = split_master(master)
    assert len(hidden) >= 3, "the master should mark its solutions"
    # A solution line may also appear outside the solutions (a shared argument line): it must then
    # appear in the copy no more often than it does there.
    leaked = sorted({line for line in hidden if copy_lines.count(line) > other.count(line)})
    assert not leaked, f"solution lines left in the student copy: {leaked}"
    text = COPIES[name].read_text(encoding="utf-8")
    assert "SOLUTION" not in text and "# PROMPT" not in text
    assert "../../notebooks/" not in text and "../notebooks/" in text
    for cell in copy.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None
    assert code.count("# your code here") >= len(EXERCISES[name].questions)


def test_markers_are_replaced_and_bad_markers_refused():
    source = "\n".join([
        "x = 5  # SOLUTION",
        "def f(a):",
        "    # BEGIN SOLUTION",
        "    return a + 1",
        "    # END SOLUTION",
        "# PROMPT: why = ...  # a sentence",
        "# BEGIN SOLUTION",
        "why = 'because'",
        "# END SOLUTION",
        "print('kept')",
    ])
    assert make_copies.strip_code(source, "t").split("\n") == [
        "x = ...  # your code here",
        "def f(a):",
        "    ...  # your code here",
        "why = ...  # a sentence",
        "print('kept')",
    ]
    md = "Answer: <!-- BEGIN SOLUTION -->b, because<!-- END SOLUTION --> [l](../../notebooks/01.ipynb)"
    assert make_copies.strip_markdown(md, "t") == "Answer: _Write your answer here._ [l](../notebooks/01.ipynb)"
    for bad in ("# BEGIN SOLUTION\nx = 1", "x = 1\n# END SOLUTION", "print(1)  # SOLUTION", "# PROMPT: x = ..."):
        with pytest.raises(make_copies.MarkerError):
            make_copies.strip_code(bad, "t")


def test_tagged_solution_cell_is_replaced_whole():
    master = nbformat.v4.new_notebook()
    master.cells = [nbformat.v4.new_code_cell("answer = 42", metadata={"tags": ["solution", "keep"]})]
    copy = make_copies.student_copy(master)
    assert copy.cells[0].source == "...  # your code here"
    assert copy.cells[0].metadata["tags"] == ["keep"]


def test_script_check_mode_reports_stale_copies(tmp_path, monkeypatch, capsys):
    masters, copies = tmp_path / "solutions", tmp_path
    masters.mkdir()
    source = next(iter(MASTERS.values()))
    (masters / source.name).write_bytes(source.read_bytes())
    monkeypatch.setattr(make_copies, "MASTERS", masters)
    monkeypatch.setattr(make_copies, "COPIES", copies)
    monkeypatch.setattr(make_copies, "ROOT", tmp_path)
    monkeypatch.setattr(make_copies, "SOLUTIONS_DATA", tmp_path / "data")
    assert make_copies.main(["--check"]) == 1
    assert "STALE" in capsys.readouterr().err
    assert make_copies.main([]) == 0
    first = (copies / source.name).read_bytes()
    data = tmp_path / "data" / f"ex{source.name[:2]}.json"
    assert json.loads(data.read_text(encoding="utf-8"))["solutions"]  # the solutions, from the master
    assert make_copies.main([]) == 0 and (copies / source.name).read_bytes() == first  # idempotent
    assert make_copies.main(["--check"]) == 0
    # a master whose solution changed makes its solutions data stale, even when the copy is not
    changed = json.loads((masters / source.name).read_text(encoding="utf-8"))
    cell = next(c for c in changed["cells"] if "# SOLUTION" in "".join(c["source"]))
    cell["source"] = "".join(cell["source"]).replace("# SOLUTION", "+ 0  # SOLUTION", 1)
    (masters / source.name).write_text(json.dumps(changed), encoding="utf-8")
    data_before = data.read_text(encoding="utf-8")
    assert make_copies.main(["--check"]) == 1
    assert f"STALE: {data.relative_to(tmp_path)}" in capsys.readouterr().err
    assert make_copies.main([]) == 0 and data.read_text(encoding="utf-8") != data_before


def test_committed_solutions_data_is_up_to_date():
    """qN.solution() reads course_utils/checks/master_solutions/: it must say what the masters say."""
    from course_utils.checks import solutions

    for master in MASTERS.values():
        expected = solutions.render(master, ROOT)
        path = solutions.data_path(solutions.exercise_of(master))
        assert path.read_text(encoding="utf-8") == expected, f"{path} is stale: run scripts/make_student_copies.py"


def _execute(path: Path) -> nbformat.NotebookNode:
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    return nb


@pytest.fixture(scope="module")
def executed_copies():
    """Run every student copy in its own fresh kernel (two at a time), offline, strict mode off."""
    saved = os.environ.pop("COURSE_CHECKS_STRICT", None)
    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            results = dict(zip(COPIES, pool.map(_execute, COPIES.values())))
    finally:
        if saved is not None:
            os.environ["COURSE_CHECKS_STRICT"] = saved
    return results


@pytest.mark.parametrize("name", EXERCISES)
def test_student_copy_runs_and_every_check_says_not_attempted(name, executed_copies):
    nb = executed_copies[name]
    shown = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for output in cell.outputs:
            assert output.output_type != "error", f"{name}: {output.ename}: {output.evalue}"
            assert not (output.output_type == "stream" and output.name == "stderr"), f"{name}: {output.text}"
        if re.search(r"^q\d+\.check\(", cell.source, re.M):
            texts = [o.data["text/plain"] for o in cell.outputs if o.output_type == "execute_result"]
            assert len(texts) == 1, f"{name}: no result shown for {cell.source!r}"
            shown.append(texts[0])
    assert len(shown) == len(EXERCISES[name].questions)
    assert all(text.startswith("[not attempted yet]") for text in shown), shown


# --- wrong answers are rejected with a useful message -----------------------------------------


# exercise 01 -----------------------------------------------------------------------------------

def cumulative_including_reply(messages, token_counter):
    totals, total = [], 0
    for i, message in enumerate(messages):
        if isinstance(message, AIMessage):
            total += token_counter(messages[: i + 1])
            totals.append(total)
    return totals


def per_call_not_cumulative(messages, token_counter):
    return [token_counter(messages[:i]) for i, m in enumerate(messages) if isinstance(m, AIMessage)]


def one_call_per_human(messages, token_counter):
    totals, total = [], 0
    for i, message in enumerate(messages):
        if isinstance(message, HumanMessage):
            total += token_counter(messages[: i + 1])
            totals.append(total)
    return totals


def hard_coded_bob(messages, token_counter):
    return [10, 40, 90, 160, 250, 360, 490]


def reverses_in_place(messages, token_counter):
    messages.reverse()
    return [0]


def raises_key_error(messages, token_counter):
    return {}["total"]


def bob_report(counter="dummy", limit=2000):
    return replay_growth(load_conversation("long_chat"), counter, limit=limit)


def first_over(conversation, limit):
    first = replay_growth(conversation, "approximate", limit=limit).first_over_limit
    return None if first is None else first.call


def first_over_shifted(by):
    """first_over with a known slip: the AIMessage's position ("ai_index"), or the call number shifted by ``by``."""

    def slipped(conversation, limit):
        first = replay_growth(conversation, "approximate", limit=limit).first_over_limit
        if first is None:
            return None
        return first.ai_index if by == "ai_index" else first.call + by

    return slipped


def right_figure():
    from course_utils.pictures.plots import growth_figure

    return growth_figure(bob_report("approximate"))


# exercise 02 -----------------------------------------------------------------------------------

def budget_no_raise(limit, system, user, reserve):
    return limit - system - user - reserve


def budget_returns_zero(limit, system, user, reserve):
    return max(0, limit - system - user - reserve)


def budget_off_by_one(limit, system, user, reserve):
    left = limit - system - user - reserve
    if left < 0:
        raise ValueError("no room")
    return left


def budget_forgets_reserve(limit, system, user, reserve):
    if system + user + reserve >= limit:
        raise ValueError("no room")
    return limit - system - user


def budget_constant(limit, system, user, reserve):
    return 2866


def budget_type_error(limit, system, user, reserve):
    if system + user + reserve >= limit:
        raise TypeError("no room")
    return limit - system - user - reserve


def caught(**kwargs):
    try:
        history_budget(**kwargs)
    except ValueError as err:
        return err


# exercise 03 -----------------------------------------------------------------------------------

def keep_newest_first(messages, max_tokens, token_counter):
    kept, total = [], 0
    for message in reversed(messages):
        cost = token_counter([message])
        if total + cost > max_tokens:
            break
        kept.append(message)
        total += cost
    return kept


def keep_strict_less_than(messages, max_tokens, token_counter):
    kept, total = [], 0
    for message in reversed(messages):
        cost = token_counter([message])
        if total + cost >= max_tokens:
            break
        kept.append(message)
        total += cost
    return kept[::-1]


def keep_skipping(messages, max_tokens, token_counter):
    kept, total = [], 0
    for message in reversed(messages):
        cost = token_counter([message])
        if total + cost <= max_tokens:
            kept.append(message)
            total += cost
    return kept[::-1]


def keep_first(messages, max_tokens, token_counter):
    """strategy='first' by hand: the oldest messages that fit."""
    kept, total = [], 0
    for message in messages:
        cost = token_counter([message])
        if total + cost > max_tokens:
            break
        kept.append(message)
        total += cost
    return kept


def keep_reversing_input(messages, max_tokens, token_counter):
    messages.reverse()
    kept, total = [], 0
    for message in messages:
        cost = token_counter([message])
        if total + cost > max_tokens:
            break
        kept.append(message)
        total += cost
    return kept[::-1]


def keep_with_trim_messages(messages, max_tokens, token_counter):
    """Right answers, but the question says to write it without calling trim_messages."""
    return trim_messages(messages, max_tokens=max_tokens, token_counter=token_counter, strategy="last")


def keep_with_an_alias(messages, max_tokens, token_counter):
    """The same, through a name the source does not show: caught while it runs."""
    trim = getattr(message_utils, "trim_" + "messages")
    return trim(messages, max_tokens=max_tokens, token_counter=token_counter, strategy="last")


def keep_slide_constant(messages, max_tokens, token_counter):
    return [m for m in messages if m.id in ("human2", "tool2", "ai2")]


def trim_with(**options):
    def safe_trim(messages, max_tokens):
        return trim_messages(messages, max_tokens=max_tokens, token_counter=count_tokens_approximately, **options)

    return safe_trim


def safe_trim_no_start_on(messages, max_tokens):
    return trim_messages(messages, max_tokens=max_tokens, token_counter=count_tokens_approximately,
                         strategy="last", include_system=True)


def safe_trim_first(messages, max_tokens):
    return trim_messages(messages, max_tokens=max_tokens, token_counter=count_tokens_approximately, strategy="first")


def safe_trim_no_system(messages, max_tokens):
    return trim_messages(messages, max_tokens=max_tokens, token_counter=count_tokens_approximately,
                         strategy="last", start_on="human")


def safe_trim_start_on_ai(messages, max_tokens):
    return trim_messages(messages, max_tokens=max_tokens, token_counter=count_tokens_approximately,
                         strategy="last", start_on="ai", include_system=True)


def safe_trim_bigger_budget(messages, max_tokens):
    return trim_messages(messages, max_tokens=2 * max_tokens, token_counter=count_tokens_approximately,
                         strategy="last", include_system=True)


def safe_trim_drop_tools(messages, max_tokens):
    no_tools = [m for m in messages if m.type != "tool"]
    return trim_messages(no_tools, max_tokens=max_tokens, token_counter=count_tokens_approximately,
                         strategy="last", start_on="human", include_system=True)


# exercise 04 -----------------------------------------------------------------------------------

def node_factory(trim=None, *, in_place=False, remove_all=False):
    """A make_chatbot_node with one mistake built in."""

    def make_chatbot_node(model, max_tokens=128):
        def chatbot(state):
            options = {"max_tokens": max_tokens, "token_counter": "approximate", "strategy": "last",
                       "start_on": "human", "include_system": True}
            options.update(trim or {})
            options = {k: v for k, v in options.items() if v is not None}
            sent = trim_messages(state["messages"], **options) if trim != "none" else state["messages"]
            if in_place:
                state["messages"][:] = sent
            reply = model.invoke(sent)
            if remove_all:
                return {"messages": [RemoveMessage(id="__remove_all__"), *sent, reply]}
            return {"messages": [reply]}

        return chatbot

    return make_chatbot_node


def node_without_trimming(model, max_tokens=128):
    def chatbot(state):
        return {"messages": [model.invoke(state["messages"])]}

    return chatbot


def node_empty_in_graph(model, max_tokens=128):
    """Right on a single state; in the graph (cap 40) it trims too hard from turn 3 on and sends []."""
    right = node_factory()(model, max_tokens)

    def chatbot(state):
        if max_tokens == 40 and len(state["messages"]) > 4:
            return {"messages": [model.invoke(trim_messages(state["messages"], max_tokens=5,
                                                            token_counter="approximate", strategy="last"))]}
        return right(state)

    return chatbot


# exercise 05 -----------------------------------------------------------------------------------

def cost_no_trimming(messages, fact_id, max_tokens):
    return replay_growth(messages, "approximate").total_sent_tokens, None


def _trim05(history, max_tokens, **extra):
    options = dict(max_tokens=max_tokens, token_counter="approximate", strategy="last", start_on="human",
                   include_system=True)
    options.update(extra)
    return trim_messages(history, **{k: v for k, v in options.items() if v is not None})


def cost_forgotten_zero_based(messages, fact_id, max_tokens):
    report = replay_growth(messages, "approximate", policy=lambda h: _trim05(h, max_tokens))
    index = [m.id for m in messages].index(fact_id)
    for n, row in enumerate(report.rows):
        if row.ai_index > index and fact_id not in [m.id for m in _trim05(messages[: row.ai_index], max_tokens)]:
            return report.total_sent_tokens, n
    return report.total_sent_tokens, None


def cost_looks_in_history(messages, fact_id, max_tokens):
    report = replay_growth(messages, "approximate", policy=lambda h: _trim05(h, max_tokens))
    return report.total_sent_tokens, None  # the stored history always has the fact


def cost_without_system(messages, fact_id, max_tokens):
    report = replay_growth(messages, "approximate", policy=lambda h: _trim05(h, max_tokens, include_system=None))
    return report.total_sent_tokens, None


def _leading_match(sent, earlier):
    n = 0
    while n < min(len(sent), len(earlier)) and (sent[n].type, sent[n].text) == (earlier[n].type, earlier[n].text):
        n += 1
    return n


def cache_previous_call_only(calls, minimum):
    """05 q5 slip: compares each call with the one just before it, not with every earlier call."""
    from course_utils.window.tokens import approximate_counter

    prefixes = [
        sum(approximate_counter([m]) for m in sent[: _leading_match(sent, calls[i - 1])])
        for i, sent in enumerate(calls) if i
    ]
    return sum(p for p in prefixes if p >= minimum)


def cache_anywhere(calls, minimum):
    """05 q5 slip: counts every message sent before, wherever it sits in the call."""
    from course_utils.window.tokens import approximate_counter

    total = 0
    for i, sent in enumerate(calls):
        seen = {(m.type, m.text) for earlier in calls[:i] for m in earlier}
        shared = sum(approximate_counter([m]) for m in sent if (m.type, m.text) in seen)
        total += shared if shared >= minimum else 0
    return total


LEAVE_OUT = object()  #: plan(key=LEAVE_OUT): a plan without that key


def plan(**changes):
    """A right plan that trims the history alone (cap H_max = 5492 - T), with some values changed."""
    good = {"reserve": 800, "margin": 500, "include_system": False, "max_tokens": 5492 - ex05_tool_tokens(),
            "start_on": "human"}
    good.update(changes)
    return {k: v for k, v in good.items() if v is not LEAVE_OUT}


def whole_list_plan(**changes):
    """A right plan that trims the whole list, system prompt and new input included (cap L - R - M - T)."""
    return plan(**{"include_system": True, "max_tokens": 6892 - ex05_tool_tokens(), **changes})


WHY = ("R covers the longest reply, M the counting error, the cap leaves room for the system prompt and the "
       "new message, and start_on keeps tool calls whole.")

# (question, arguments, expected status, words the message must contain)
# exercise 06 -----------------------------------------------------------------------------------

def _ex06_middleware():
    from langchain.agents.middleware import ClearToolUsesEdit, ContextEditingMiddleware

    from course_utils.window.tokens import exact_counter

    return {
        "clears and forgets": [ContextEditingMiddleware(edits=[ClearToolUsesEdit(trigger=1000, keep=1)],
                                                        token_counter=exact_counter)],
        "approximate counter": [ContextEditingMiddleware(edits=[ClearToolUsesEdit(trigger=1000, keep=1)])],
    }


def _ex06_hook(**trim):
    from langchain.agents.middleware import before_model
    from langgraph.graph.message import REMOVE_ALL_MESSAGES

    from course_utils.window.tokens import exact_counter

    from course_utils.agentic.agents import fit_turn

    remove_all = trim.pop("remove_all", True)
    fit = trim.pop("fit", True)  # keep the current turn when the trim keeps nothing (lesson 06, 6a)
    options = {"max_tokens": 300, "token_counter": exact_counter, "strategy": "last", "start_on": "human",
               "end_on": ("human", "tool"), **trim}
    options = {k: v for k, v in options.items() if v is not None}

    @before_model
    def trim_history(state, runtime):
        kept = trim_messages(state["messages"], **options)
        if not kept and fit:
            kept = fit_turn(state["messages"], 300, token_counter=exact_counter)
        return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), *kept] if remove_all else kept}

    return trim_history


EX06_WHY = "Old file reads can be read again, so clearing them saves tokens while the history stays whole."


# exercise 07 -----------------------------------------------------------------------------------


def _ex07_tool(kind):
    """Wrong memory tools for ex07 q1: saving without the user, under another field, or not at all."""
    from langchain.tools import ToolRuntime, tool

    from course_utils.agentic.memory import UserContext

    @tool
    def save_fact(text: str, runtime: ToolRuntime[UserContext]) -> str:
        """Save a fact about the user to long-term memory."""
        if kind == "no user":
            runtime.store.put(("memories",), f"k{len(runtime.store.search(('memories',)))}", {"text": text})
        elif kind == "other field":
            runtime.store.put(("memories", runtime.context.user_id), "k", {"fact": text})
        return "saved"

    return save_fact


def _ex07_offload(kind):
    """Wrong offloading middleware for ex07 q2."""
    from langchain.agents.middleware import wrap_tool_call

    from course_utils.agentic.offload import pointer_text, thread_id_of
    from course_utils.window.tokens import count_text_tokens

    @wrap_tool_call
    def offload_big(request, handler):
        result = handler(request)
        if kind == "pass through":
            return result
        tokens = count_text_tokens(result.text)
        if kind != "everything" and tokens <= 1000:
            return result
        namespace = ("offloaded", thread_id_of(request.runtime))
        result_id = f"res-{len(request.runtime.store.search(namespace)) + 1}"
        request.runtime.store.put(namespace, result_id, {"content": result.text})
        return result.model_copy(update={"content": pointer_text(result_id, tokens, result.text)})

    return offload_big


EX07_WHY = ("The plan and language are saved once in the user's store namespace, so any new thread can recall "
            "them, and each call is sent only a few short facts instead of the whole history.")


def right_reasons(q):
    """The numbers of the statements that justify a reason question's answer (what a right answer picks)."""
    return set(statements_of(q).right)


#: Exercise 05 q4's caps, the tool schemas taken off (T, counted as the course counts them).
T = ex05_tool_tokens()
H_MAX = 8192 - 1100 - 300 - 800 - 500 - T
WHOLE = 8192 - 800 - 500 - T


WRONG = [
    # 01 q1: cumulative tokens sent
    (ex01.q1, (lambda calls, q, a: sum(k * (q + a) for k in range(1, calls + 1)),), "wrong", "own answer"),
    (ex01.q1, (lambda calls, q, a: (calls - 1) * (q + a) + q,), "wrong", "last call alone"),
    (ex01.q1, (lambda calls, q, a: sum((k - 1) * (q + a) for k in range(1, calls + 1)),), "wrong", "new question"),
    (ex01.q1, (lambda calls, q, a: sum((k - 1) * (q + a) + q for k in range(1, calls)),), "wrong", "off by one"),
    (ex01.q1, (lambda calls, q, a: "4900",), "wrong", "whole number"),
    (ex01.q1, (4900,), "wrong", "should be a function"),
    # 01 q2: cumulative_sent
    (ex01.q2, (cumulative_including_reply,), "wrong", "included each reply"),
    (ex01.q2, (per_call_not_cumulative,), "wrong", "running total"),
    (ex01.q2, (one_call_per_human,), "wrong", "one call per human message"),
    (ex01.q2, (hard_coded_bob,), "wrong", "agent_tools"),
    (ex01.q2, (reverses_in_place,), "wrong", "changed the list"),
    (ex01.q2, (raises_key_error,), "error", "raised KeyError"),
    # 01 q3: measure and plot
    (ex01.q3, (bob_report("dummy"), right_figure(), first_over), "wrong", "'dummy' counter"),
    (ex01.q3, (bob_report("approximate", limit=1000), right_figure(), first_over), "wrong", "limit=2000"),
    (ex01.q3, ("report", right_figure(), first_over), "wrong", "replay_growth"),
    (ex01.q3, (bob_report("approximate"), "figure", first_over), "wrong", "growth_figure"),
    (ex01.q3, (bob_report("approximate"), right_figure(), 20), "wrong", "should be a function"),
    (ex01.q3, (bob_report("approximate"), right_figure(), first_over_shifted("ai_index")), "wrong",
     "position of that call's AIMessage"),
    (ex01.q3, (bob_report("approximate"), right_figure(), first_over_shifted(-1)), "wrong", "still fits"),
    (ex01.q3, (bob_report("approximate"), right_figure(), first_over_shifted(1)), "wrong", "off by one"),
    # 01 q4: how does it grow
    (ex01.q4, ("c", "c", {1, 2}, WHY), "wrong", "per call"),
    (ex01.q4, ("d", "d", {1, 2}, WHY), "wrong", "with a cap"),
    (ex01.q4, ("a", "c", {1, 2}, WHY), "wrong", "exponential"),
    (ex01.q4, ("d", "b", {1, 2}, WHY), "wrong", "keeps growing"),
    (ex01.q4, ("d", "c", ..., WHY), "not attempted", "reasons"),
    (ex01.q4, ("d", "c", {1, 3}, WHY), "wrong", "do not justify it"),
    # 01 q5: predict, then look (the wrong tokenizer, the wrong language, a count far off)
    (ex01.q5, ("cl100k_base", "zh", 20), "wrong", "vocabulary is twice as large"),
    (ex01.q5, ("o200k_base", "fa", 20), "wrong", "per character"),
    (ex01.q5, ("o200k_base", "zh", 60), "wrong", "too high"),
    (ex01.q5, ("o200k_base", "zh", ...), "not attempted", "o200k_tokens"),
    # 02 q1: B
    (ex02.q1, (lambda limit, s, u, r: limit - s - u,), "wrong", "reply reserve"),
    (ex02.q1, (lambda limit, s, u, r: limit - u - r,), "wrong", "system prompt"),
    (ex02.q1, (lambda limit, s, u, r: s + u + r,), "wrong", "fixed parts use"),
    (ex02.q1, (lambda limit, s, u, r: s + u + r - limit,), "wrong", "other way round"),
    (ex02.q1, (5518,), "wrong", "should be a function"),
    # 02 q2: budget()
    (ex02.q2, (budget_no_raise,), "wrong", "raise ValueError"),
    (ex02.q2, (budget_returns_zero,), "wrong", "Returning 0 hides"),
    (ex02.q2, (budget_off_by_one,), "wrong", "off by one"),
    (ex02.q2, (budget_forgets_reserve,), "wrong", "forgot to take off the reply reserve"),
    (ex02.q2, (budget_constant,), "wrong", "budget(8192, 1200, 450, 1024)"),
    (ex02.q2, (budget_type_error,), "error", "raised TypeError"),
    # 02 q3: no room left
    (ex02.q3, (64, 64), "wrong", "not the number"),
    (ex02.q3, (ValueError, 64), "wrong", "exception *class*"),
    (ex02.q3, (caught(limit=2048, system=900, user=700, reserve=512), lambda limit, s, u, r: limit - s - u - r),
     "wrong", "sign"),
    (ex02.q3, (caught(limit=2048, system=900, user=700, reserve=512), lambda limit, s, u, r: s + u + r),
     "wrong", "add up"),
    (ex02.q3, (caught(limit=2048, system=900, user=700, reserve=512), 64), "wrong", "should be a function"),
    (ex02.q3, (ValueError("other"), 64), "wrong", "not the one"),
    # 02 q4: choose a fix
    (ex02.q4, ("b", {1, 2}, WHY), "wrong", "Trimming cannot fix it"),
    (ex02.q4, ("a", {1, 2}, WHY), "wrong", "bigger"),
    (ex02.q4, ("c", {1, 2, 4}, WHY), "wrong", "do not justify it"),
    (ex02.q4, ("z", {1, 2}, WHY), "wrong", "one of the letters"),
    # 03 q1: trim by hand
    (ex03.q1, (["a3", "h3", "a2", "h2"],), "wrong", "newest first"),
    (ex03.q1, (["h1", "a1", "h2"],), "wrong", "strategy='first'"),
    (ex03.q1, (["a2", "h3", "a3"],), "wrong", "stopped too early"),
    (ex03.q1, (["a1", "h2", "a2", "h3", "a3"],), "wrong", "more than the budget"),
    (ex03.q1, (["x9"],), "wrong", "not ids"),
    # 03 q2: keep_last_tokens
    (ex03.q2, (keep_newest_first,), "wrong", "newest first"),
    (ex03.q2, (keep_strict_less_than,), "wrong", "Off by one"),
    (ex03.q2, (keep_skipping,), "wrong", "stops at the first one that does not fit"),
    (ex03.q2, (keep_first,), "wrong", "strategy='first'"),
    (ex03.q2, (keep_reversing_input,), "wrong", "changed the list"),
    (ex03.q2, (keep_slide_constant,), "wrong", "the exercise conversation"),
    (ex03.q2, (keep_with_trim_messages,), "wrong", "*without* calling `trim_messages`"),  # issue 20
    (ex03.q2, (keep_with_an_alias,), "wrong", "*without* calling `trim_messages`"),
    # 03 q3: the orphaned ToolMessage
    (ex03.q3, (safe_trim_no_start_on,), "wrong", "orphan trap"),
    (ex03.q3, (safe_trim_first,), "wrong", "strategy='first'"),
    (ex03.q3, (safe_trim_no_system,), "wrong", "include_system=True"),
    (ex03.q3, (safe_trim_start_on_ai,), "wrong", "starts with an AIMessage"),
    (ex03.q3, (safe_trim_bigger_budget,), "wrong", "over max_tokens"),
    (ex03.q3, (safe_trim_drop_tools,), "wrong", "removed the tool results"),
    # 03 q4: a teammate's fix
    (ex03.q4, ("b", {1, 2}, WHY), "wrong", "oldest"),
    (ex03.q4, ("d", {1, 2}, WHY), "wrong", "*which* messages"),
    (ex03.q4, ("a", ..., ""), "not attempted", "reasons"),
    (ex03.q4, ("a", {1, 2, 3}, ""), "wrong", "do not justify it"),
    # 04 q1: what the node sends
    (ex04.q1, (["h6", "a6", "h7", "a7", "h8", "a8", "h9", "a9", "h10", "a10", "h11"],), "wrong", "system prompt is missing"),
    (ex04.q1, (["a5", "h6", "a6", "h7", "a7", "h8", "a8", "h9", "a9", "h10", "a10", "h11"],), "wrong",
     "starts with an AIMessage"),
    (ex04.q1, ([m.id for m in ex04_state_messages()],), "wrong", "whole state"),
    (ex04.q1, (["h11", "a10", "h10", "a9", "h9", "a8", "h8", "a7", "h7", "a6", "h6", "sys"],), "wrong",
     "chronological"),
    # 04 q2: trim inside the node
    (ex04.q2, (node_factory(in_place=True),), "wrong", "in place"),
    (ex04.q2, (node_without_trimming,), "wrong", "the whole history"),
    (ex04.q2, (node_factory({"strategy": "first", "start_on": None, "include_system": None}),), "wrong",
     "latest question is missing"),
    (ex04.q2, (node_factory({"start_on": None}),), "wrong", "starts with an AI message; use start_on"),
    (ex04.q2, (node_factory({"include_system": None}),), "wrong", "include_system=True"),
    (ex04.q2, (node_factory(remove_all=True),), "wrong", "RemoveMessage"),
    (ex04.q2, (lambda model, max_tokens=128: "chatbot",), "wrong", "node function"),
    (ex04.q2, (node_factory({"max_tokens": 5, "include_system": None}),), "error",
     "your node sent the model an empty list"),
    (ex04.q2, (node_empty_in_graph,), "error", "turn 3 ('i like how much they win') of a graph, your node sent "
     "the model an empty list"),
    # 04 q3: why does it forget
    # 04 q4, q5: what the state stores (the answers are built in test_exercise04_summaries.py)
    (ex04.q4, (forgetful("merged"), eraser()), "wrong", "nothing was removed"),
    (ex04.q4, (forgetful("no_reply"), eraser()), "wrong", "not the model's reply"),
    (ex04.q4, (forgetful("remove"), eraser("nothing")), "wrong", "RemoveMessage removes a message from the current state only"),
    (ex04.q5, (summarizer("plain_slice"),), "wrong", "valid_tail(messages, keep_last)"),
    (ex04.q5, (summarizer("keep_list"),), "wrong", "merges them into the state by id"),
    (ex04.q3, ("a", {1, 2}, WHY), "wrong", "stored_messages"),
    (ex04.q3, ("b", {1, 2}, WHY), "wrong", "new list"),
    (ex04.q3, ("c", {1, 2}, WHY), "wrong", "far below the window"),
    (ex04.q3, ("d", {1}, WHY), "wrong", "missing"),
    # 05 q1: H_max
    (ex05.q1, (lambda limit, system, user, reserve, margin: limit - system - user - reserve,), "wrong",
     "safety margin"),
    (ex05.q1, (lambda limit, system, user, reserve, margin: limit - system - user - margin,), "wrong",
     "reply reserve"),
    (ex05.q1, (lambda limit, system, user, reserve, margin: system + user + reserve + margin,), "wrong",
     "fixed parts use"),
    (ex05.q1, (12084,), "wrong", "a number typed by hand cannot pass"),
    # 05 q2: if R grows
    (ex05.q2, (lambda limit, system, user, reserve, margin, new_reserve: new_reserve - reserve,), "wrong",
     "the sign"),
    (ex05.q2, (lambda limit, system, user, reserve, margin, new_reserve: limit - system - user - new_reserve - margin,),
     "wrong", "new H_max"),
    (ex05.q2, (lambda limit, system, user, reserve, margin, new_reserve: -1000,), "wrong", "worked example's change"),
    (ex05.q2, (-1000,), "wrong", "a number typed by hand cannot pass"),
    # 05 q3: cost and forgetting
    (ex05.q3, (cost_no_trimming,), "wrong", "sending everything"),
    (ex05.q3, (cost_forgotten_zero_based,), "wrong", "off by one"),
    (ex05.q3, (cost_looks_in_history,), "wrong", "not in the stored history"),
    (ex05.q3, (cost_without_system,), "wrong", "system prompt"),
    # 05 q4: choose thresholds
    (ex05.q4, (plan(reserve=300, max_tokens=5992 - T), {1, 2, 3}, WHY), "wrong", "less than the longest reply"),
    (ex05.q4, (plan(margin=0, max_tokens=5992 - T), {1, 2, 3}, WHY), "wrong", "5% of 8192"),
    (ex05.q4, (plan(max_tokens=5992 - T), {1, 2, 3}, WHY), "wrong", "without the margin"),
    (ex05.q4, (plan(max_tokens=4000), {1, 2, 3}, WHY), "wrong", "below H_max"),
    (ex05.q4, (plan(start_on=None), {1, 2, 3}, WHY), "wrong", "ToolMessage"),
    (ex05.q4, (plan(reserve=5000, max_tokens=1292), {1, 2, 3}, WHY), "wrong", "twice the longest reply"),
    # 05 q4: the cap must match the list the plan trims
    (ex05.q4, (plan(max_tokens=6892 - T), {1, 2, 3}, WHY), "wrong", "with include_system=False you trim the history alone"),
    (ex05.q4, (plan(include_system=True), {1, 2, 3}, WHY), "wrong", "H_max, the room for the history alone"),
    (ex05.q4, (whole_list_plan(max_tokens=7392 - T), {1, 2, 3}, WHY), "wrong", "without the margin"),
    (ex05.q4, (whole_list_plan(max_tokens=7000), {1, 2, 3}, WHY), "wrong", "more than L - R - M - T"),
    (ex05.q4, (whole_list_plan(max_tokens=6000), {1, 2, 3}, WHY), "wrong", "below L - R - M - T"),
    (ex05.q4, (whole_list_plan(max_tokens=6892), {1, 2, 3}, WHY), "wrong", "leaves out the tool schemas"),
    (ex05.q4, (plan(max_tokens=5492), {1, 2, 3}, WHY), "wrong", "leaves out the tool schemas"),
    (ex05.q4, (whole_list_plan(max_tokens=8192), {1, 2, 3}, WHY), "wrong", "whole window"),
    (ex05.q4, (whole_list_plan(reserve=300, max_tokens=7392), {1, 2, 3}, WHY), "wrong", "less than the longest reply"),
    (ex05.q4, (whole_list_plan(start_on=LEAVE_OUT), {1, 2, 3}, WHY), "wrong", "missing ['start_on']"),
    (ex05.q4, (plan(include_system=LEAVE_OUT), {1, 2, 3}, WHY), "wrong", "which list you trim"),
    (ex05.q4, (plan(include_system="yes"), {1, 2, 3}, WHY), "wrong", "should be True"),
    (ex05.q4, (whole_list_plan(start_on="ai"), {1, 2, 3}, WHY), "wrong", "ToolMessage"),
    (ex05.q4, (plan(), {1, 3}, WHY), "wrong", "missing"),
    (ex05.q4, (plan(), {1, 2, 3, 4}, "any reason at all"), "wrong", "do not justify it"),
    # 05 q5: what a prompt cache serves
    (ex05.q5, (cache_previous_call_only,), "wrong", "previous call only"),
    (ex05.q5, (cache_anywhere,), "wrong", "only a *prefix*"),
    (ex05.q5, (lambda calls, minimum: sum(len(call) for call in calls),), "wrong", "a cache serves"),
    (ex05.q5, (lambda calls, minimum: None,), "wrong", "returned None"),
    # 06 q1: a middleware to a budget
    (ex06.q1, ([],), "wrong", "turn 4 failed"),
    (ex06.q1, (_ex06_middleware()["clears and forgets"],), "wrong", "answers only 1 of 4"),
    (ex06.q1, (_ex06_middleware()["approximate counter"],), "wrong", "default approximate counter"),
    (ex06.q1, ("summarise",), "wrong", "list of middleware"),
    # 06 q2: a hook that never orphans a tool result
    (ex06.q2, (_ex06_hook(start_on=None),), "wrong", "starting on a request"),
    (ex06.q2, (_ex06_hook(remove_all=False),), "wrong", "RemoveMessage(id=REMOVE_ALL_MESSAGES)"),
    (ex06.q2, (_ex06_hook(max_tokens=1000),), "wrong", "over 300"),
    # issue 20: the rules the question states
    (ex06.q2, (_ex06_hook(fit=False),), "wrong", "the current turn alone is"),  # the old master: sends nothing
    (ex06.q2, (_ex06_hook(token_counter=count_tokens_approximately),), "wrong", "approximate counter"),
    (ex06.q2, (_ex06_hook(token_counter="approximate"),), "wrong", "approximate counter"),
    (ex06.q2, (_ex06_hook(max_tokens=200),), "wrong", "the newest messages that fit in 300"),
    (ex06.q2, (lambda state, runtime: None,), "wrong", "@before_model"),
    # 06 q3: choose a strategy
    (ex06.q3, ("a", {1, 2, 3}, EX06_WHY), "wrong", "pays again"),
    (ex06.q3, ("b", {1, 2, 3}, EX06_WHY), "wrong", "summary"),
    (ex06.q3, ("d", {1, 2, 3}, EX06_WHY), "wrong", "rewrites the stored history"),
    (ex06.q3, ("c", {1, 2, 5}, EX06_WHY), "wrong", "do not justify it"),
    # 07 q1: a memory tool (tests/test_checks_table.py holds the hostile ones)
    (ex07.q1, (lambda text: "saved",), "wrong", "should be a tool"),
    (ex07.q1, (_ex07_tool("no user"),), "wrong", "not this user's"),
    (ex07.q1, (_ex07_tool("other field"),), "wrong", "same key"),
    (ex07.q1, (_ex07_tool("nothing"),), "wrong", "holds 0 item"),
    # 07 q2: offloading middleware
    (ex07.q2, (_ex07_offload("pass through"),), "wrong", "the question's threshold is 1000 tokens"),
    (ex07.q2, (_ex07_offload("everything"),), "wrong", "offload only results over 1000"),
    (ex07.q2, (_ex07_offload("read back too"),), "wrong", "offloaded again"),
    (ex07.q2, (lambda request, handler: handler(request),), "wrong", "@wrap_tool_call"),
    # 07 q3: choose a move
    (ex07.q3, ("a", {1, 2}, EX07_WHY), "wrong", "grow without end"),
    (ex07.q3, ("c", {1, 2}, EX07_WHY), "wrong", "read back in full"),
    (ex07.q3, ("b", {1, 2, 3}, "because that is the right answer"), "wrong", "do not justify it"),
    # 07 q4: from which request a sub-agent pays, in money (a function, run on unseen scenarios)
    (ex07.q4, (4, {1, 2, 3}, ...), "wrong", "should be a function"),
    (ex07.q4, (lambda comparison, prices, caching: 4, {1, 2, 3}, ...), "wrong", "your function answered 4"),
    (ex07.q4, (lambda comparison, prices, caching: "4", {1, 2, 3}, ...), "wrong", "whole number"),
    # 08 q1: server-side compaction under a budget (tests/test_checks_table_08.py holds the hostile ones)
    (ex08.q1, (E08.no_beta,), "wrong", "betas"),
    (ex08.q1, (E08.too_late,), "wrong", "reads the whole input"),
    (ex08.q1, (E08.never_refuses,), "wrong", "ValueError naming `budget`"),
    (ex08.q1, (E08.binds_instead,), "wrong", "should return a `ChatAnthropic`"),
    # 08 q2: client- or server-side
    (ex08.q2, ("a", {1, 2, 3}, ...), "wrong", "encrypted"),
    (ex08.q2, ("d", {1, 2, 3}, ...), "wrong", "decides what it drops"),
    (ex08.q2, ("b", {1, 2, 4}, ...), "wrong", "do not justify it"),
    # 08 q3: server-held state or a resent history, in money (a function, run on unseen patterns)
    (ex08.q3, (0.1127, {1, 2, 3}, ...), "wrong", "should be a function"),
    (ex08.q3, (E08.new_only, {1, 2, 3}, ...), "wrong", "bills only the instructions"),
    (ex08.q3, (E08.no_pauses, {1, 2, 3}, ...), "wrong", "leaves out the pauses"),
]


def _id(case):
    q, args, status, words = case
    return f"ex{q.exercise}-q{q.number}-{words[:24]}"


@pytest.mark.parametrize("case", WRONG, ids=[_id(c) for c in WRONG])
def test_wrong_answer_is_rejected_with_a_useful_message(case):
    q, args, status, words = case
    result = q.check(*args)
    assert result.status == status, result
    assert words.lower() in result.message.lower(), result


def test_every_question_rejects_at_least_two_wrong_answers():
    counts = {}
    for q, _, status, _ in WRONG:
        if status in ("wrong", "error"):
            counts[q] = counts.get(q, 0) + 1
    for exercise in EXERCISES.values():
        for q in exercise.questions:
            assert counts.get(q, 0) >= 2, f"exercise {exercise.number} {q.label} has {counts.get(q, 0)} wrong answers"


def test_wrong_answers_fail_in_strict_mode():
    checks.set_strict(True)
    try:
        with pytest.raises(AssertionError, match="newest first"):
            ex03.q2.check(keep_newest_first)
    finally:
        checks.set_strict(False)


def test_right_answers_pass():
    """The masters check this under nbval too; here a failure points at the question directly."""
    from course_utils.pictures.plots import growth_figure

    report = bob_report("approximate")
    assert ex01.q1.check(lambda calls, q, a: sum((k - 1) * (q + a) + q for k in range(1, calls + 1))).correct
    assert ex01.q3.check(report, growth_figure(report), first_over).correct
    assert ex02.q1.check(lambda limit, s, u, r: limit - s - u - r).correct
    assert ex02.q3.check(caught(limit=2048, system=900, user=700, reserve=512),
                         lambda limit, s, u, r: max(0, s + u + r - limit)).correct
    assert ex03.q1.check(["h2", "a2", "h3", "a3"]).correct
    assert ex03.q3.check(trim_with(strategy="last", start_on="human", include_system=True)).correct
    assert ex04.q2.check(node_factory()).correct
    assert ex05.q4.check(plan(), {1, 2, 3}, WHY).correct
    assert ex05.q4.check(plan(reserve=700, margin=410, max_tokens=5682 - T), {1, 2, 3}, ...).correct


def test_both_caps_of_lesson_05_pass_each_for_its_own_list():
    """H_max when the plan trims the history alone; L - R - M when the list also holds S and U; T off both."""
    history_alone = ex05.q4.check(plan(), {1, 2, 3}, WHY)
    whole_list = ex05.q4.check(whole_list_plan(), {1, 2, 3}, WHY)
    assert history_alone.correct and f"H_max = {H_MAX}" in history_alone.message, history_alone
    assert whole_list.correct and f"L - R - M - T = {WHOLE}" in whole_list.message, whole_list
    # the same numbers with the other choice of list are wrong
    assert not ex05.q4.check(plan(max_tokens=WHOLE), {1, 2, 3}, WHY).correct
    assert not ex05.q4.check(plan(include_system=True, max_tokens=H_MAX), {1, 2, 3}, WHY).correct
    # any R and M in range: the cap follows them, for either list
    for reserve, margin in ((700, 410), (1400, 1638), (1000, 819)):
        h_max = history_budget(8192, 1100, 300, reserve, margin=margin) - T
        assert ex05.q4.check(plan(reserve=reserve, margin=margin, max_tokens=h_max), {1, 2, 3}, WHY).correct
        assert ex05.q4.check(plan(reserve=reserve, margin=margin, include_system=True,
                                  max_tokens=8192 - reserve - margin - T), {1, 2, 3}, WHY).correct
        assert not ex05.q4.check(plan(reserve=reserve, margin=margin, include_system=True,
                                      max_tokens=8192 - reserve - margin - T + 1), {1, 2, 3}, WHY).correct


#: The multiple-choice questions: (question, the answers before `why`, with one letter to vary).
CHOICES = [
    (ex01.q4, lambda letter: (letter, "c")),
    (ex01.q4, lambda letter: ("d", letter)),
    (ex02.q4, lambda letter: (letter,)),
    (ex03.q4, lambda letter: (letter,)),
    (ex04.q3, lambda letter: (letter,)),
]
#: Own words for the choice questions (never marked: they do not change the status).
IDEA_WHY = {
    ("02", 4): "The pasted document makes S + U + R exceed L, so shrink the document.",
    ("03", 4): "strategy='first' drops the newest messages, the latest question among them.",
    ("01", 4): "Each call re-sends the whole history; with a cap each call costs at most the cap.",
    ("04", 3): "The stored state keeps the name, but the trimmed list sent to the model does not.",
}


def test_multiple_choice_answers_are_not_all_the_same_letter():
    right = []
    for q, answers in CHOICES:
        why = IDEA_WHY.get((q.exercise, q.number), WHY)
        letters = [letter for letter in "abcd" if q.check(*answers(letter), right_reasons(q), why).correct]
        assert len(letters) == 1, (q, letters)
        wrong = [q.check(*answers(letter), right_reasons(q), why) for letter in "abcd" if letter not in letters]
        assert all(r.status == "wrong" and len(r.message) > 40 for r in wrong), wrong
        right.append(letters[0])
    assert right == ["d", "c", "c", "a", "d"]
    assert len(set(right)) >= 3
