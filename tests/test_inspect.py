"""``python -m course_utils.inspect``: its figures are the course's own, its report and exit codes as documented.

Every figure is checked against the course's functions called the plain way:
"kept at budget" against ``trim_messages`` with the same arguments, token
totals against the model's counter, each call's history against the counter
over that history, costs against ``costs.bill`` over every call with one key
per message. The command runs in a real subprocess where its exit code matters.
"""

from __future__ import annotations

import html
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from langchain_core.messages import convert_to_openai_messages, trim_messages

from course_utils.agentic.checkpoints import close_checkpointer, sqlite_checkpointer
from course_utils.agentic.conversations import load_messages, sample_file
from course_utils.window.costs import Call, bill
from course_utils.agentic.graphs import build_trimming_chatbot, chat, stored_messages
from course_utils.window.growth import replay_growth
from course_utils.inspect import inspect_messages
from course_utils.inspect.analysis import index_ranges
from course_utils.inspect.cli import EXIT_CODES, main
from course_utils.inspect.report import PRIVACY, cost_rows, report_html
from course_utils.core.samples import load_conversation
from course_utils.window.sequences import safe_trim_kwargs
from course_utils.window.tokens import additive_parts
from course_utils.pictures.trim_view import NO_TEXT, preview

ROOT = Path(__file__).resolve().parents[1]
AGENT = load_conversation("agent_tools")
LONG = load_conversation("long_chat")
MODELS = ["Claude Haiku 4.5", "GPT-4 (original)", "Llama 3 8B Instruct"]  # approximate + caching, exact, no prices


def run(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "course_utils.inspect", *args], capture_output=True, text=True,
                          env=env, timeout=300)


@pytest.fixture(scope="module")
def thread(tmp_path_factory):
    """A real SQLite checkpointer thread, written by a real LangGraph graph."""
    path = tmp_path_factory.mktemp("inspect") / "threads.sqlite"
    saver = sqlite_checkpointer(str(path))
    graph = build_trimming_chatbot(checkpointer=saver)
    for text in ["hi! I'm bob", "what's my name?", "I like green tea and long walks", "what do I like?",
                 "tell me a short story about a fox", "summarise our chat"]:
        chat(graph, "bob", text)
    messages = stored_messages(graph, "bob")
    close_checkpointer(saver)
    return path, messages


# --- the figures are the course's ---------------------------------------------------------------


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("messages", [AGENT, LONG], ids=["agent", "long_chat"])
def test_every_figure_equals_the_course_functions(messages, model):
    budget = 600
    result = inspect_messages(messages, model, budget)
    counter = result.counter.counter
    kwargs = safe_trim_kwargs(budget, counter)
    assert result.trim_kwargs == kwargs
    assert result.trim.result == trim_messages(messages, **kwargs)
    assert result.kept_indexes == [i for i, row in enumerate(result.trim.rows) if row.status != "dropped"]
    assert result.total_tokens == counter(messages)
    assert result.tokens_by_role == {role: counter([m for m in messages if m.type == role])
                                     for role in ("system", "human", "ai", "tool") if any(m.type == role for m in messages)}
    assert result.message_tokens == [counter([m]) for m in messages]
    plain = replay_growth(messages, counter, limit=result.model.context_window)
    assert [(r.call, r.history_tokens, r.sent_tokens, r.cumulative_sent_tokens, r.over_limit) for r in result.growth.rows] == \
           [(r.call, r.history_tokens, r.sent_tokens, r.cumulative_sent_tokens, r.over_limit) for r in plain.rows]


@pytest.mark.parametrize("model", ["Claude Haiku 4.5", "GPT-4 (original)"])
def test_costs_equal_costs_bill_over_every_call_with_one_key_per_message(model):
    result = inspect_messages(LONG, model, 600)
    counter = result.counter.counter
    one, extra = additive_parts(counter)
    calls = [
        Call("turn", tuple(str(i) for i in range(r.ai_index)) + ("framing",),
             tuple(one(m) for m in LONG[: r.ai_index]) + (extra,), output_tokens=counter([LONG[r.ai_index]]))
        for r in result.growth.rows
    ]
    for caching, totals, per_call in ((True, result.with_caching, [c.cost for c in result.costs]),
                                      (False, result.without_caching, [c.cost_without_caching for c in result.costs])):
        plain = bill(calls, result.model.prices, caching=caching)
        assert math.isclose(totals.cost, plain.cost, rel_tol=1e-12) and math.isclose(sum(per_call), plain.cost, rel_tol=1e-12)
        assert (totals.input_tokens, totals.cached_tokens, totals.output_tokens) == \
               (plain.input_tokens, plain.cached_tokens, plain.output_tokens)
    assert [c.input_tokens for c in result.costs] == [r.history_tokens for r in result.growth.rows]
    if result.model.price_cached_input is not None:
        # An append-only history caches its prefix, but never below the model's minimum cacheable length.
        minimum = result.model.prices.min_cached_tokens
        assert result.with_caching.cost < result.without_caching.cost and result.with_caching.cached_tokens > 0
        assert all(c.cached_tokens == 0 or c.cached_tokens >= minimum for c in result.costs)
        assert all(c.cached_tokens == 0 for c in result.costs if c.input_tokens < minimum)


def test_the_crossing_is_the_first_call_over_the_window():
    result = inspect_messages(LONG * 60, "GPT-4 (original)", 2000)  # about 4,900 messages, 8,192-token window
    crossing = result.crossing
    assert crossing is not None and crossing.history_tokens > 8192
    previous = result.growth.rows[crossing.call - 2]
    assert previous.history_tokens <= 8192
    assert crossing.history_tokens == result.counter.counter(result.messages[: crossing.ai_index])


