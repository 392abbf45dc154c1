"""The trim explorer's pictures: one row per message, kept / partial / dropped and why, at any length.

Moved out of ``render.py`` (which re-exports every name here, so
``from course_utils.pictures.render import trim_report_html`` still works).

A short report (at most :data:`FULL_ROWS` messages, as in every lesson) is
drawn whole: one row per message, every row visible on the page, no inner
scroll box. A long one (a learner's own thread of 10,000 messages) is drawn
so that it stays readable and small enough to redraw on every slider move:

- the rows around each change of status or reason (the cut) are drawn in
  full, :data:`CONTEXT_ROWS` on each side, and so are the first and last rows;
- every other run of rows with the same status and reason is one row that
  says so ("rows 1–1,850: 1,850 messages dropped, over budget"), with a
  ``<details>`` that opens to show its rows (at most ``run_rows`` of them in
  a live widget, 200 in the report of ``python -m course_utils.inspect``; the
  rest of a run is one line, since every row of a run has the same status and reason).

Every count a summary line states can be found in the table: visible rows
plus the ``data-count`` of collapsed runs, status by status.

>>> from langchain_core.messages import AIMessage, HumanMessage
>>> from course_utils.window.trimming import explain_trim
>>> from course_utils.window.tokens import dummy_token_counter   # 10 tokens a message
>>> report = explain_trim([HumanMessage("a"), AIMessage("b <c>")], max_tokens=10, token_counter=dummy_token_counter)
>>> html = trim_report_html(report)
>>> html.count('data-status="kept"'), 'b &lt;c&gt;' in html
(1, True)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from course_utils.core.i18n import direction, ngettext, translate
from course_utils.core.args import check_bool, check_instance, check_int, check_text
from course_utils.pictures.a11y import lang_attrs
from course_utils.core.style import LIMIT_COLOUR, STATUS_COLOURS
from course_utils.pictures.templates import Markup, render_template
from course_utils.window.tokens import check_messages, counter_name, message_text
from course_utils.window.trimming import NO_TRIM, STATUSES, TrimReport, TrimRow

# --- text ---------------------------------------------------------------------


#: Unicode's explicit direction controls: shown by name in a preview, never obeyed.
BIDI_CONTROLS = re.compile("[\u202a-\u202e]")  # embeddings and overrides; isolates stay (the Persian edition uses them)


def preview(text: str, width: int = 80) -> str:
    """``text`` on one line, at most ``width`` characters, ending in "…" when cut.

    Runs of whitespace (newlines too) become one space, so every row of a
    table has the same height.

    >>> preview("hello\\n  world", 20)
    'hello world'
    >>> preview("abcdefghij", 5)
    'abcd…'
    >>> preview("invoice\u202egpj.exe")
    'invoice<U+202E>gpj.exe'
    """
    check_text(text, "text")
    width = check_int(width, "width", minimum=1)
    line = re.sub(r"\s+", " ", text).strip()
    line = line if len(line) <= width else line[: width - 1] + "…"
    # a message's own embeddings and overrides (U+202A-U+202E) would reorder the table around it
    return BIDI_CONTROLS.sub(lambda m: f"<U+{ord(m.group()):04X}>", line)


def role_label(message: BaseMessage) -> str:
    """The message's role, plus which tool call it makes or answers.

    Tool calls are what ties a ToolMessage to its AIMessage, so the label
    shows them: a learner can check that no tool answer is kept alone.

    >>> from langchain_core.messages import AIMessage, ToolMessage
    >>> role_label(AIMessage("", tool_calls=[{"name": "weather", "args": {}, "id": "c1"}]))
    'ai → weather (c1)'
    >>> role_label(ToolMessage("sunny", tool_call_id="c1"))
    'tool ← c1'
    """
    if not isinstance(message, BaseMessage):
        raise TypeError(f"message must be a BaseMessage, got {type(message).__name__}: {message!r:.80}")
    if isinstance(message, AIMessage) and message.tool_calls:
        calls = ", ".join(f"{call['name']} ({call['id']})" for call in message.tool_calls)
        return f"ai → {calls}"
    if isinstance(message, ToolMessage):
        return f"tool ← {message.tool_call_id}"
    return message.type


# --- the trim report --------------------------------------------------------------


def token_bar_html(used: int, budget: int, total: int | None = None, *, label: str = "kept") -> str:
    """A horizontal bar: ``used`` tokens filled, a marker at ``budget``, on a scale up to ``total``.

    The scale is the largest of the three numbers, so the marker and the
    fill are always both visible. The fill turns red when ``used > budget``.

    >>> 'kept 60 of 100' in token_bar_html(60, 100, 200)
    True
    """
    used = check_int(used, "used")
    budget = check_int(budget, "budget")
    total = check_int(total, "total", none_ok=True)
    check_text(label, "label")
    scale = max(used, budget, total or 0, 1)
    over = used > budget
    fill = LIMIT_COLOUR if over else "#43a047"
    used_pct = 100 * used / scale
    budget_pct = 100 * budget / scale
    label = translate(label, "trim status")  # "kept" is a status word; any other label comes back as it is
    return render_template("token_bar.html.j2", label=label, used=used, budget=budget, total=total,
                           over=used - budget if over else None, fill=fill, used_pct=used_pct, budget_pct=budget_pct)


def _argument_text(key: str, value: Any) -> str:
    """One argument of the call, written the same way on every run.

    A function shows its name, as the learner imports it. Any other counter
    (a ``functools.partial``, an ``ExactTokenCounter``, a chat model) shows
    ``counter_name``'s short label: its repr would hold a memory address, a
    cache state or a model version, and change from run to run.
    """
    if callable(value) and isinstance(getattr(value, "__name__", None), str):
        return value.__name__
    if key == "token_counter" and not isinstance(value, str):
        return counter_name(value)
    if callable(value):
        return type(value).__name__
    return repr(value)


def _options_line(report: TrimReport) -> str:
    """The trim_messages call that produced ``report``, as the learner would type it."""
    if report.strategy == NO_TRIM:
        return translate("no trimming: every message is sent (limit {limit} tokens)").format(limit=report.max_tokens)
    parts = [f"{key}={_argument_text(key, value)}" for key, value in report.arguments.items()]
    return "trim_messages(messages, " + ", ".join(parts) + ")"


def message_ref(index: int, message: BaseMessage) -> str:
    """How the course names a message in every table and list: its ``id``, or ``[index]`` when it has none.

    The lessons' prose names messages by id (``at-13``), so the tables do
    too; a message without an id is named by its Python index in the input
    list (``messages[0]`` is ``[0]``), never by a second numbering.

    >>> from langchain_core.messages import HumanMessage
    >>> message_ref(12, HumanMessage("hi", id="at-13")), message_ref(0, HumanMessage("hi"))
    ('at-13', '[0]')
    """
    index = check_int(index, "index")
    if not isinstance(message, BaseMessage):
        raise TypeError(f"message must be a BaseMessage, got {type(message).__name__}: {message!r:.80}")
    return message.id if message.id else f"[{index}]"


# Column layout of the trim table. JupyterLab styles HTML outputs with
# ``.jp-RenderedHTMLCommon`` rules (``table-layout: fixed``, every cell
# ``text-align: right``): with a fixed layout the six columns share the width
# equally and a message wraps to five lines. Inline styles beat those rules;
# the ``width``/``valign`` attributes are for renderers that strip ``style``
# (GitHub keeps ``width``, ``align``, ``valign``, ``dir`` and ``lang``).
_CELL = "padding:3px 6px;vertical-align:top;text-align:start;line-height:1.35"
_TRIM_COLUMNS = (  # (header, width attribute, extra header style)
    ("id", None, "white-space:nowrap"),
    ("role", None, "min-width:4.5em"),
    ("message", "50%", "width:50%"),
    ("tokens", None, "white-space:nowrap"),
    ("status", None, "white-space:nowrap"),
    ("why", "22%", "width:22%;min-width:8em"),
)


#: A report with at most this many messages is drawn whole, one row each.
FULL_ROWS = 100
#: Rows drawn in full on each side of a change of status or reason (the cut), in a long report.
CONTEXT_ROWS = 6
#: Rows drawn inside one collapsed run when it is opened, in a live widget (half from each end).
RUN_ROWS = 40
#: What a message cell says when the report leaves message text out (``text=False``).
NO_TEXT = "(text left out)"


@dataclass(frozen=True)
class Segment:
    """A stretch of rows ``rows[start:stop]``: drawn in full, or collapsed into one row (one status and reason)."""

    start: int
    stop: int
    collapsed: bool
    status: str = ""
    reason: str = ""

    @property
    def count(self) -> int:
        return self.stop - self.start


def table_segments(rows: Sequence[TrimRow], *, full_rows: int = FULL_ROWS, context: int = CONTEXT_ROWS) -> list[Segment]:
    """Which rows a table draws in full and which runs it collapses.

    Up to ``full_rows`` rows: all in full. Beyond: the first row, the last
    ``context`` rows and ``context`` rows on each side of every change of
    status or reason are drawn; each stretch in between (all one status and
    reason, by construction) is collapsed, unless it is shorter than 3 rows.

    >>> from langchain_core.messages import HumanMessage
    >>> rows = [TrimRow(i, HumanMessage("x"), "dropped" if i < 190 else "kept", "r") for i in range(200)]
    >>> [(s.start, s.stop, s.collapsed) for s in table_segments(rows, context=2)]
    [(0, 1, False), (1, 188, True), (188, 192, False), (192, 198, True), (198, 200, False)]
    """
    n = len(rows)
    full_rows = check_int(full_rows, "full_rows")
    context = check_int(context, "context")
    if n <= full_rows:
        return [Segment(0, n, False)] if n else []
    shown = [False] * n
    for i in (0, *range(max(n - context, 0), n)):
        shown[i] = True
    for i in range(1, n):
        if (rows[i].status, rows[i].reason) != (rows[i - 1].status, rows[i - 1].reason):
            for j in range(max(i - context, 0), min(i + context, n)):
                shown[j] = True
    segments: list[Segment] = []
    i = 0
    while i < n:
        j = i
        while j < n and shown[j] == shown[i]:
            j += 1
        if not shown[i] and j - i < 3:  # a run of one or two rows is not worth a fold
            for k in range(i, j):
                shown[k] = True
            i = segments.pop().start if segments and not segments[-1].collapsed else i
            continue
        segments.append(Segment(i, j, not shown[i], rows[i].status if not shown[i] else "",
                                rows[i].reason if not shown[i] else ""))
        i = j
    return segments


def _message_cells(row: TrimRow, preview_chars: int, text: bool) -> Markup:
    """The id, role and message cells of a row: the part that depends only on the message."""
    shown = preview(message_text(row.message), preview_chars) if text else NO_TEXT
    return Markup(render_template(
        "trim_message_cells.html.j2", cell=_CELL, ref=message_ref(row.index, row.message),
        role=role_label(row.message), text=shown, lang=Markup(lang_attrs(shown)),
    ))


def _row(row: TrimRow, preview_chars: int, text: bool, cache: dict | None) -> dict[str, Any]:
    """What one ``<tr>`` shows. ``cache`` (a dict a widget keeps) remembers each message's cells between redraws."""
    key = (id(row.message), preview_chars, text)
    cells = None if cache is None else cache.get(key)
    if cells is None or cells[0] is not row.message:
        cells = (row.message, _message_cells(row, preview_chars, text))
        if cache is not None:
            cache[key] = cells
    accent, background = STATUS_COLOURS[row.status]
    tokens = f"{row.kept_tokens} of {row.tokens}" if row.status == "partial" else str(row.tokens)
    return {"run": False, "status": row.status, "index": row.index, "accent": accent, "background": background,
            "cells": cells[1], "tokens": tokens, "reason": row.reason}


