"""How much explaining a trim costs: explain_trim time / trim_messages time.

Both run on the same 10,000-message history with the same counter and
arguments, side by side in one run, best of several repeats. Target: the
ratio is at most 1.5 (explaining adds at most half again). Exit code 1 if a
target is missed.

A row counts its own tokens when first read, so the report is cheap until
it is shown. The last column reads every row's tokens too (what a table of
all 10,000 rows costs) and is printed for information: counting 10,000
messages one by one is ten thousand counter calls, whatever explains them.

    python benchmarks/bench_trimming.py
"""

from __future__ import annotations

import sys
import time

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage, trim_messages

from course_utils.trimming import explain_trim

TARGET = 1.5


def long_history(n: int = 10_000) -> list:
    """A system prompt then n messages of varied roles and lengths."""
    messages = [SystemMessage("You are a helpful travel assistant.")]
    for i in range(n):
        kind = i % 4
        if kind == 0:
            messages.append(HumanMessage(f"Question {i}: what about day {i % 30}?" + " more" * (i % 7), id=f"h{i}"))
        elif kind == 1:
            call = {"name": "search", "args": {"q": f"day {i}"}, "id": f"call{i}"}
            messages.append(AIMessage("", tool_calls=[call], id=f"c{i}"))
        elif kind == 2:
            messages.append(ToolMessage("result " * (5 + i % 11), tool_call_id=f"call{i - 1}", id=f"t{i}"))
        else:
            messages.append(AIMessage(f"Answer {i}: " + "details " * (3 + i % 13), id=f"a{i}"))
    return messages


def best_time(fn, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> int:
    messages = long_history()
    failed = False
    cases = {
        "last, start_on=human, include_system": dict(strategy="last", start_on="human", include_system=True),
        "last, allow_partial, end_on=ai": dict(strategy="last", allow_partial=True, end_on="ai"),
        "first, end_on=human": dict(strategy="first", end_on="human"),
    }
    print(f"{len(messages):,} messages, counter='approximate', best of 7")
    for name, kwargs in cases.items():
        kwargs = dict(max_tokens=2_000, token_counter="approximate", **kwargs)
        assert explain_trim(messages, **kwargs).result == trim_messages(messages, **kwargs)
        plain = best_time(lambda: trim_messages(messages, **kwargs), 7)
        explained = best_time(lambda: explain_trim(messages, **kwargs), 7)
        every_row = best_time(lambda: [row.tokens for row in explain_trim(messages, **kwargs).rows], 3)
        ratio = explained / plain
        ok = ratio <= TARGET
        failed |= not ok
        print(
            f"  {name:38s} trim_messages {plain * 1000:7.1f} ms   explain_trim {explained * 1000:7.1f} ms"
            f"   ratio {ratio:4.2f} (target <= {TARGET})  {'PASS' if ok else 'FAIL'}"
            f"   | reading all rows' tokens too: ratio {every_row / plain:4.2f}"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
