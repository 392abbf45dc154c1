"""How long ``python -m course_utils.inspect`` takes on a long thread, and whether its figures are the course's.

A 10,000-message thread (the course's samples repeated: English, Persian,
Chinese, tool calls; about 5,000 model calls) is written as OpenAI-style
JSONL, then the command runs on it end to end in a fresh process (imports,
reading, counting, replay, trim, pricing, the HTML report), once per model:

- "Claude Haiku 4.5": approximate counter (Anthropic publishes no tokenizer), prompt caching priced;
- "GPT-4 (original)": the exact cl100k_base counter, no caching.

Target: under 10 s each on this machine, judged on the process's CPU time
(user + system), printed with the wall time and the load average: on a
shared machine the wall time mostly measures the wait for a core. Then, in this process, every
figure the command reports is checked against the course's own functions
called the plain way: the kept messages against ``trim_messages`` with the
same arguments, token totals and by role against the counter, the history
of 50 calls spread over the replay against the counter over that history,
and (for the model with caching) the total cost against ``costs.bill`` over
every call with per-message keys, on the first 150 calls (``bill`` compares
each call with every earlier one, so the whole thread would take minutes).
Exit code 1 if a target or a check fails.

    python benchmarks/bench_inspect.py
"""

from __future__ import annotations

import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from langchain_core.messages import AIMessage, convert_to_openai_messages, trim_messages

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_widgets import history_of  # noqa: E402

from course_utils.agentic.conversations import load_messages  # noqa: E402
from course_utils.window.costs import Call, bill  # noqa: E402
from course_utils.inspect import inspect_messages  # noqa: E402

MESSAGES = 10_000
TARGET_S = 10.0
BUDGET = 50_000
MODELS = ("Claude Haiku 4.5", "GPT-4 (original)")


def write_thread(folder: Path, n: int = MESSAGES) -> Path:
    path = folder / "thread.jsonl"
    records = convert_to_openai_messages(history_of(n))
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def run_command(path: Path, model: str, out: Path) -> tuple[float, float, int, str]:
    """Run the command in a fresh process: (wall seconds, CPU seconds of that process, exit code, its output)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parents[1]), os.environ.get("PYTHONPATH", "")])}
    start, cpu = time.perf_counter(), _children_cpu()
    done = subprocess.run(
        [sys.executable, "-m", "course_utils.inspect", str(path), "--model", model, "--budget", str(BUDGET),
         "--out", str(out), "--quiet"],
        capture_output=True, text=True, env=env,
    )
    return time.perf_counter() - start, _children_cpu() - cpu, done.returncode, done.stdout + done.stderr


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def check_figures(messages: list, model: str) -> list[str]:
    """Every figure of the inspection against the course's functions called plainly; the failures."""
    result = inspect_messages(messages, model, BUDGET)
    counter = result.counter.counter
    failures = []
    if result.trim.result != trim_messages(messages, **result.trim_kwargs):
        failures.append("kept at budget differs from trim_messages")
    if result.total_tokens != counter(messages):
        failures.append("total tokens differ from the counter")
    for role, tokens in result.tokens_by_role.items():
        if tokens != counter([m for m in messages if m.type == role]):
            failures.append(f"{role} tokens differ from the counter")
    rows = result.growth.rows
    for row in rows[:: max(len(rows) // 50, 1)]:
        if row.history_tokens != counter(messages[: row.ai_index]):
            failures.append(f"call {row.call}: history tokens differ from the counter")
    if result.costs and result.model.price_cached_input is not None:
        first = rows[:150]
        calls = [
            Call("turn", tuple(str(id(m)) for m in messages[: r.ai_index]),
                 tuple(counter([m]) for m in messages[: r.ai_index]),
                 output_tokens=counter([messages[r.ai_index]]))
            for r in first
        ]
        # per-message counts add up to the history count only up to the list's fixed extra; the approximate
        # counter (this model's) adds nothing, so per-message keys give the same input tokens
        plain = bill(calls, result.model.prices, caching=True).cost
        ours = sum(c.cost for c in result.costs[:150])
        if not math.isclose(plain, ours, rel_tol=1e-9, abs_tol=1e-12):
            failures.append(f"cost of the first 150 calls: {ours} here, {plain} from costs.bill")
    return failures


def main() -> int:
    failed = False
    with tempfile.TemporaryDirectory() as folder:
        path = write_thread(Path(folder))
        messages = load_messages(path)
        calls = sum(isinstance(m, AIMessage) for m in messages)
        print(f"python -m course_utils.inspect on {len(messages):,} messages ({calls:,} model calls), budget {BUDGET:,}")
        load = os.getloadavg()[0]
        print(f"load average {load:.1f} on {os.cpu_count()} cores: wall time waits for the CPU when the machine is "
              "shared, so the target is judged on the process's own CPU time (both printed)")
        print(f"{'model':24} {'wall s':>7} {'CPU s':>6} {'report KiB':>11}  target {TARGET_S:.0f} s")
        for model in MODELS:
            out = Path(folder) / "report.html"
            wall, cpu, code, output = run_command(path, model, out)
            size = out.stat().st_size / 1024 if out.exists() else 0
            verdict = "PASS" if code == 0 and cpu < TARGET_S else "FAIL"
            failed |= verdict == "FAIL"
            print(f"{model:24} {wall:7.2f} {cpu:6.2f} {size:11,.0f}  {verdict}"
                  + ("" if code == 0 else f"  exit {code}: {output[-300:]}"))
        for model in MODELS:
            start = time.perf_counter()
            failures = check_figures(messages, model)
            print(f"figures for {model}: " + ("all equal to the course's functions" if not failures else "; ".join(failures))
                  + f" (checked in {time.perf_counter() - start:.1f} s)")
            failed |= bool(failures)
    print("FAIL" if failed else "PASS")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
