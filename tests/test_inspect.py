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
from course_utils.agentic.conversations import load_conversation_source, load_messages, sample_file
from course_utils.window.costs import Call, bill
from course_utils.agentic.graphs import build_trimming_chatbot, chat, stored_messages
from course_utils.window.growth import replay_growth
from course_utils.inspect import inspect_messages
from course_utils.inspect.analysis import custom_model, index_ranges
from course_utils.inspect.cli import EXIT_CODES, main
from course_utils.inspect.report import PRIVACY, cost_rows, report_html, summary_lines
from course_utils.core.samples import load_conversation
from course_utils.window.sequences import safe_trim_kwargs
from course_utils.window.tokens import additive_parts
from course_utils.pictures.trim_view import NO_TEXT, preview

ROOT = Path(__file__).resolve().parents[1]
AGENT = load_conversation("agent_tools")
LONG = load_conversation("long_chat")
#: An 8,192-token model counted exactly (cl100k_base), priced without caching: given on the command line, as a
#: learner would for a model models.json lacks (GPT-4, the old row of that shape, was shut down on 2026-10-23).
EXACT = custom_model("an 8k model (cl100k_base)", 8192, input_price=30.0, output_price=60.0, tokenizer="cl100k_base")
EXACT_ARGS = ["--model", "an 8k model (cl100k_base)", "--window", "8192", "--tokenizer", "cl100k_base",
              "--input-price", "30", "--output-price", "60"]
MODELS = ["Claude Haiku 4.5", EXACT, "Llama 3 8B Instruct"]  # approximate + caching, exact, no prices


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


@pytest.mark.parametrize("model", MODELS, ids=["caching", "exact", "no prices"])
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


@pytest.mark.parametrize("model", ["Claude Haiku 4.5", EXACT], ids=["caching", "exact"])
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
    result = inspect_messages(LONG * 60, EXACT, 2000)  # about 4,900 messages, 8,192-token window
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
    done = run(str(path), "--thread", "bob", *EXACT_ARGS, "--budget", "120", "--out", str(out))
    assert done.returncode == 0, done.stderr
    result = inspect_messages(messages, EXACT, 120)
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
    assert run(str(path), *EXACT_ARGS, "--budget", "-3", "--thread", "bob").returncode == 2
    assert run(str(path), *EXACT_ARGS, "--thread", "bob").returncode == 2  # no budget
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"role": "wizard", "content": "x"}]), encoding="utf-8")
    done = run(str(bad), *EXACT_ARGS, "--budget", "10")
    assert done.returncode == 3 and "message 0" in done.stderr and "Fix:" in done.stderr
    assert run(str(path), *EXACT_ARGS, "--budget", "10").returncode == 3  # no --thread
    done = run(str(path), "--thread", "bob", *EXACT_ARGS, "--budget", "10",
               "--out", str(tmp_path / "no" / "such" / "folder" / "r.html"))
    assert done.returncode == 4 and "cannot write the report" in done.stderr


def test_jsonl_export_of_the_thread_gives_the_same_summary(thread, tmp_path):
    path, messages = thread
    jsonl = tmp_path / "bob.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in convert_to_openai_messages(messages)), encoding="utf-8")
    assert [m.content for m in load_messages(jsonl)] == [m.content for m in messages]
    a = run(str(path), "--thread", "bob", *EXACT_ARGS, "--budget", "150", "--quiet").stdout
    b = run(str(jsonl), *EXACT_ARGS, "--budget", "150", "--quiet").stdout
    assert a.splitlines()[1:] == b.splitlines()[1:]  # only the first line (the source) differs


# --- the files people have, through the command ---------------------------------------------------

SAMPLES = sample_file("openai").parent
#: Each sample and its message count, worked out by hand from what scripts/make_conversation_samples.py writes
#: (tests/test_conversations.py says why each is so).
SHAPE_COUNTS = {
    "chatgpt_export/conversations.json": 6, "chatgpt_export.zip": 6, "claude_ai_export.json": 4,
    "request_log.openai.jsonl": len(AGENT) - 1, "fine_tuning.openai.jsonl": 5, "responses_items.json": len(AGENT) - 1,
    "responses_request.json": len(AGENT), "gemini_contents.json": len(AGENT), "sharegpt.json": 5,
}


def command(*args: str) -> tuple[int, str, str]:
    """The command in this process: (exit code, stdout, stderr)."""
    import io

    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("name", sorted(SHAPE_COUNTS))
