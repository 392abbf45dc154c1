"""How much explaining a trim costs: explain_trim time / trim_messages time.

Both run on the same 10,001-message history with the same counter and
arguments, side by side in one run, best of several repeats. Targets: the
report alone costs at most 1.5x a bare trim_messages call, and a full report
with every row's tokens read (what a table of all 10,001 rows costs) at most
1.2x. Exit code 1 if a target is missed.

The course's counters add up message by message, so explain_trim counts each
message once and serves trim_messages' prefix counts, and every row's
count, from those (``trimming._counted_once``). A counter that does not add
up keeps the plain path (the last case, printed for information only).

    python benchmarks/bench_trimming.py
"""

from __future__ import annotations

import sys
import time

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage, trim_messages

from course_utils.window.trimming import explain_trim, list_token_counter

TARGET = 1.5
TARGET_FULL = 1.2


def per_list_counter(messages) -> int:
    """A counter explain_trim cannot split per message (1 extra token per list)."""
    return 1 + sum(len(m.text) // 4 + 3 for m in messages) if messages else 0


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


def best_times(fns, repeats: int) -> list[float]:
    """Best wall time of each function, run in turn (interleaved, so a busy machine slows all alike)."""
    best = [float("inf")] * len(fns)
    for _ in range(repeats):
        for k, fn in enumerate(fns):
            start = time.perf_counter()
            fn()
            best[k] = min(best[k], time.perf_counter() - start)
    return best


def main() -> int:
    messages = long_history()
    failed = False
    cases = {
        "last, start_on=human, include_system": dict(strategy="last", start_on="human", include_system=True),
        "last, allow_partial, end_on=ai": dict(strategy="last", allow_partial=True, end_on="ai"),
        "first, end_on=human": dict(strategy="first", end_on="human"),
    }
    print(f"{len(messages):,} messages, best of 9 interleaved runs")
    runs = [(name, kwargs, "approximate", True) for name, kwargs in cases.items()]
    runs.append(("last, start_on=human (per-list counter)", cases["last, start_on=human, include_system"], per_list_counter, False))
    for name, kwargs, token_counter, judged in runs:
        kwargs = dict(max_tokens=2_000, token_counter=token_counter, **kwargs)
        report = explain_trim(messages, **kwargs)
        assert report.result == trim_messages(messages, **kwargs)
        plain_counter = list_token_counter(token_counter)
        assert [row.tokens for row in report.rows] == [plain_counter([m]) for m in messages]
        plain, explained, every_row = best_times(
            [
                lambda: trim_messages(messages, **kwargs),
                lambda: explain_trim(messages, **kwargs),
                lambda: [row.tokens for row in explain_trim(messages, **kwargs).rows],
            ],
            9,
        )
        ratio, full = explained / plain, every_row / plain
        ok = ratio <= TARGET and full <= TARGET_FULL
        if judged:
            failed |= not ok
        verdict = ("PASS" if ok else "FAIL") if judged else "info"
        print(
            f"  {name:40s} trim_messages {plain * 1000:7.1f} ms   explain_trim {explained * 1000:7.1f} ms"
            f"   ratio {ratio:4.2f} (<= {TARGET})   every row's tokens read: {every_row * 1000:7.1f} ms,"
            f" ratio {full:4.2f} (<= {TARGET_FULL})  {verdict}"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
