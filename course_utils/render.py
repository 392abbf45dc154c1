"""HTML pictures of the course's results (lessons 01-04): pure functions, strings out.

Every function here takes a result computed elsewhere (a ``TrimReport`` from
``trimming.py``, a ``BudgetWorking`` from ``budget.py``, a ``GrowthReport``
from ``growth.py``) and returns one HTML string (lesson 05's tables of
model limits and strategies' costs are plain text, for ``print``). Nothing is computed twice
and nothing is displayed: the widgets put these strings into an
``ipywidgets.HTML``, a stored notebook keeps them as ``text/html``, and a
test can read them with a regular expression.

The HTML is meant to read well anywhere, including GitHub and nbconvert:

- inline styles only (no CSS classes needed, no scripts, no web fonts);
- every piece of message text goes through :func:`html.escape`;
- every cell holding message text has ``dir="auto"``, so Persian (or any
  right-to-left script) is laid out right to left and Chinese or English
  left to right, each by its own first strong character; Persian also gets
  ``lang="fa" dir="rtl"``, Chinese ``lang="zh"`` (``a11y.lang_attrs``);
- status is written out in words as well as in colour ("kept", "partial",
  "dropped"), so a printed handout or a colour-blind reader loses nothing.

>>> from langchain_core.messages import AIMessage, HumanMessage
>>> from course_utils.trimming import explain_trim
>>> from course_utils.tokens import dummy_token_counter   # 10 tokens a message
>>> report = explain_trim([HumanMessage("a"), AIMessage("b <c>")], max_tokens=10, token_counter=dummy_token_counter)
>>> html = trim_report_html(report)
>>> html.count('data-status="kept"'), 'b &lt;c&gt;' in html
(1, True)
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from course_utils._args import check_instance, check_int, check_text
from course_utils.a11y import lang_attrs, scroll_region_html, with_word
from course_utils.budget import BudgetWorking
from course_utils.growth import GrowthReport
from course_utils.style import FONT, LIMIT_BACKGROUND, LIMIT_COLOUR, MONO, NEUTRAL, PART_COLOURS, STATUS_COLOURS
from course_utils.tokens import TokenSplit, check_messages, counter_name, message_text
from course_utils.trimming import NO_TRIM, STATUSES, TrimReport

__all__ = [
    "COUNTER_LABELS",
    "preview", "role_label", "message_ref", "token_bar_html", "trim_table_html", "messages_list_html", "trim_report_html",
    "error_html", "budget_working_html", "budget_bar_html", "growth_table_html", "growth_turn_html",
    "image_html", "limits_table", "token_split_html", "token_comparison_html", "scroll_region_html",
]

#: How a table caption names the course's counters.
COUNTER_LABELS = {
    "exact": "exact counter (cl100k_base)",
    "approximate": "approximate counter (about 4 characters a token)",
    "dummy": "the reference page's dummy counter (10 tokens a message)",
    "cl100k_base": "exact counter (cl100k_base)",
    "o200k_base": "exact counter (o200k_base)",
    "llama3": "exact counter (llama3)",
}


# --- text ---------------------------------------------------------------------


def preview(text: str, width: int = 80) -> str:
    """``text`` on one line, at most ``width`` characters, ending in "…" when cut.

    Runs of whitespace (newlines too) become one space, so every row of a
    table has the same height.

    >>> preview("hello\\n  world", 20)
    'hello world'
    >>> preview("abcdefghij", 5)
    'abcd…'
    """
    check_text(text, "text")
    width = check_int(width, "width", minimum=1)
    line = re.sub(r"\s+", " ", text).strip()
    return line if len(line) <= width else line[: width - 1] + "…"


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


def _text_cell(text: str, style: str = "") -> str:
    """A table cell with message text: escaped, in its own language and its own script's direction."""
    return f'<td{lang_attrs(text)} style="padding:3px 6px;{style}">{html.escape(text)}</td>'


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
    words = f"{html.escape(label)} {used} of {budget} tokens"
    if total is not None:
        words += f" (all messages: {total})"
    if over:
        words += f": {used - budget} over"
    return (
        f'<div class="token-bar" data-used="{used}" data-budget="{budget}" style="margin:6px 0;{FONT}">'
        f'<div style="font-size:90%;margin-bottom:2px">{words}</div>'
        f'<div style="position:relative;height:14px;background:#eeeeee;border-radius:3px;width:100%">'
        f'<div style="position:absolute;left:0;top:0;bottom:0;width:{used_pct:.2f}%;background:{fill};border-radius:3px"></div>'
        f'<div title="budget: {budget}" style="position:absolute;top:-3px;bottom:-3px;left:{budget_pct:.2f}%;'
        f'border-left:3px solid #212121"></div>'
        f"</div></div>"
    )


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
        return f"no trimming: every message is sent (limit {report.max_tokens} tokens)"
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


