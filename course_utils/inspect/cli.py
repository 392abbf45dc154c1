"""The command: ``python -m course_utils.inspect SOURCE --model NAME --budget N [--thread ID] [--out report.html] [--no-text]``.

Prints a short summary and, with ``--out``, writes the HTML report. Progress
goes to stderr (a line per stage, with percentages on long threads), the
summary to stdout. Exit codes (:data:`EXIT_CODES`):

- 0: done;
- 1: an unexpected error (Python's own code for an uncaught exception: a bug);
- 2: the command line is wrong (an unknown model, a budget that is not a
  positive whole number, a missing option): argparse's own code;
- 3: the source cannot be read as a conversation (its message says where,
  what and the fix);
- 4: the report cannot be written.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TextIO

from course_utils.agentic.conversations import ConversationError, load_conversation_source
from course_utils.core.i18n import _
from course_utils.inspect.analysis import inspect_messages
from course_utils.inspect.report import PRIVACY, report_html, summary_lines
from course_utils.window.models import MODELS

EXIT_OK, EXIT_BUG, EXIT_USAGE, EXIT_SOURCE, EXIT_OUTPUT = 0, 1, 2, 3, 4
EXIT_CODES = {
    EXIT_OK: "done",
    EXIT_BUG: "an unexpected error, with Python's traceback (please report it)",
    EXIT_USAGE: "the command line is wrong (unknown model, bad budget, missing option)",
    EXIT_SOURCE: "the source cannot be read as a conversation (the message says where, what and the fix)",
    EXIT_OUTPUT: "the report cannot be written",
}


def _parser() -> argparse.ArgumentParser:
    codes = "\n".join(f"  {code}  {meaning}" for code, meaning in EXIT_CODES.items())
    models = "\n".join(f"  {m.model}" for m in MODELS)
    parser = argparse.ArgumentParser(
        prog="python -m course_utils.inspect",
        description=(
            "Inspect a conversation of your own: tokens by role, growth per model call and where it crosses the "
            "model's context window, what trim_messages keeps at your budget, and the cost per call with and "
            "without prompt caching.\n\nPrivacy: " + PRIVACY
        ),
        epilog=(
            "SOURCE formats: OpenAI-style messages (JSON list, {\"messages\": [...]}, or JSONL), Anthropic-style "
            "content blocks (tool_use / tool_result), LangChain message dumps (messages_to_dict or dumpd), or a "
            "LangGraph checkpointer database: a SQLite file or sqlite:///path, or postgresql://user:pw@host/db, "
            f"with --thread.\n\nmodels (from models.json):\n{models}\n\nexit codes:\n{codes}"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("source", metavar="SOURCE", help="a JSON/JSONL file, a SQLite checkpoint file, or a postgresql:// URL")
    parser.add_argument("--model", required=True, metavar="NAME", help="a model named in models.json (case-insensitive)")
    parser.add_argument("--budget", required=True, type=_positive, metavar="N", help="the history budget in tokens (max_tokens of the trim)")
    parser.add_argument("--thread", metavar="ID", help="the thread id, for a checkpointer database")
    parser.add_argument("--out", metavar="report.html", help="write the HTML report here")
    parser.add_argument("--no-text", action="store_true", help="leave message text out of the report, for sharing")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    return parser


def _positive(value: str) -> int:
    try:
        number = int(value.replace(",", "").replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number of tokens, got {value!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1 token, got {number}")
    return number


class _Progress:
    """A line per stage on ``stream``, with a percentage every 5% of a long stage."""

    def __init__(self, stream: TextIO | None):
        self.stream, self.start, self.last = stream, time.perf_counter(), None

    def __call__(self, stage: str, done: int, total: int) -> None:
        if self.stream is None:
            return
        if total > 1000 or done in (0, total):
            share = f" {100 * done // max(total, 1)}%" if total > 1 else (" done" if done else "")
            line = f"[{time.perf_counter() - self.start:5.1f} s] {stage}{share}"
            if line != self.last:
                print(line, file=self.stream, flush=True)
                self.last = line


def main(argv: list[str] | None = None, *, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run the command; return its exit code (see :data:`EXIT_CODES`)."""
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse has printed its message
        return int(exc.code or 0)
    names = {m.model.lower() for m in MODELS}
    if args.model.strip().lower() not in names:
        print(f"error: --model {args.model!r} is not in models.json; choose one of: "
              + ", ".join(m.model for m in MODELS), file=stderr)
        return EXIT_USAGE
    progress = _Progress(None if args.quiet else stderr)
    progress("reading " + args.source.split("@")[-1], 0, 1)
    try:
        loaded = load_conversation_source(args.source, args.thread)
    except (ConversationError, ImportError) as exc:  # ImportError: the PostgreSQL packages, named with the fix
        print(_("error: {message}").format(message=exc), file=stderr)  # the message is in the course's language
        return EXIT_SOURCE
    progress(f"read {len(loaded.messages):,} messages ({loaded.format})", 1, 1)
    inspection = inspect_messages(loaded.messages, args.model, args.budget, progress=progress)
    label = loaded.source if loaded.format == "checkpoint" and "://" in loaded.source else Path(loaded.source).name
    head = f"{label} ({loaded.format}" + (f", thread {loaded.thread_id}" if loaded.thread_id else "") + ")"
    print(_("Conversation: {source}; model {model}, budget {budget} tokens").format(
        source=head, model=inspection.model.model, budget=f"{args.budget:,}"), file=stdout)
    for line in summary_lines(inspection):
        print("- " + line, file=stdout)
    if args.out:
        progress("writing the report", 0, 1)
        page = report_html(inspection, source=label, format=loaded.format, thread=loaded.thread_id, text=not args.no_text)
        try:
            Path(args.out).write_text(page, encoding="utf-8")
        except OSError as exc:
            print(f"error: cannot write the report to {args.out}: {exc.strerror or exc}", file=stderr)
            return EXIT_OUTPUT
        progress("writing the report", 1, 1)
        print(f"Report: {args.out} ({len(page.encode('utf-8')) / 1024:,.0f} KiB)" + (", without message text" if args.no_text else ""), file=stdout)
    print(_("Nothing was sent anywhere."), file=stdout)
    return EXIT_OK


__all__ = ["EXIT_CODES", "main"]
