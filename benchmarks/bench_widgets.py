"""How long a TrimExplorer takes to react to the max_tokens slider, on the Python side.

A learner drags the slider; the kernel receives the new value, ``explain_trim``
runs ``trim_messages`` again, every row is explained and the HTML table is
rebuilt. This times exactly that, end to end (``explorer.max_tokens.value = v``
returns once the new HTML is in ``explorer.output.value``), on a 200-message
history with each token counter, best of several moves. Target: under 50 ms.
Exit code 1 if a case misses it.

The browser's own drawing is not included: it happens after the kernel has
sent the new value, and depends on the learner's machine.

    python benchmarks/bench_widgets.py
"""

from __future__ import annotations

import statistics
import sys
import time

from course_utils.samples import load_conversation
from course_utils.widgets import TrimExplorer

TARGET_MS = 50.0
MESSAGES = 200
MOVES = 30


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
    print("FAIL" if failed else "PASS")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