def trim_table_html(report: TrimReport, *, preview_chars: int = 80) -> str:
    """One table row per input message: id, role, preview, tokens, status, reason.

    The first column names each message by :func:`message_ref` (its id), the
    way the lessons' prose does. Each ``<tr>`` carries ``data-status`` and
    ``data-index`` (the Python index in the input list) so tests and browser
    scripts can read the picture without parsing colours.
    """
    check_instance(report, "report", TrimReport, "explain_trim")
    preview_chars = check_int(preview_chars, "preview_chars", minimum=1)
    head = "".join(
        f"<th{'' if width is None else f' width={width!r}'} "
        f'style="{_CELL};border-bottom:2px solid {NEUTRAL};{extra}">{name}</th>'
        for name, width, extra in _TRIM_COLUMNS
    )
    body = []
    for row in report.rows:
        accent, background = STATUS_COLOURS[row.status]
        text = preview(message_text(row.message), preview_chars)
        tokens = f"{row.kept_tokens} of {row.tokens}" if row.status == "partial" else str(row.tokens)
        muted = "color:#757575;" if row.status == "dropped" else ""
        body.append(
            f'<tr class="trim-row" data-status="{row.status}" data-index="{row.index}" '
            f'style="background:{background};border-left:5px solid {accent};{muted}">'
            f'<td valign="top" style="{_CELL};white-space:nowrap;{MONO};font-size:92%">'
            f"{html.escape(message_ref(row.index, row.message))}</td>"
            f'<td valign="top" style="{_CELL};min-width:4.5em;max-width:16em">{html.escape(role_label(row.message))}</td>'
            f'{_text_cell(text, f"{_CELL};width:50%")}'
            f'<td valign="top" align="right" style="{_CELL};text-align:right;white-space:nowrap">{tokens}</td>'
            f'<td valign="top" style="{_CELL};font-weight:bold;color:{accent};white-space:nowrap">{row.status}</td>'
            f'<td valign="top" style="{_CELL};min-width:8em">{html.escape(row.reason)}</td>'
            f"</tr>"
        )
    return (
        f'<table class="trim-table" width="100%" style="border-collapse:collapse;table-layout:auto;width:100%;'
        f'margin:0;font-size:90%;{FONT}">'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


def messages_list_html(
    messages: Sequence[BaseMessage], *, preview_chars: int | None = 200, heading: str = "trim_messages returned"
) -> str:
    """A list of messages in order, one line per message (by default: what ``trim_messages`` returned).

    Each line names the message by its id (when it has one, as the trim
    table does), then its class, then its text (in its own
    direction), then the tool call it makes or answers, so a learner can
    compare it with ``print(trim_messages(...))``. ``preview_chars=None``
    shows every character; ``heading`` names the list (e.g. "sent to the model").

    >>> from langchain_core.messages import HumanMessage
    >>> '>HumanMessage</code>' in messages_list_html([HumanMessage("hi")])
    True
    """
    messages = check_messages(messages)
    preview_chars = check_int(preview_chars, "preview_chars", minimum=1, none_ok=True)
    heading = check_text(heading, "heading")
    heading = html.escape(heading)
    if not messages:
        return f'<div class="trim-result" style="{FONT};font-size:90%"><b>{heading} []</b> (no message fits)</div>'
    items = []
    for message in messages:
        text = message_text(message)
        if preview_chars is not None:
            text = preview(text, preview_chars)
        extra = ""
        if isinstance(message, AIMessage) and message.tool_calls:
            extra = " tool_calls=[" + ", ".join(f"{c['name']} ({c['id']})" for c in message.tool_calls) + "]"
        if isinstance(message, ToolMessage):
            extra = f" tool_call_id={message.tool_call_id!r}"
        ref = f'<code style="{MONO};color:#424242">{html.escape(message.id)}</code> ' if message.id else ""
        items.append(
            f'<li style="margin:1px 0">{ref}<code style="{MONO}">{type(message).__name__}</code> '
            f'<span{lang_attrs(text)} style="background:#f5f5f5;padding:0 3px">{html.escape(text)}</span>'
            f'<code style="{MONO};color:#616161">{html.escape(extra)}</code></li>'
        )
    return (
        f'<div class="trim-result" style="{FONT};font-size:90%">'
        f"<b>{heading} {len(messages)} message{'s' if len(messages) != 1 else ''}:</b>"
        f'<ul style="margin:2px 0 0 0;padding-left:1.4em">{"".join(items)}</ul></div>'
    )


def trim_report_html(
    report: TrimReport, *, preview_chars: int = 80, result_chars: int | None = 200, title: str | None = None
) -> str:
    """The whole picture of one trim: the call, the token bar, the rows and the returned list.

    ``preview_chars`` cuts each row's text, ``result_chars`` each line of the
    returned list (None: the full text).

    >>> from langchain_core.messages import HumanMessage
    >>> from course_utils.trimming import explain_trim
    >>> from course_utils.tokens import dummy_token_counter   # 10 tokens a message
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
    summary = ", ".join(f"{n} {status}" for status, n in counts.items())
    note = ""
    if report.over_budget and report.strategy == NO_TRIM:
        note = (
            f'<div style="color:#9e2a2a;font-size:90%">Over the limit by {report.result_tokens - report.max_tokens} '
            "tokens: a provider would refuse this call.</div>"
        )
    elif report.over_budget:
        note = (
            '<div style="color:#9e2a2a;font-size:90%">The result is over max_tokens: include_system keeps the '
            "system message even when it alone does not fit.</div>"
        )
    list_heading = "the model is sent" if report.strategy == NO_TRIM else "trim_messages returned"
    heading = f'<div style="font-weight:bold;margin-bottom:4px">{html.escape(title)}</div>' if title else ""
    return (
        f'<div class="trim-report" data-kept-tokens="{report.result_tokens}" data-max-tokens="{report.max_tokens}" '
        f'style="{FONT}">{heading}'
        f'<div style="{MONO};font-size:85%;color:#424242;margin-bottom:4px">{html.escape(_options_line(report))}</div>'
        f'<div style="font-size:90%">{len(report.rows)} messages: {summary}</div>'
        f"{token_bar_html(report.result_tokens, report.max_tokens, report.total_tokens)}{note}"
        f"{trim_table_html(report, preview_chars=preview_chars)}"
        f'<div style="margin-top:6px">{messages_list_html(report.result, preview_chars=result_chars, heading=list_heading)}</div>'
        f"</div>"
    )


def error_html(error: BaseException | str, *, hint: str | None = None) -> str:
    """An error shown in place, as a styled box with the error's own words (never a traceback).

    >>> 'only valid with' in error_html(ValueError("start_on parameter is only valid with strategy='last'"))
    True
    """
    if isinstance(error, BaseException):
        text = f"{type(error).__name__}: {error}"
    elif isinstance(error, str):
        text = error
    else:
        raise TypeError(f"error must be an exception or a str, got {type(error).__name__}: {error!r:.80}")
    check_text(hint, "hint", none_ok=True)
    hint_html = f'<div style="margin-top:4px;color:#424242">{html.escape(hint)}</div>' if hint else ""
    accent, background = STATUS_COLOURS["error"]
    return (
        f'<div class="course-error" role="alert" style="{FONT};border:1px solid {accent};border-left:6px solid {accent};'
        f'background:{background};padding:6px 10px;border-radius:3px">'
        f'<code style="{MONO};white-space:pre-wrap;color:#8e0000">{html.escape(text)}</code>{hint_html}</div>'
    )


# --- budgets ------------------------------------------------------------------------


def budget_working_html(working: BudgetWorking) -> str:
    """The budget worked out step by step: the formula, one subtraction a line, the result.

    >>> from course_utils.budget import budget_working
    >>> '3566 - 700 = 2866' in budget_working_html(budget_working(4096, 350, 180, 700))
    True
    """
    check_instance(working, "working", BudgetWorking, "budget_working")
    lines = "".join(
        f'<div class="budget-step" data-symbol="{step.symbol}">{html.escape(step.line)}'
        f'<span style="color:#757575">   ({step.symbol}: {html.escape(step.label)})</span></div>'
        for step in working.steps
    )
    return (
        f'<div class="budget-working" data-budget="{working.budget}" style="{MONO};font-size:95%;line-height:1.5">'
        f"<div><b>{html.escape(working.formula)}</b></div>"
        f'<div style="color:#757575">L = {working.limit} (context limit)</div>'
        f"{lines}<div><b>{html.escape(working.name)} = {working.budget}</b> tokens left for history</div></div>"
    )


def budget_bar_html(working: BudgetWorking) -> str:
    """One stacked bar as wide as the context limit: each fixed part, then what is left for history."""
    check_instance(working, "working", BudgetWorking, "budget_working")
    segments = [(step.symbol, step.label, step.tokens) for step in working.steps]
    segments.append((working.name, "history", working.budget))
    cells = []
    for symbol, label, tokens in segments:
        pct = 100 * tokens / working.limit
        cells.append(
            f'<div title="{html.escape(label)}: {tokens}" data-symbol="{symbol}" style="width:{pct:.2f}%;'
            f"background:{PART_COLOURS.get(symbol, '#90a4ae')};overflow:hidden;white-space:nowrap;"
            f'font-size:80%;padding:2px 0;text-align:center;color:#111">{html.escape(symbol)}</div>'
        )
    legend = " · ".join(f"{html.escape(symbol)} {html.escape(label)} {tokens}" for symbol, label, tokens in segments)
    return (
        f'<div class="budget-bar" style="{FONT};margin:6px 0">'
        f'<div style="font-size:90%">context limit L = {working.limit} tokens</div>'
        f'<div style="display:flex;width:100%;border:1px solid {NEUTRAL}">{"".join(cells)}</div>'
        f'<div style="font-size:85%;color:#424242">{legend}</div></div>'
    )


# --- growth ---------------------------------------------------------------------------


def growth_table_html(report: GrowthReport, *, upto: int | None = None) -> str:
    """The replay as a table, one row per model call, with a bar of the tokens sent.

    ``upto`` (a call number, 1-based) stops the table at that call. The bar
    of each row is drawn against the largest history or call (a policy may
    send more than the history holds, e.g. a summary), with a marker at the
    limit when the report has one; so no bar runs past the end.
    """
    check_instance(report, "report", GrowthReport, "replay_growth")
    upto = check_int(upto, "upto", minimum=1, none_ok=True)
    if upto is not None and upto > len(report.rows):
        raise ValueError(f"upto must be at most the number of calls ({len(report.rows)}), got {upto}")
    rows = report.rows[:upto] if upto is not None else report.rows
    scale = max([max(r.history_tokens, r.sent_tokens) for r in report.rows] + [report.limit or 0, 1])
    limit_pct = None if report.limit is None else 100 * report.limit / scale
    head = "".join(
        f'<th style="text-align:right;padding:3px 6px;border-bottom:2px solid {NEUTRAL}">{name}</th>'
        for name in ("call", "messages in history", "history tokens", "messages sent", "tokens sent", "cumulative sent")
    )
    head += f'<th style="text-align:left;padding:3px 6px;border-bottom:2px solid {NEUTRAL};width:30%">sent vs limit</th>'
    body = []
    for r in rows:
        over = bool(r.over_limit)
        marker = (
            ""
            if limit_pct is None
            else f'<div class="growth-limit-line" style="position:absolute;top:-2px;bottom:-2px;left:{limit_pct:.2f}%;'
            f'border-left:2px solid #212121"></div>'
        )
        # Every row's track is as long as every other's (with_word keeps the "over" slot in each
        # row, shown or not): one scale, so a longer bar always means more tokens.
        bar = (
            f'<div class="growth-track" style="position:relative;height:10px;background:#eeeeee">'
            f'<div class="growth-fill" style="position:absolute;left:0;top:0;bottom:0;width:{100 * r.sent_tokens / scale:.2f}%;'
            f'background:{LIMIT_COLOUR if over else "#42a5f5"}"></div>{marker}</div>'
        )
        cells = (r.call, r.history_messages, r.history_tokens, r.sent_messages, r.sent_tokens, r.cumulative_sent_tokens)
        row_style = f' style="background:{LIMIT_BACKGROUND}"' if over else ""
        body.append(
            f'<tr class="growth-row" data-call="{r.call}" data-over="{str(over).lower()}" data-sent-tokens="{r.sent_tokens}"{row_style}>'
            + "".join(f'<td style="text-align:right;padding:2px 6px">{value}</td>' for value in cells)
            + f'<td style="padding:2px 6px">{with_word(bar, "over", LIMIT_COLOUR, shown=over)}</td></tr>'
        )
    caption = html.escape(COUNTER_LABELS.get(str(report.token_counter), f"{report.token_counter} counter"))
    if report.limit is not None:
        caption += f"; limit {report.limit} (black line)"
    return (
        f'<div class="growth-table" style="{FONT}"><div style="font-size:85%;color:#424242">{caption}</div>'
        f'<table style="border-collapse:collapse;width:100%;font-size:90%">'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
    )


def growth_turn_html(growth: GrowthReport, turn: int, report: TrimReport, *, preview_chars: int = 60) -> str:
    """One model call of a replay: a sentence on what it sends against the limit, then its trim report.

    ``turn`` is the call number (1-based) in ``growth``; ``report`` says which
    messages that call sends (from ``explain_trim``, or ``untrimmed_report``
    when nothing is trimmed). This is what GrowthExplorer shows under its plot.
    """
    check_instance(growth, "growth", GrowthReport, "replay_growth")
    turn = check_int(turn, "turn", minimum=1)
    if turn > len(growth.rows):
        raise ValueError(f"turn must be between 1 and the number of calls ({len(growth.rows)}), got {turn}")
    check_instance(report, "report", TrimReport, "explain_trim or untrimmed_report")
    row = growth.rows[turn - 1]
    verdict = "over the limit" if row.over_limit else "within the limit"
    colour = LIMIT_COLOUR if row.over_limit else STATUS_COLOURS["kept"][0]
    summary = (
        f'<div class="growth-turn-summary" data-call="{turn}" data-sent-tokens="{row.sent_tokens}" '
        f'style="{FONT};margin:4px 0">'
        f"<b>Call {turn} of {growth.calls}</b>: the history holds {row.history_messages} messages, "
        f"{row.history_tokens} tokens; this call sends {row.sent_messages} messages, {row.sent_tokens} tokens, "
        f'<b style="color:{colour}">{verdict}</b> ({growth.limit}). '
        f"Tokens sent so far: {row.cumulative_sent_tokens}.</div>"
    )
    # A long history makes a long table: it scrolls in its own box, so the plot and
    # the controls above it stay in view while the learner moves the turn slider.
    table = trim_report_html(report, preview_chars=preview_chars)
    return summary + scroll_region_html(table, label=f"messages call {turn} sends", css_class="growth-turn-report")


def image_html(png: bytes, *, alt: str = "figure", width: int | None = None, fit: bool = False) -> str:
    """A PNG as an inline ``<img>`` (base64); ``alt`` says what it shows, ``fit`` lets it shrink to fit."""
    import base64

    if not isinstance(png, (bytes, bytearray)):
        raise TypeError(f"png must be bytes, got {type(png).__name__}")
    check_text(alt, "alt")
    if not isinstance(fit, bool):
        raise TypeError(f"fit must be True or False, got {type(fit).__name__}: {fit!r:.80}")
    size = "" if width is None else f' width="{check_int(width, "width", minimum=1)}"'
    style = ' style="max-width:100%;height:auto"' if fit else ""
    data = base64.b64encode(bytes(png)).decode("ascii")
    return f'<img alt="{html.escape(alt)}"{size}{style} src="data:image/png;base64,{data}">'


# --- lesson 05: the models' limits as a text table for print() ------------------------------


def limits_table(rows: Sequence[Any]) -> str:
    """``thresholds.limits_rows()`` as a text table: each model, its window, and H_max for each task.

    A task whose fixed parts leave no room in a model's window shows "no room".
    """
    from course_utils.thresholds import LimitsRow  # here, not at the top: thresholds loads LangGraph

    if isinstance(rows, (str, bytes)) or not isinstance(rows, Sequence) or not rows:
        raise TypeError(
            f"rows must be a non-empty list of LimitsRow (from thresholds.limits_rows), got {rows!r:.80}"
        )
    for i, row in enumerate(rows):
        check_instance(row, f"rows[{i}]", LimitsRow, "thresholds.limits_rows")
    tasks = list(rows[0].h_max)
    header = f"{'model':<25}{'provider':<12}{'context window':>15}" + "".join(f"{'H_max ' + t:>16}" for t in tasks)
    lines = [header, "-" * len(header)]
    for row in rows:
        cells = [f"{'no room':>16}" if row.h_max.get(task) is None else f"{row.h_max[task]:>16,}" for task in tasks]
        lines.append(f"{row.model:<25}{row.provider:<12}{row.context_window:>15,}" + "".join(cells))
    return "\n".join(lines)


# --- lesson 05: the models table and the strategies' costs, as text tables -------------------------


def models_table() -> str:
    """The rows of ``models.json`` as a text table: limits, tokenizer, prices and the date each was checked."""
    from course_utils.models import MODELS

    def cell(value, width, spec=""):
        return f"{'-' if value is None else format(value, spec):>{width}}"

    header = f"{'model':<25}{'provider':<10}{'window':>10}{'max out':>8} {'tokenizer':<18}{'in':>5}{'cached':>7}{'out':>5} checked"
    lines = [header, "-" * len(header)]
    for m in MODELS:
        lines.append(
            f"{m.model:<25}{m.provider:<10}{m.context_window:>10,}{cell(m.max_output_tokens, 8, ',')} {m.tokenizer:<18}"
            f"{cell(m.price_input, 5, 'g')}{cell(m.price_cached_input, 7, 'g')}{cell(m.price_output, 5, 'g')} {m.checked}"
        )
    return "\n".join([*lines, "prices: US$ per million tokens; '-': not stated by the source read (see models.json)"])


def strategy_table(points: Sequence[Any]) -> str:
    """``retention.price_runs``'s points as a text table: memory, tokens, and cost with and without caching."""
    from course_utils.retention import STRATEGY_LABELS, CostPoint

    if isinstance(points, (str, bytes)) or not isinstance(points, Sequence) or not points:
        raise TypeError(f"points must be a non-empty list of CostPoint (from retention.price_runs), got {points!r:.80}")
    for i, p in enumerate(points):
        check_instance(p, f"points[{i}]", CostPoint, "retention.price_runs")
    header = f"{'strategy':<30}{'threshold':>9}{'facts':>7}{'summaries':>10}{'input':>9}{'output':>8}{'cached':>8}{'$ cached':>10}{'$ plain':>9}"
    lines = [header, "-" * len(header)]
    for p in points:
        lines.append(
            f"{STRATEGY_LABELS.get(p.strategy, p.strategy):<30}{p.threshold:>9}{f'{p.facts_remembered}/{p.facts_asked}':>7}"
            f"{p.summaries:>10}{p.input_tokens:>9,}{p.output_tokens:>8,}{p.cached_share:>8.0%}"
            f"{p.cost * 1000:>10.2f}{p.cost_without_caching * 1000:>9.2f}"
        )
    return "\n".join([*lines, "$: US dollars per 1,000 such conversations; cached: share of input tokens read from the prompt cache"])


# --- a text cut into tokens (lesson 01's visualiser) -------------------------------

#: Alternating backgrounds of whole tokens, and the look of a token that is part of a character.
TOKEN_COLOURS = ("#d7e8f7", "#fde2c4")
PARTIAL_TOKEN_STYLE = "background:#ececec;border:1px dashed #616161;" + MONO + ";font-size:0.8em"
#: The languages the visualiser knows how to lay out: lang and dir attributes.
TEXT_DIRECTION = {"fa": ' lang="fa" dir="rtl"', "zh": ' lang="zh" dir="ltr"', "en": ' lang="en" dir="ltr"'}

# Hover and keyboard focus show a token's id after it (JupyterLab keeps <style>; GitHub drops it and
# keeps each token's title tooltip and the list of ids below the tokens).
_TOKEN_CSS = (
    "<style>.cu-token:hover::after,.cu-token:focus::after{content:' #' attr(data-id);font-size:0.75em;"
    "color:#0d47a1;font-family:monospace;unicode-bidi:isolate;direction:ltr}"
    ".cu-token:focus{outline:2px solid #0d47a1;outline-offset:1px}"
    ".token-text-rtl textarea{direction:rtl;text-align:right}</style>"  # TokenView's text box, for Persian
)


def _token_span(piece: Any, position: int, total: int) -> str:
    if piece.whole:
        shown = piece.label.replace("\n", "\u21b5")  # a newline token stays visible as ↵
        style = f"background:{TOKEN_COLOURS[position % 2]};white-space:pre-wrap"
        spoken = f"token {position + 1} of {total}: {piece.label!r}, id {piece.token_id}"
        direction = ""
    else:
        shown = piece.label
        style = PARTIAL_TOKEN_STYLE
        spoken = f"token {position + 1} of {total}: bytes {piece.label} of the character {piece.chars!r}, id {piece.token_id}"
        direction = ' dir="ltr"'  # hex bytes read left to right, even inside Persian
    title = f"id {piece.token_id}" + ("" if piece.whole else f": bytes {piece.label} of {piece.chars!r}")
    return (
        f'<span class="cu-token" role="listitem" tabindex="0" data-id="{piece.token_id}"{direction}'
        f' title="{html.escape(title)}" aria-label="{html.escape(spoken)}"'
        f' style="{style};border-radius:3px;padding:1px 0;margin:0 1px;line-height:1.9">{html.escape(shown)}</span>'
    )


def token_split_html(split: TokenSplit, *, lang: str | None = None) -> str:
    """One tokenizer's cut of a text: the count, then every token in alternating colours.

    Each token is focusable (``tabindex="0"``) and named for a screen reader
    with its position, text and id; hovering or focusing it shows the id in
    JupyterLab. A token that is only part of a character is drawn with a
    dashed border and shown as its bytes in hex. ``lang`` ("en", "fa", "zh")
    sets the text's ``lang`` and direction (Persian right to left). When the
    tokenizer is unavailable, a note says so and only the approximate count
    is given.

    >>> from course_utils.tokens import split_tokens
    >>> html_ = token_split_html(split_tokens("hello world", "o200k_base"), lang="en")
    >>> html_.count('role="listitem"'), "2 tokens" in html_
    (2, True)
    """
    check_instance(split, "split", TokenSplit, "split_tokens")
    if lang is not None:
        check_text(lang, "lang")
        if lang not in TEXT_DIRECTION:
            raise ValueError(f"lang must be one of {tuple(TEXT_DIRECTION)} or None, got {lang!r}")
    attributes = TEXT_DIRECTION.get(lang, ' dir="auto"')
    name = html.escape(split.encoding)
    if not split.exact:
        return (
            f'<div class="cu-token-split" data-encoding="{name}" data-count="{split.count}" style="{FONT}">'
            f'<div style="font-weight:600">{name}: about {split.count} tokens (approximate)</div>'
            f'<div role="note" style="border:1px solid #a15c00;background:#fff4de;padding:4px 8px;border-radius:3px">'
            f"{html.escape(split.note)}</div></div>"
        )
    total = len(split.pieces)
    partial = f", {split.partial} of them part of a character" if split.partial else ""
    spans = "".join(_token_span(piece, i, total) for i, piece in enumerate(split.pieces))
    ids = " ".join(str(i) for i in split.ids)
    return (
        f'<div class="cu-token-split" data-encoding="{name}" data-count="{total}" style="{FONT}">'
        f'<div style="font-weight:600">{name}: {total} tokens{partial}</div>'
        f'<div role="list" aria-label="{name} tokens"{attributes} style="margin:4px 0;font-size:1.05em">{spans}</div>'
        f'<details><summary style="font-size:0.85em">token ids</summary>'
        f'<code style="{MONO};font-size:0.8em;word-break:break-all">{ids}</code></details></div>'
    )


def token_comparison_html(splits: Sequence[TokenSplit], *, lang: str | None = None, live: bool = True) -> str:
    """Several tokenizers' cuts of the same text side by side (they wrap on a narrow screen).

    ``live=True`` (the widget in JupyterLab) adds a small ``<style>`` that
    shows a token's id on hover and keyboard focus. ``live=False`` is the
    static copy stored for GitHub and nbconvert, which drop or show style
    blocks unpredictably: inline styles only, the id in each token's tooltip
    and in the "token ids" list.
    """
    splits = list(splits)
    if not splits:
        raise ValueError("splits must hold at least one TokenSplit, got none")
    if not isinstance(live, bool):
        raise TypeError(f"live must be True or False, got {type(live).__name__}: {live!r:.80}")
    panes = "".join(
        f'<div style="flex:1 1 300px;min-width:0;border:1px solid #bdbdbd;border-radius:4px;padding:6px 8px">'
        f"{token_split_html(split, lang=lang)}</div>"
        for split in splits
    )
    how = "Hover over a token, or reach it with Tab, to see its id." if live else (
        "Hover over a token to see its id; every id is listed under \"token ids\"."
    )
    legend = (
        '<div style="font-size:0.85em;color:#424242;margin-top:4px">Each coloured box is one token; '
        "a dashed grey box is a token that holds only some of the UTF-8 bytes of a character, shown as "
        f"those bytes in hex. {how}</div>"
    )
    return (
        f'<div class="cu-token-comparison" style="{FONT}">{_TOKEN_CSS if live else ""}'
        f'<div style="display:flex;flex-wrap:wrap;gap:8px">{panes}</div>{legend}</div>'
    )
