"""Benchmark: exact token counting with and without the per-message cache.

A replay (lesson 01) counts the whole history again before every model call,
and trim_messages counts prefixes during its binary search, so the same
messages are counted over and over. This script replays a 1,000-message
history the way ``replay_growth`` does (one count of the growing history per
AI message, 500 counts in all) with a cached ``ExactTokenCounter`` and with
``ExactTokenCounter(cache=False)``, and checks the cache is at least 20x faster,
for cl100k_base and for o200k_base.

It also measures, in a fresh interpreter, how long ``import course_utils``
takes (target < 0.5 s) and that importing ``course_utils.window.tokens`` loads no
vocabulary (the first count does).

    python benchmarks/bench_tokens.py            # exit code 0 on PASS, 1 on FAIL

Each side runs a few times, in turn, with a fresh counter and the best time
is kept, so the cached figure includes filling the cache (1,000 encodings).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections.abc import Callable

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from course_utils.core.samples import load_conversation
from course_utils.window.tokens import ExactTokenCounter, tokenizer_status

TARGET_SPEEDUP = 20.0
TARGET_IMPORT_S = 0.5
ENCODINGS = ("cl100k_base", "o200k_base")

IMPORT_PROBE = """
import sys, time
start = time.perf_counter()
import {module}
elapsed = time.perf_counter() - start
import course_utils.window.tokens, course_utils.window.vocab as v
loaded = v._load_named_encoding.cache_info().currsize + v._load_bundled_encoding.cache_info().currsize
print(elapsed, loaded, "quicktok" in sys.modules)
"""


def import_time(module: str, repeats: int = 3) -> tuple[float, bool]:
    """Best time to import ``module`` in a fresh interpreter, and whether any vocabulary got loaded."""
    best, loaded_any = float("inf"), False
    for _ in range(repeats):
        out = subprocess.run(
            [sys.executable, "-c", IMPORT_PROBE.format(module=module)], capture_output=True, text=True, check=True
        ).stdout.split()
        best = min(best, float(out[0]))
        loaded_any |= out[1] != "0" or out[2] == "True"
    return best, loaded_any


def build_history(n_messages: int = 1000) -> list[BaseMessage]:
    """A system prompt and alternating human / AI messages, all distinct, with realistic text.

    The text comes from the long_chat sample (cycled), each message tagged with
    its turn number so no two messages are identical (identical messages would
    flatter the cache).
    """
    source = [m for m in load_conversation("long_chat") if not isinstance(m, SystemMessage)]
    history: list[BaseMessage] = [SystemMessage("You are a friendly, helpful assistant.")]
    for i in range(n_messages - 1):
        template = source[i % len(source)]
        cls = HumanMessage if i % 2 == 0 else AIMessage
        history.append(cls(f"(turn {i // 2 + 1}) {template.content}"))
    return history


def replay_counts(history: list[BaseMessage], counter: Callable[[list[BaseMessage]], int]) -> int:
    """Count the history before every AI message, as a replay does; return the cumulative total."""
    return sum(counter(history[:i]) for i, message in enumerate(history) if isinstance(message, AIMessage))


def best_times(encoding: str, history: list[BaseMessage], repeats: int) -> dict[bool, tuple[float, int, int]]:
    """Best wall time of a cached and an uncached counter (fresh each run, taken in turn), the total and the encodings.

    The two sides alternate, so a machine busy with something else slows both alike.
    """
    best: dict[bool, tuple[float, int, int]] = {True: (float("inf"), 0, 0), False: (float("inf"), 0, 0)}
    for _ in range(repeats):
        for cache in (True, False):
            counter = ExactTokenCounter(cache=cache, encoding=encoding)
            start = time.perf_counter()
            total = replay_counts(history, counter)
            elapsed = time.perf_counter() - start
            if elapsed < best[cache][0]:
                best[cache] = (elapsed, total, counter.encodings)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=1000, help="history length (default 1000)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per side; the best is kept (default 3)")
    args = parser.parse_args(argv)
    if args.messages < 2 or args.repeats < 1:
        parser.error("--messages must be >= 2 and --repeats >= 1")

    failed = False
    history = build_history(args.messages)
    calls = sum(isinstance(m, AIMessage) for m in history)
    print(f"history: {len(history)} messages, replayed as {calls} counts of the growing history")
    for encoding in ENCODINGS:
        status = tokenizer_status(encoding=encoding)
        print(f"\n{encoding}: {status.note}")
        if not status.exact_available:
            print(f"FAIL: exact {encoding} counting is unavailable, nothing to benchmark")
            failed = True
            continue
        times = best_times(encoding, history, args.repeats)
        (cached_s, cached_total, cached_enc), (uncached_s, uncached_total, uncached_enc) = times[True], times[False]
        if cached_total != uncached_total:
            print(f"FAIL: the counts differ (cached {cached_total}, uncached {uncached_total})")
            failed = True
            continue
        speedup = uncached_s / cached_s
        print(f"cumulative tokens counted: {cached_total:,}")
        print(f"without cache: {uncached_s * 1000:9.1f} ms  ({uncached_enc:,} encodings)")
        print(f"with cache:    {cached_s * 1000:9.1f} ms  ({cached_enc:,} encodings)")
        verdict = "PASS" if speedup >= TARGET_SPEEDUP else "FAIL"
        failed |= verdict == "FAIL"
        print(f"speed-up: {speedup:.1f}x (target >= {TARGET_SPEEDUP:.0f}x): {verdict}")

    print()
    package_s, package_loaded = import_time("course_utils")
    tokens_s, tokens_loaded = import_time("course_utils.window.tokens")
    verdict = "PASS" if package_s < TARGET_IMPORT_S and not (package_loaded or tokens_loaded) else "FAIL"
    failed |= verdict == "FAIL"
    print(f"import course_utils:        {package_s * 1000:7.1f} ms (target < {TARGET_IMPORT_S * 1000:.0f} ms)")
    print(f"import course_utils.window.tokens: {tokens_s * 1000:7.1f} ms (for information: mostly langchain_core)")
    print(f"vocabularies loaded by importing: {'some' if package_loaded or tokens_loaded else 'none'}: {verdict}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