def _run(rows: Sequence[TrimRow], segment: Segment, preview_chars: int, text: bool, cache: dict | None,
         run_rows: int | None) -> dict[str, Any]:
    """What a collapsed run shows: one row that states it, opening (``<details>``) onto its rows."""
    run = rows[segment.start:segment.stop]
    accent, background = STATUS_COLOURS[segment.status]
    tokens = sum(row.tokens for row in run)
    words = translate("rows {first:,}–{last:,} (indexes {start:,}–{stop:,}): {count:,} messages {status}, "
                      "{reason}; {tokens:,} tokens").format(
        first=segment.start + 1, last=segment.stop, start=run[0].index, stop=run[-1].index, count=segment.count,
        status=translate(segment.status, "trim status"), reason=segment.reason, tokens=tokens)
    if run_rows is None or segment.count <= run_rows:
        head, tail, left_out = run, [], 0
    else:
        half = run_rows // 2
        head, tail, left_out = run[:half], run[-half:], segment.count - 2 * half
    return {
        "run": True, "status": segment.status, "reason": segment.reason, "count": segment.count,
        "first": run[0].index, "last": run[-1].index, "accent": accent, "background": background, "words": words,
        "head": [_row(row, preview_chars, text, cache) for row in head],
        "tail": [_row(row, preview_chars, text, cache) for row in tail], "left_out": left_out,
    }