def test_the_command_reads_every_shape_and_counts_its_messages(name):
    code, out, err = command(str(SAMPLES / name), "--model", "Claude Haiku 4.5", "--budget", "2000", "--quiet")
    assert code == 0, err
    assert f"\n- {SHAPE_COUNTS[name]} messages;" in out


def test_a_zip_export_in_a_real_process():
    done = run(str(SAMPLES / "chatgpt_export.zip"), "--model", "Claude Haiku 4.5", "--budget", "2000",
               "--conversation", "Packing list")
    assert done.returncode == 0, done.stderr
    assert "- 2 messages;" in done.stdout and "conversation 2 of 2" in done.stdout


def test_a_request_log_counts_its_tool_schemas_in_every_call():
    loaded = load_conversation_source(SAMPLES / "request_log.openai.jsonl")
    plain = inspect_messages(loaded.messages, "Claude Haiku 4.5", 2000)
    with_tools = inspect_messages(loaded.messages, "Claude Haiku 4.5", 2000, tools=loaded.tools)
    assert with_tools.tool_tokens > 100
    assert [r.history_tokens - with_tools.tool_tokens for r in with_tools.growth.rows] == \
           [r.history_tokens for r in plain.growth.rows]
    assert [c.input_tokens for c in with_tools.costs] == [r.history_tokens for r in with_tools.growth.rows]


def test_a_paused_thread_and_another_state_key_through_the_command(tmp_path):
    from test_conversations import write_keyed_thread, write_paused_thread

    paused = tmp_path / "paused.sqlite"
    state = write_paused_thread(paused)
    done = run(str(paused), "--thread", "paused", "--model", "Claude Haiku 4.5", "--budget", "500")
    assert done.returncode == 0, done.stderr
    assert f"- {len(state.values['messages'])} messages;" in done.stdout and "waiting for their results" in done.stdout
    keyed = tmp_path / "keyed.sqlite"
    write_keyed_thread(keyed)
    code, out, err = command(str(keyed), "--thread", "notes", "--key", "history", "--model", "Claude Haiku 4.5",
                             "--budget", "500", "--quiet")
    assert code == 0 and "- 4 messages;" in out, err
    code, out, err = command(str(keyed), "--thread", "notes", "--model", "Claude Haiku 4.5", "--budget", "500")
    assert code == 3 and "--key" in err and "history" in err


def test_a_missing_thread_lists_them_and_list_threads_lists_all(thread):
    path, _ = thread
    code, out, err = command(str(path), "--model", "Claude Haiku 4.5", "--budget", "500")
    assert code == 3 and "'bob'" in err and "1 threads" in err
    code, out, err = command(str(path), "--list-threads", "--model", "Claude Haiku 4.5", "--budget", "1")
    assert code == 0 and "  bob: " in out


# --- images by the providers' rules, never base64 as text -------------------------------------------------

IMAGE = load_messages(SAMPLES / "image_message.openai.json")
OPENAI_EXACT = custom_model("an OpenAI model (o200k_base)", 128_000, input_price=2.0, output_price=8.0,
                            tokenizer="o200k_base", provider="OpenAI")


@pytest.mark.parametrize("model", ["Claude Haiku 4.5", OPENAI_EXACT, EXACT, "Gemini 3 Flash (preview)", "Llama 3 8B Instruct"],
                         ids=["Anthropic", "OpenAI exact", "unknown provider", "Google", "Meta"])
def test_a_30_kb_base64_image_counts_under_2000_tokens(model):
    data = IMAGE[0].content[1]["image_url"]["url"]
    assert len(data) > 30_000  # the base64 alone
    result = inspect_messages(IMAGE, model, 4000)
    assert result.message_tokens[0] < 2000
    assert len(result.media) == 1


