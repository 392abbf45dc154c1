"""The command: ``python -m course_utils.inspect SOURCE --model NAME --budget N [--thread ID] [--out report.html] [--no-text]``.

Prints a short summary and, with ``--out``, writes the HTML report. Progress
goes to stderr (a line per stage, with percentages on long threads), the
summary to stdout. Everything it prints or writes passes through one
redaction (``checkpoints.redact``), so a database URL's password never
appears. ``--format``, ``--conversation``, ``--key`` and ``--list-threads``
choose what is read; ``--window`` and the ``--*-price`` options describe a
model that ``models.json`` lacks. Exit codes (:data:`EXIT_CODES`):

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
import contextlib
import os
import sys
import time
from pathlib import Path
from typing import TextIO

from course_utils.agentic.checkpoints import redact
from course_utils.agentic.conversations import FORMATS, ConversationError, list_threads, load_conversation_source
from course_utils.core.i18n import _
from course_utils.inspect.analysis import custom_model, inspect_messages
from course_utils.inspect.report import PRIVACY, report_html, summary_lines
from course_utils.window.models import MODELS, ModelInfo

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
            "SOURCE shapes (recognised from the content, or named with --format): " + ", ".join(FORMATS[:-1]) +
            "; a ChatGPT export may be its conversations.json, the .zip as delivered or the unzipped folder; or a "
            "LangGraph checkpointer database: a SQLite file or sqlite:///path, or postgresql://user:pw@host/db, "
            f"with --thread (and --key).\n\nmodels (from models.json), or any name with --window:\n{models}"
            f"\n\nexit codes:\n{codes}"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("source", metavar="SOURCE", help="a JSON/JSONL file, an export .zip or folder, a SQLite checkpoint file, or a postgresql:// URL")
    parser.add_argument("--model", required=True, metavar="NAME", help="a model of models.json (case-insensitive), or any name with --window")
    parser.add_argument("--budget", required=True, type=_positive, metavar="N", help="the history budget in tokens (max_tokens of the trim)")
    parser.add_argument("--format", choices=FORMATS, help="the source's shape, when it cannot be recognised with certainty")
    parser.add_argument("--conversation", metavar="TITLE|ID|N", help="which conversation of an export (title or id) or which line of a log (number); default: the longest")
    parser.add_argument("--thread", metavar="ID", help="the thread id, for a checkpointer database")
    parser.add_argument("--key", default="messages", metavar="KEY", help="the state key that holds the thread's messages (default: messages)")
    parser.add_argument("--list-threads", action="store_true", help="list every thread of the checkpointer database and stop")
    parser.add_argument("--window", type=_positive, metavar="N", help="the model's context window in tokens (for a model models.json lacks, or to override it)")
    parser.add_argument("--tokenizer", default="approximate", metavar="NAME", help="for a model models.json lacks: cl100k_base, o200k_base, llama3 or approximate (default)")
    for name, what in (("input", "input"), ("output", "output"), ("cached-input", "cached input"), ("cache-write", "cache-write")):
        parser.add_argument(f"--{name}-price", type=_price, metavar="USD", help=f"{what} price in US dollars per million tokens")
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


def _price(value: str) -> float:
    try:
        number = float(value.lstrip("$"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a price in dollars per million tokens, e.g. 2.5, got {value!r}") from None
    if number < 0:
        raise argparse.ArgumentTypeError(f"must be a price >= 0, got {number}")
    return number


class _Redacted:
    """A stream that passes every line through the one redaction (``checkpoints.redact``): no password is ever printed."""

    def __init__(self, stream: TextIO):
        self.stream = stream

    def write(self, text: str) -> int:
        return self.stream.write(redact(text))

    def flush(self) -> None:
        self.stream.flush()


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


def _model(args: argparse.Namespace) -> ModelInfo | str:
    """The model: a row of models.json (by name or id), or one made from --window and the prices."""
    wanted = args.model.strip().lower()
    row = next((m for m in MODELS if wanted in {m.model.lower(), *(str(i).lower() for i in _ids(m))}), None)
    given = [args.window, args.input_price, args.output_price, args.cached_input_price, args.cache_write_price]
    if row is not None and all(v is None for v in given):
        return row
    if row is None and args.window is None:
        raise ValueError(
            f"--model {args.model!r} is not in models.json; choose one of: {', '.join(m.model for m in MODELS)}; "
            "or give its window (and prices) yourself: --window N [--input-price USD --output-price USD "
            "--cached-input-price USD --cache-write-price USD], per million tokens")
    base = row
    return custom_model(
        args.model.strip(), args.window or base.context_window,
        input_price=args.input_price if args.input_price is not None else (base.price_input if base else None),
        output_price=args.output_price if args.output_price is not None else (base.price_output if base else None),
        cached_input_price=args.cached_input_price if args.cached_input_price is not None else (
            base.price_cached_input if base else None),
        cache_write_price=args.cache_write_price if args.cache_write_price is not None else (
            base.price_cache_write if base else None),
        tokenizer=args.tokenizer, base=base)


def _ids(row: ModelInfo) -> list[str]:
    """The provider ids a models.json row may carry (e.g. "claude-haiku-4-5"), whatever the field is called."""
    ids = []
    for name in ("id", "model_id", "api_id", "ids", "aliases"):
        value = getattr(row, name, None)
        ids += value if isinstance(value, (list, tuple)) else [value] if isinstance(value, str) else []
    return ids


def _check_out(path: str) -> str | None:
    """Why the report cannot be written to ``path`` (checked before the analysis), or None."""
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        return "it is a folder"
    if not folder.is_dir():
        return f"the folder {folder} does not exist"
    if not os.access(folder, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        return "permission denied"
    return None


def _messages_word(count: int) -> str:
    return (_("1 message") if count == 1 else _("{count} messages").format(count=f"{count:,}"))


def _list_threads(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    try:
        threads = list_threads(args.source)
    except (ConversationError, ImportError, ValueError, TypeError) as exc:
        print(_("error: {message}").format(message=exc), file=stderr)
        return EXIT_SOURCE
    print(_("{count} threads, newest first (id: checkpoints):").format(count=f"{len(threads):,}"), file=stdout)
    for thread in threads:
        print(f"  {thread.thread_id}: {thread.checkpoints:,}", file=stdout)
    return EXIT_OK


def main(argv: list[str] | None = None, *, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run the command; return its exit code (see :data:`EXIT_CODES`)."""
    stdout = _Redacted(stdout or sys.stdout)
    stderr = _Redacted(stderr or sys.stderr)
    try:
        return _run(argv, stdout, stderr)
    except Exception:  # a bug: Python's traceback, through the same redaction
        import traceback

        print(traceback.format_exc(), file=stderr)
        return EXIT_BUG


