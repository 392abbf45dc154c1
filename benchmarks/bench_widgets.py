"""How long a TrimExplorer takes to react to the max_tokens slider, on the Python side.

A learner drags the slider; the kernel receives the new value, ``explain_trim``
runs ``trim_messages`` again, every row is explained and the HTML table is
rebuilt. This times exactly that, end to end (``explorer.max_tokens.value = v``
returns once the new HTML is in ``explorer.output.value``), on a 200-message
history with each token counter, best of several moves. Target: under 50 ms.

Then the same on long threads (a learner's own conversation), median of the
moves, and the HTML each move sends to the browser (``output.value``, the
largest of the moves): targets 50 ms at 2,000 messages, 150 ms at 10,000,
and at most about 300 KiB of HTML per update at any length (a long table
folds its runs, see ``trim_view``). Exit code 1 if a case misses a target.

The browser's own drawing is not included: it happens after the kernel has
sent the new value, and depends on the learner's machine.

    python benchmarks/bench_widgets.py
"""

from __future__ import annotations

import os
import statistics
import sys
import time

from course_utils.core.samples import load_conversation
from course_utils.pictures.widgets import TrimExplorer

TARGET_MS = 50.0
MESSAGES = 200
MOVES = 30
#: Long threads: messages -> target median ms per move; and the most HTML one update may send.
LONG_TARGETS_MS = {200: 50.0, 2_000: 50.0, 10_000: 150.0}
LONG_MOVES = 8
MAX_KIB = 300.0


def history_of(n: int = MESSAGES) -> list:
    """n messages cut from the course's samples (English, Persian, Chinese, tool calls), fresh ids."""
    pool = []
    for name in ("long_chat", "agent_tools", "dialogue_fa", "dialogue_zh"):
        pool.extend(m for m in load_conversation(name) if m.type != "system")
    system = load_conversation("long_chat")[0]
    messages = [system]
    i = 0
    while len(messages) < n:
        message = pool[i % len(pool)]
        messages.append(message.model_copy(update={"id": f"bench-{len(messages)}"}))
        i += 1
    return messages


def time_moves(explorer: TrimExplorer, moves: int = MOVES) -> list[float]:
    """Move the slider to ``moves`` different values; return each update's time in ms."""
    top = explorer.max_tokens.max
    values = [top * (k % 10 + 1) // 12 for k in range(moves)]  # spread over the range, never twice in a row
    times = []
    for value in values:
        start = time.perf_counter()
        explorer.max_tokens.value = value
        times.append((time.perf_counter() - start) * 1000)
        assert explorer.report is not None and explorer.report.max_tokens == value, explorer.error
    return times


def main() -> int:
    messages = history_of()
    cases = {
        "approximate": dict(token_counter="approximate"),
        "exact": dict(token_counter="exact"),
        "dummy": dict(token_counter="dummy"),
        "approximate, start_on=human, include_system": dict(start_on="human", include_system=True),
        "exact, allow_partial, end_on=ai": dict(token_counter="exact", allow_partial=True, end_on="ai"),
        "first, end_on=human": dict(strategy="first", end_on="human"),
    }
    print(f"TrimExplorer: one max_tokens move on {len(messages)} messages (Python side), {MOVES} moves per case")
    print(f"{'case':48} {'best ms':>8} {'median ms':>10}  target {TARGET_MS:.0f} ms")
    failed = False
    for name, options in cases.items():
        explorer = TrimExplorer(messages, **options)
        time_moves(explorer, 3)  # warm-up: first counts fill the exact counter's cache, as in a lesson
        times = time_moves(explorer)
        best, median = min(times), statistics.median(times)
        verdict = "PASS" if best < TARGET_MS else "FAIL"
        failed |= verdict == "FAIL"
        print(f"{name:48} {best:8.1f} {median:10.1f}  {verdict}")
    print()
    print(f"TrimExplorer on long threads (approximate counter), {LONG_MOVES} moves: median time, largest HTML per update")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores: judged on CPU time (time.process_time), "
          "since wall time on a shared machine includes waiting for a core; both printed")
    print(f"{'messages':>9} {'wall ms':>8} {'CPU ms':>7} {'target':>7} {'KiB':>6} {'target':>7}")
    for n, target in LONG_TARGETS_MS.items():
        explorer = TrimExplorer(history_of(n))
        time_moves(explorer, 3)
        times, cpu, sizes = [], [], []
        top = explorer.max_tokens.max
        for k in range(LONG_MOVES):
            value = top * (k % 10 + 1) // 12
            start, start_cpu = time.perf_counter(), time.process_time()
            explorer.max_tokens.value = value
            times.append((time.perf_counter() - start) * 1000)
            cpu.append((time.process_time() - start_cpu) * 1000)
            sizes.append(len(explorer.output.value.encode("utf-8")) / 1024)
        median, median_cpu, size = statistics.median(times), statistics.median(cpu), max(sizes)
        verdict = "PASS" if median_cpu < target and size <= MAX_KIB else "FAIL"
        failed |= verdict == "FAIL"
        print(f"{n:>9,} {median:8.1f} {median_cpu:7.1f} {target:7.0f} {size:6.0f} {MAX_KIB:7.0f}  {verdict}")
    print("FAIL" if failed else "PASS")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