def trim_table_html(
    report: TrimReport,
    *,
    preview_chars: int = 80,
    text: bool = True,
    full_rows: int = FULL_ROWS,
    run_rows: int | None = None,
    cache: dict | None = None,
) -> str:
    """One table row per input message: id, role, preview, tokens, status, reason; long runs collapsed.

    The first column names each message by :func:`message_ref` (its id), the
    way the lessons' prose does. Each ``<tr>`` carries ``data-status`` and
    ``data-index`` (the Python index in the input list) so tests and browser
    scripts can read the picture without parsing colours. Beyond
    ``full_rows`` messages, runs away from the cut are collapsed
    (:func:`table_segments`); each collapsed row carries ``data-count`` and
    opens onto its rows (all of them, or ``run_rows`` when given).
    ``text=False`` leaves message text out (for a report to share).
    """
    check_instance(report, "report", TrimReport, "explain_trim")
    preview_chars = check_int(preview_chars, "preview_chars", minimum=1)
    text = check_bool(text, "text")
    run_rows = check_int(run_rows, "run_rows", minimum=2, none_ok=True)
    rows = report.rows
    body = []
    for segment in table_segments(rows, full_rows=full_rows):
        if segment.collapsed:
            body.append(_run(rows, segment, preview_chars, text, cache, run_rows))
        else:
            body.extend(_row(row, preview_chars, text, cache) for row in rows[segment.start:segment.stop])
    return render_template("trim_table.html.j2", cell=_CELL, columns=_TRIM_COLUMNS, body=body)