def _run(argv: list[str] | None, stdout: TextIO, stderr: TextIO) -> int:
    parser = _parser()
    try:
        with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(stdout):
            args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse has printed its message
        return int(exc.code or 0)
    if args.list_threads:
        return _list_threads(args, stdout, stderr)
    try:
        model = _model(args)
    except ValueError as exc:
        print(f"error: {exc}", file=stderr)
        return EXIT_USAGE
    if args.out and _check_out(args.out):
        print(f"error: cannot write the report to {args.out}: {_check_out(args.out)}; "
              "give --out a file in a folder you can write to", file=stderr)
        return EXIT_OUTPUT
    progress = _Progress(None if args.quiet else stderr)
    progress("reading " + args.source, 0, 1)
    try:
        loaded = load_conversation_source(args.source, args.thread, fmt=args.format or "auto", key=args.key,
                                          conversation=args.conversation, progress=progress)
    except (ConversationError, ImportError) as exc:  # ImportError: the PostgreSQL packages, named with the fix
        print(_("error: {message}").format(message=exc), file=stderr)  # the message is in the course's language
        return EXIT_SOURCE
    progress(f"read {_messages_word(len(loaded.messages))} ({loaded.format})", 1, 1)
    inspection = inspect_messages(loaded.messages, model, args.budget, progress=progress, tools=loaded.tools)
    label = loaded.source if loaded.format == "checkpoint" and "://" in loaded.source else Path(loaded.source).name
    head = f"{label} ({loaded.format}" + (f", thread {loaded.thread_id}" if loaded.thread_id else "") + ")"
    print(_("Conversation: {source}; model {model}, budget {budget} tokens").format(
        source=head, model=inspection.model.model, budget=f"{args.budget:,}"), file=stdout)
    if loaded.note:
        print("- " + loaded.note, file=stdout)
    for line in summary_lines(inspection):
        print("- " + line, file=stdout)
    if args.out:
        progress("writing the report", 0, 1)
        page = report_html(inspection, source=label, format=loaded.format, thread=loaded.thread_id, text=not args.no_text,
                           note=loaded.note)
        try:
            Path(args.out).write_text(redact(page), encoding="utf-8")
        except OSError as exc:
            print(f"error: cannot write the report to {args.out}: {exc.strerror or exc}", file=stderr)
            return EXIT_OUTPUT
        progress("writing the report", 1, 1)
        print(f"Report: {args.out} ({len(page.encode('utf-8')) / 1024:,.0f} KiB)" + (", without message text" if args.no_text else ""), file=stdout)
    print(_("Nothing was sent anywhere."), file=stdout)
    return EXIT_OK


__all__ = ["EXIT_CODES", "main"]