def test_index_ranges():
    assert index_ranges([0, 1, 2, 5, 7, 8]) == "0–2, 5, 7–8"
    assert index_ranges([3]) == "3"


# --- the command ---------------------------------------------------------------------------------


def test_the_command_on_a_sqlite_thread(thread, tmp_path):
    path, messages = thread
    before = path.read_bytes(), path.stat().st_mtime_ns
    out = tmp_path / "report.html"
    done = run(str(path), "--thread", "bob", "--model", "GPT-4 (original)", "--budget", "120", "--out", str(out))
    assert done.returncode == 0, done.stderr
    result = inspect_messages(messages, "GPT-4 (original)", 120)
    kept = trim_messages(messages, **safe_trim_kwargs(120, result.counter.counter))
    text = done.stdout
    assert f"{len(messages)} messages" in text and f"all {result.counter.counter(messages):,}" in text
    assert f"keeps {len(kept)} of {len(messages)} messages" in text
    assert "Nothing was sent anywhere." in text
    assert "reading" in done.stderr and "trimming" in done.stderr  # progress goes to stderr
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before
    page = out.read_text(encoding="utf-8")
    assert PRIVACY in page and '<html lang="en">' in page and "<img alt=" in page
    assert page.count('class="trim-row"') == len(messages)  # a short thread: every row drawn
    assert all(html.escape(preview(m.text, 80)[:40]) in page for m in messages if m.text)


def test_no_text_leaves_every_message_text_out(thread, tmp_path):
    path, messages = thread
    out = tmp_path / "shared.html"
    assert main([str(path), "--thread", "bob", "--model", "Claude Haiku 4.5", "--budget", "200", "--out", str(out),
                 "--no-text", "--quiet"]) == 0
    page = out.read_text(encoding="utf-8")
    assert "--no-text" in page and NO_TEXT in page
    for m in messages:
        for word in re.findall(r"[A-Za-z]{6,}", m.text):
            assert word not in page or word in PRIVACY + page.split("<main>")[0], word


def test_a_long_thread_folds_its_tables(tmp_path):
    result = inspect_messages(LONG * 40, "Claude Haiku 4.5", 3000)
    page = report_html(result, source="long.json", format="openai")
    assert 'class="trim-run"' in page and re.search(r"rows [\d,]+–[\d,]+ \(indexes [\d,]+–[\d,]+\): [\d,]+ messages dropped", page)
    counts = {s: sum(r.status == s for r in result.trim.rows) for s in ("kept", "partial", "dropped")}
    drawn = {s: page.count(f'class="trim-row" data-status="{s}"') +
             sum(int(n) for n in re.findall(rf'class="trim-run" data-status="{s}" data-count="(\d+)"', page))
             for s in counts}
    assert drawn == counts  # every message is either a drawn row or counted in a folded run
    rows = cost_rows(result)
    assert len(rows) < len(result.costs)
    assert sum(r["count"] if r["kind"] == "fold" else 1 for r in rows) == len(result.costs)
    assert math.isclose(sum(r["cost"] if r["kind"] == "fold" else r["c"].cost for r in rows), result.with_caching.cost)
    assert "one point per" in page  # the figure says it was downsampled


def test_the_shipped_files_inspect_in_process(capsys):
    for fmt in ("openai", "anthropic", "langchain"):
        assert main([str(sample_file(fmt)), "--model", "Claude Haiku 4.5", "--budget", "400", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert out.count("- 18 messages;") == 3


def test_help_states_privacy_formats_and_exit_codes():
    done = run("--help")
    assert done.returncode == 0
    text = " ".join(done.stdout.split())
    assert "Nothing is sent anywhere" in text and "exit codes" in text and "postgresql://" in text
    for code, meaning in EXIT_CODES.items():
        assert f"{code} {meaning}" in text


def test_exit_codes(thread, tmp_path):
    path, _ = thread
    assert run(str(path), "--model", "No Such Model", "--budget", "10", "--thread", "bob").returncode == 2
    assert run(str(path), "--model", "GPT-4 (original)", "--budget", "-3", "--thread", "bob").returncode == 2
    assert run(str(path), "--model", "GPT-4 (original)", "--thread", "bob").returncode == 2  # no budget
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"role": "wizard", "content": "x"}]), encoding="utf-8")
    done = run(str(bad), "--model", "GPT-4 (original)", "--budget", "10")
    assert done.returncode == 3 and "message 0" in done.stderr and "Fix:" in done.stderr
    assert run(str(path), "--model", "GPT-4 (original)", "--budget", "10").returncode == 3  # no --thread
    done = run(str(path), "--thread", "bob", "--model", "GPT-4 (original)", "--budget", "10",
               "--out", str(tmp_path / "no" / "such" / "folder" / "r.html"))
    assert done.returncode == 4 and "cannot write the report" in done.stderr


def test_jsonl_export_of_the_thread_gives_the_same_summary(thread, tmp_path):
    path, messages = thread
    jsonl = tmp_path / "bob.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in convert_to_openai_messages(messages)), encoding="utf-8")
    assert [m.content for m in load_messages(jsonl)] == [m.content for m in messages]
    a = run(str(path), "--thread", "bob", "--model", "GPT-4 (original)", "--budget", "150", "--quiet").stdout
    b = run(str(jsonl), "--model", "GPT-4 (original)", "--budget", "150", "--quiet").stdout
    assert a.splitlines()[1:] == b.splitlines()[1:]  # only the first line (the source) differs