def messages_list_html(
    messages: Sequence[BaseMessage],
    *,
    preview_chars: int | None = 200,
    heading: str | None = None,
    max_items: int | None = None,
    text: bool = True,
) -> str:
    """A list of messages in order, one line per message (by default: what ``trim_messages`` returned).

    Each line names the message by its id (when it has one, as the trim
    table does), then its class, then its text (in its own
    direction), then the tool call it makes or answers, so a learner can
    compare it with ``print(trim_messages(...))``. ``preview_chars=None``
    shows every character; ``heading`` names the list (e.g. "sent to the model"; None: "trim_messages
    returned", in the course's language). The heading is the caller's text, shown as given: a caller writing
    for the Persian edition passes Persian (``translate("...")``). With the count it makes one line in the
    course's language: "trim_messages returned 5 messages:", in Persian "... (5 پیام):".
    ``max_items`` draws at most that many lines (half from each end, the
    number left out said between them); ``text=False`` leaves the text out.

    >>> from langchain_core.messages import HumanMessage
    >>> '>HumanMessage</code>' in messages_list_html([HumanMessage("hi")])
    True
    """
    messages = check_messages(messages)
    preview_chars = check_int(preview_chars, "preview_chars", minimum=1, none_ok=True)
    heading = translate("trim_messages returned") if heading is None else check_text(heading, "heading")
    max_items = check_int(max_items, "max_items", minimum=2, none_ok=True)
    text_shown = check_bool(text, "text")
    items = []
    drawn = list(enumerate(messages))
    if max_items is not None and len(messages) > max_items:
        drawn = drawn[: max_items // 2] + [(-1, None)] + drawn[len(messages) - max_items // 2:]
    for position, message in drawn:
        if message is None:
            items.append({"gap": len(messages) - 2 * (max_items // 2)})
            continue
        text = message_text(message) if text_shown else NO_TEXT
        if preview_chars is not None:
            text = preview(text, preview_chars)
        extra = ""
        if isinstance(message, AIMessage) and message.tool_calls:
            extra = " tool_calls=[" + ", ".join(f"{c['name']} ({c['id']})" for c in message.tool_calls) + "]"
        if isinstance(message, ToolMessage):
            extra = f" tool_call_id={message.tool_call_id!r}"
        items.append({"gap": 0, "id": message.id, "cls": type(message).__name__, "text": text,
                      "lang": Markup(lang_attrs(text)), "extra": extra})
    # The heading and the count as one line of the course's language; the list's indent on the side its bullets are.
    line = ngettext("{heading} {count} message:", "{heading} {count} messages:", len(messages)).format(
        heading=heading, count=len(messages))
    return render_template("messages_list.html.j2", heading=heading, line=line, count=len(messages), items=items,
                           indent="right" if direction() == "rtl" else "left")


def trim_report_html(
    report: TrimReport,
    *,
    preview_chars: int = 80,
    result_chars: int | None = 200,
    title: str | None = None,
    text: bool = True,
    full_rows: int = FULL_ROWS,
    run_rows: int | None = None,
    cache: dict | None = None,
) -> str:
    """The whole picture of one trim: the call, the token bar, the rows and the returned list.

    ``preview_chars`` cuts each row's text, ``result_chars`` each line of the
    returned list (None: the full text). A report longer than ``full_rows``
    collapses its long runs (:func:`trim_table_html`, ``run_rows``) and
    draws at most ``full_rows`` lines of the returned list; ``text=False``
    leaves message text out; ``cache`` lets a widget reuse rows between redraws.

    >>> from langchain_core.messages import HumanMessage
    >>> from course_utils.window.trimming import explain_trim
    >>> from course_utils.window.tokens import dummy_token_counter   # 10 tokens a message
    >>> r = explain_trim([HumanMessage("x"), HumanMessage("y"), HumanMessage("z")], max_tokens=20,
    ...                  token_counter=dummy_token_counter)
    >>> trim_report_html(r).count('data-status="dropped"')
    1
    """
    check_instance(report, "report", TrimReport, "explain_trim")
    check_text(title, "title", none_ok=True)
    # A report built by hand may hold a bad budget: name the report's field, not the bar's parameter.
    check_int(report.max_tokens, "report.max_tokens")
    check_int(report.result_tokens, "report.result_tokens")
    counts = {status: sum(row.status == status for row in report.rows) for status in STATUSES}
    summary = translate(", ", "list separator").join(f"{n} {translate(status, 'trim status')}" for status, n in counts.items())
    # Which note, if any: an untrimmed call over the limit, or a trim whose kept system message alone is over.
    over = None if not report.over_budget else "untrimmed" if report.strategy == NO_TRIM else "system"
    list_heading = translate("the model is sent") if report.strategy == NO_TRIM else translate("trim_messages returned")
    text = check_bool(text, "text")
    full_rows = check_int(full_rows, "full_rows")
    folded = [s for s in table_segments(report.rows, full_rows=full_rows) if s.collapsed]
    folds = None
    if folded:
        drawn = len(report.rows) - sum(s.count for s in folded)
        folds = {"drawn": drawn, "folded": len(report.rows) - drawn, "runs": len(folded)}
    max_items = full_rows if len(report.result) > full_rows else None
    bar = token_bar_html(report.result_tokens, report.max_tokens, report.total_tokens)
    table = trim_table_html(report, preview_chars=preview_chars, text=text, full_rows=full_rows, run_rows=run_rows,
                            cache=cache)
    result = messages_list_html(report.result, preview_chars=result_chars, heading=list_heading, max_items=max_items,
                                text=text)
    return render_template(
        "trim_report.html.j2", report=report, title=title, options=_options_line(report), summary=summary,
        over=over, folds=folds, bar=Markup(bar), table=Markup(table), result=Markup(result),
    )


def trim_region_html(inner: str, *, label: str) -> str:
    """The trim report in a named region the keyboard reaches (Tab), with every row on the page.

    No inner scroll box: a box of fixed height hid most rows behind a
    scrollbar Chromium does not draw until it is used (issue 20), while the
    summary line counted them. The table is short enough to show whole: a
    long conversation folds its runs (:func:`table_segments`). ``overflow-x``
    lets a very narrow screen scroll it sideways, with a scrollbar that shows.
    """
    check_text(inner, "inner")
    check_text(label, "label")
    return render_template("trim_region.html.j2", label=label, inner=Markup(inner))


__all__ = [
    "CONTEXT_ROWS", "FULL_ROWS", "NO_TEXT", "RUN_ROWS", "Segment",
    "message_ref", "messages_list_html", "preview", "role_label", "table_segments", "token_bar_html",
    "trim_region_html", "trim_report_html", "trim_table_html",
]
