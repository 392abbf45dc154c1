"""How ``python -m course_utils.inspect`` grows with the thread: time per message at 10k, 100k and 300k messages.

Threads of the course's samples repeated (English, Persian, Chinese, tool
calls; about half the messages are model calls) are written as OpenAI-style
JSONL, then the command runs on each end to end, once, in a fresh process
(imports, reading, counting, the replay, the trim, pricing, the HTML report)
with "Claude Haiku 4.5" (approximate counter, prompt caching priced). It
prints the CPU time of that process per message: the inspection is linear
(cumulative counts, no history copied per call), so the figure should stay
flat from 10k to 300k. The fixed start-up (imports; measured on a
100-message thread) is taken off before dividing, so the "net" column is
the work per message. Targets: the 300k thread in under 60 s of CPU, and the
net time per message at 300k at most 1.5 times that at 10k. CPU time, not wall time: on a shared machine the wall time
mostly measures the wait for a core (both are printed, with the load).

Then, in this process, every figure the command reports for the 10k thread
is checked against the course's functions called the plain way (kept at the
budget against ``trim_messages``, tokens against the counter, 50 calls'
histories against the counter over that history, the cost of the first 150
calls against ``costs.bill``). Exit code 1 if a target or a check fails.

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

from langchain_core.messages import convert_to_openai_messages, trim_messages

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_widgets import history_of  # noqa: E402

from course_utils.agentic.conversations import load_messages  # noqa: E402
from course_utils.window.costs import Call, bill  # noqa: E402
from course_utils.inspect import inspect_messages  # noqa: E402

SIZES = (10_000, 100_000, 300_000)
TARGET_S = 60.0  #: CPU seconds for the largest thread
FLAT = 1.5  #: the largest thread's time per message over the smallest's, at most
BUDGET = 50_000
MODEL = "Claude Haiku 4.5"


def write_thread(folder: Path, n: int) -> Path:
    path = folder / f"thread-{n}.jsonl"
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
    print(f"python -m course_utils.inspect, model {MODEL}, budget {BUDGET:,}, --out report.html; one run per size")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (the verdict uses CPU time)")
    per_message = {}
    with tempfile.TemporaryDirectory() as folder:
        tiny = write_thread(Path(folder), 100)
        _wall, start_up, _code, _output = run_command(tiny, MODEL, Path(folder) / "tiny.html")
        print(f"start-up (imports, a 100-message thread): {start_up:.1f} s of CPU, taken off the per-message figure")
        print(f"{'messages':>9} {'calls':>8} {'wall s':>7} {'CPU s':>7} {'CPU µs/message':>15} {'net µs/message':>15} "
              f"{'report KiB':>11}")
        for n in SIZES:
            path = write_thread(Path(folder), n)
            calls = sum(1 for line in path.open(encoding="utf-8") if '"role": "assistant"' in line)
            out = Path(folder) / f"report-{n}.html"
            wall, cpu, code, output = run_command(path, MODEL, out)
            size = out.stat().st_size / 1024 if out.exists() else 0
            per_message[n] = max(cpu - start_up, 0.0) / n
            print(f"{n:9,} {calls:8,} {wall:7.1f} {cpu:7.1f} {1e6 * cpu / n:15.1f} {1e6 * per_message[n]:15.1f} {size:11,.0f}"
                  + ("" if code == 0 else f"  exit {code}: {output[-300:]}"))
            failed |= code != 0
            path.unlink()
        ratio = per_message[SIZES[-1]] / per_message[SIZES[0]]
        big_cpu = per_message[SIZES[-1]] * SIZES[-1] + start_up
        print(f"net time per message at {SIZES[-1]:,} / at {SIZES[0]:,}: {ratio:.2f} (at most {FLAT}); "
              f"{SIZES[-1]:,} messages in {big_cpu:.1f} s of CPU (under {TARGET_S:.0f} s)")
        failed |= ratio > FLAT or big_cpu > TARGET_S
        messages = load_messages(write_thread(Path(folder), SIZES[0]))
        start = time.perf_counter()
        failures = check_figures(messages, MODEL)
        print(f"figures at {SIZES[0]:,} messages: " + ("all equal to the course's functions" if not failures
                                                      else "; ".join(failures))
              + f" (checked in {time.perf_counter() - start:.1f} s)")
        failed |= bool(failures)
    print("FAIL" if failed else "PASS")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