def test_image_rules_are_the_providers_published_figures():
    import base64
    import io

    from PIL import Image

    from course_utils.inspect.media import image_tokens

    def block(width, height, **extra):
        buffer = io.BytesIO()
        Image.new("RGB", (width, height)).save(buffer, "PNG")
        return {"type": "image", "base64": base64.b64encode(buffer.getvalue()).decode(), **extra}

    # OpenAI's page: 1024 x 1024 high detail is 765 tokens; 2048 x 4096 is 1105; low detail 85
    assert image_tokens(block(1024, 1024), "OpenAI").tokens == 765
    assert image_tokens(block(2048, 4096), "OpenAI").tokens == 1105
    assert image_tokens(block(1024, 1024, detail="low"), "OpenAI").tokens == 85
    assert image_tokens(block(512, 512), "OpenAI").tokens == 255  # one tile: a small image is not scaled up
    # Anthropic's page: 1000 x 1000 is about 1,334 tokens; 1092 x 1092 (1.19 MP) is scaled to about 1,600
    assert image_tokens(block(1000, 1000), "Anthropic").tokens == 1334
    assert 1500 <= image_tokens(block(1092, 1092), "Anthropic").tokens <= 1600
    # Gemini's page: up to 384 x 384 is 258; larger in 768 x 768 tiles of 258
    assert image_tokens(block(300, 200), "Google").tokens == 258
    assert image_tokens(block(1000, 800), "Google").tokens == 258 * 4
    unknown = image_tokens({"type": "image", "url": "https://example.invalid/a.png"}, "OpenAI")
    assert unknown.tokens is None and "unknown" in unknown.reason


def test_an_image_the_export_does_not_hold_is_reported_as_not_counted():
    messages = load_messages(SAMPLES / "claude_ai_export.json", conversation="Photo spots")
    result = inspect_messages(messages, "Claude Haiku 4.5", 2000)
    assert [m.tokens for m in result.media] == [None]
    assert any("not counted" in line for line in summary_lines(result))


# --- secrets, the window, any model, small defects ---------------------------------------------------------

SECRET = "s3cr@t-Pa55"


@pytest.mark.parametrize("url", [f"postgresql://me:{SECRET}@127.0.0.1:1/app",
                                 f"postgresql://me@127.0.0.1:1/app?password={SECRET}&sslmode=disable"],
                         ids=["user:password@", "?password="])
@pytest.mark.parametrize("thread_args", [[], ["--thread", "bob"], ["--list-threads"]], ids=["no thread", "thread", "list"])
def test_no_output_ever_contains_the_password(url, thread_args):
    code, out, err = command(url, *thread_args, "--model", "Claude Haiku 4.5", "--budget", "100")
    assert code == 3, err
    assert SECRET not in out + err and "s3cr" not in out + err and "***" in err


def test_calls_over_the_window_are_reported_and_not_priced():
    result = inspect_messages(LONG * 60, EXACT, 2000)
    over = result.impossible_calls
    assert over and over[0].call == result.crossing.call and all(r.over_limit for r in over)
    assert len(result.costs) == result.calls - len(over)
    assert all(c.input_tokens <= 8192 for c in result.costs)
    sentence = summary_lines(result)[-1]
    assert f"The other {len(over):,} are over the model's window" in sentence and "not priced" in sentence


def test_any_model_with_a_window_and_prices(tmp_path):
    source = str(sample_file("openai"))
    code, out, err = command(source, "--model", "gpt-4o", "--budget", "500")
    assert code == 2 and "--window" in err and "--input-price" in err
    code, out, err = command(source, "--model", "gpt-4o", "--window", "128000", "--tokenizer", "o200k_base",
                             "--input-price", "2.5", "--output-price", "10", "--cached-input-price", "1.25",
                             "--budget", "500", "--quiet")
    assert code == 0, err
    assert "model gpt-4o" in out and "exact (o200k_base)" in out and "with caching" in out


def test_an_unwritable_report_fails_before_the_analysis(tmp_path):
    code, out, err = command(str(sample_file("openai")), "--model", "Claude Haiku 4.5", "--budget", "500",
                             "--out", str(tmp_path / "missing" / "r.html"))
    assert code == 4 and "does not exist" in err and "counting tokens" not in err and out == ""


def test_one_message_and_one_call_are_singular(tmp_path):
    path = tmp_path / "one.json"
    path.write_text(json.dumps([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]))
    code, out, err = command(str(path), "--model", "Claude Haiku 4.5", "--budget", "500", "--quiet")
    assert code == 0 and "- 2 messages;" in out and "1 model call;" in out and "1 model calls" not in out
    assert "Cost of the 1 call as recorded" in out


def test_direction_overrides_in_a_message_are_shown_not_obeyed(tmp_path):
    from langchain_core.messages import AIMessage, HumanMessage

    messages = [HumanMessage("invoice\u202egpj.exe " + "x" * 300), AIMessage("noted")]
    page = report_html(inspect_messages(messages, "Claude Haiku 4.5", 500), source="a.json", format="openai")
    assert "\u202e" not in page and "&lt;U+202E&gt;" in page
    assert "overflow-wrap:anywhere" in page  # a long unbroken preview wraps inside its column
