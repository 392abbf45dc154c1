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
- the markup is in Jinja2 templates (``course_utils/templates``, see
  :mod:`course_utils.pictures.templates`): every value is escaped as :func:`html.escape` would;
- every cell holding message text has ``dir="auto"``, so Persian (or any
  right-to-left script) is laid out right to left and Chinese or English
  left to right, each by its own first strong character; Persian also gets
  ``lang="fa" dir="rtl"``, Chinese ``lang="zh"`` (``a11y.lang_attrs``);
- status is written out in words as well as in colour ("kept", "partial",
  "dropped"), so a printed handout or a colour-blind reader loses nothing.

>>> from langchain_core.messages import AIMessage, HumanMessage
>>> from course_utils.window.trimming import explain_trim
>>> from course_utils.window.tokens import dummy_token_counter   # 10 tokens a message
>>> report = explain_trim([HumanMessage("a"), AIMessage("b <c>")], max_tokens=10, token_counter=dummy_token_counter)
>>> html = trim_report_html(report)
>>> html.count('data-status="kept"'), 'b &lt;c&gt;' in html
(1, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from course_utils.core.args import check_instance, check_int, check_text
from course_utils.core.columns import text_table, visible_width
from course_utils.core.i18n import PDI, RLI, _, get_language, pgettext, translate
from course_utils.pictures.a11y import scroll_region_html, with_word
from course_utils.window.budget import BudgetWorking
from course_utils.window.growth import GrowthReport
from course_utils.core.style import LIMIT_BACKGROUND, LIMIT_COLOUR, MONO, PART_COLOURS, STATUS_COLOURS
from course_utils.pictures.templates import Markup, render_template
from course_utils.window.tokens import TokenSplit
from course_utils.window.trimming import TrimReport
from course_utils.pictures.trim_view import (  # the trim table's pictures live there; re-exported for the lessons
    message_ref,
    messages_list_html,
    preview,
    role_label,
    token_bar_html,
    trim_report_html,
    trim_table_html,
)

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


def counter_label(token_counter: Any) -> str:
    """How a caption names a token counter, in the current language ("exact counter (cl100k_base)").

    >>> counter_label("dummy")
    "the reference page's dummy counter (10 tokens a message)"
    """
    name = str(token_counter)
    if name in COUNTER_LABELS:
        return translate(COUNTER_LABELS[name], "counter")
    return translate("{name} counter").format(name=name)


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
    accent, background = STATUS_COLOURS["error"]
    return render_template("error.html.j2", text=text, hint=hint, accent=accent, background=background)


# --- budgets ------------------------------------------------------------------------


def budget_working_html(working: BudgetWorking) -> str:
    """The budget worked out step by step: the formula, one subtraction a line, the result.

    >>> from course_utils.window.budget import budget_working
    >>> '3566 - 700 = 2866' in budget_working_html(budget_working(4096, 350, 180, 700))
    True
    """
    check_instance(working, "working", BudgetWorking, "budget_working")
    return render_template("budget_working.html.j2", working=working)


def budget_bar_html(working: BudgetWorking) -> str:
    """One stacked bar as wide as the context limit: each fixed part, then what is left for history."""
    check_instance(working, "working", BudgetWorking, "budget_working")
    parts = [(step.symbol, step.label, step.tokens) for step in working.steps]
    parts.append((working.name, "history", working.budget))
    segments = [(symbol, label, tokens, 100 * tokens / working.limit, PART_COLOURS.get(symbol, "#90a4ae"))
                for symbol, label, tokens in parts]
    return render_template("budget_bar.html.j2", limit=working.limit, segments=segments)


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
    body = []
    over_word = translate("over", "growth bar")  # the word beside a bar over the limit
    for r in rows:
        over = bool(r.over_limit)
        # Every row's track is as long as every other's (with_word keeps the "over" slot in each
        # row, shown or not): one scale, so a longer bar always means more tokens.
        bar = render_template("growth_bar.html.j2", fill_pct=100 * r.sent_tokens / scale,
                              fill=LIMIT_COLOUR if over else "#42a5f5", limit_pct=limit_pct)
        body.append({
            "call": r.call, "over": over, "sent_tokens": r.sent_tokens,
            "cells": (r.call, r.history_messages, r.history_tokens, r.sent_messages, r.sent_tokens,
                      r.cumulative_sent_tokens),
            "bar": Markup(with_word(bar, "over", LIMIT_COLOUR, shown=over, label=over_word)),
        })
    caption = counter_label(report.token_counter)
    if report.limit is not None:
        caption += translate("; limit {limit} (black line)").format(limit=report.limit)
    return render_template(
        "growth_table.html.j2", caption=caption, rows=body, over_background=LIMIT_BACKGROUND,
        columns=("call", "messages in history", "history tokens", "messages sent", "tokens sent", "cumulative sent"),
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
    verdict = translate("over the limit") if row.over_limit else translate("within the limit")
    colour = LIMIT_COLOUR if row.over_limit else STATUS_COLOURS["kept"][0]
    # A long history makes a long table: it scrolls in its own box, so the plot and
    # the controls above it stay in view while the learner moves the turn slider.
    table = trim_report_html(report, preview_chars=preview_chars)
    region = scroll_region_html(table, label=translate("messages call {turn} sends").format(turn=turn), css_class="growth-turn-report")
    return render_template("growth_turn.html.j2", turn=turn, calls=growth.calls, row=row, colour=colour,
                           verdict=verdict, limit=growth.limit, region=Markup(region))


def image_html(png: bytes, *, alt: str = "figure", width: int | None = None, fit: bool = False) -> str:
    """A PNG as an inline ``<img>`` (base64); ``alt`` says what it shows, ``fit`` lets it shrink to fit."""
    import base64

    if not isinstance(png, (bytes, bytearray)):
        raise TypeError(f"png must be bytes, got {type(png).__name__}")
    check_text(alt, "alt")
    if not isinstance(fit, bool):
        raise TypeError(f"fit must be True or False, got {type(fit).__name__}: {fit!r:.80}")
    width = None if width is None else check_int(width, "width", minimum=1)
    data = base64.b64encode(bytes(png)).decode("ascii")
    return render_template("image.html.j2", alt=alt, width=width, fit=fit, data=data)


# --- lesson 05: the models' limits as a text table for print() ------------------------------


def _padded(word: str, width: int) -> str:
    """``word`` right-aligned in ``width`` characters, not counting the RTL isolate a translation comes in."""
    bare = word.replace(RLI, "").replace(PDI, "")
    return " " * max(width - len(bare), 0) + word


def _translated_table(header: list[str], rows: list[list[str]]) -> list[str]:
    """A text table in the course's language other than English: translated headers, columns right to left.

    ``columns.text_table`` lays it out (each cell isolated, the first column at
    the right); a rule of dashes as wide as the header goes under it, as in English.
    Columns are one space apart, as most of the English ones are, so the
    Persian tables fit JupyterLab's output width as the English ones do.
    """
    lines = text_table(rows, header=header, sep=" ").splitlines()
    return [lines[0], "-" * visible_width(lines[0]), *lines[1:]]


def limits_table(rows: Sequence[Any]) -> str:
    """``thresholds.limits_rows()`` as a text table: each model, its window, and H_max for each task.

    A task whose fixed parts leave no room in a model's window shows "no room".
    In another language the headers are translated and the columns run right
    to left (``columns.text_table``); English keeps its layout byte for byte.
    """
    from course_utils.window.thresholds import LimitsRow  # here, not at the top: thresholds loads LangGraph

    if isinstance(rows, (str, bytes)) or not isinstance(rows, Sequence) or not rows:
        raise TypeError(
            f"rows must be a non-empty list of LimitsRow (from thresholds.limits_rows), got {rows!r:.80}"
        )
    for i, row in enumerate(rows):
        check_instance(row, f"rows[{i}]", LimitsRow, "thresholds.limits_rows")
    tasks = list(rows[0].h_max)
    if get_language() != "en":
        header = [pgettext("limits table", "model"), pgettext("limits table", "provider"),
                  pgettext("limits table", "context window"), *(f"H_max {t}" for t in tasks)]
        return "\n".join(_translated_table(header, [
            [row.model, row.provider, f"{row.context_window:,}",
             *(_("no room") if row.h_max.get(t) is None else f"{row.h_max[t]:,}" for t in tasks)]
            for row in rows]))
    header = f"{'model':<25}{'provider':<12}{'context window':>15}" + "".join(f"{'H_max ' + t:>16}" for t in tasks)
    lines = [header, "-" * len(header)]
    for row in rows:
        cells = [_padded(_("no room"), 16) if row.h_max.get(task) is None else f"{row.h_max[task]:>16,}"
                 for task in tasks]
        lines.append(f"{row.model:<25}{row.provider:<12}{row.context_window:>15,}" + "".join(cells))
    return "\n".join(lines)


# --- lesson 05: the models table and the strategies' costs, as text tables -------------------------


def models_table() -> str:
    """The rows of ``models.json`` as a text table: limits, tokenizer, prices and the date each was checked."""
    from course_utils.window.models import MODELS

    def cell(value, width, spec=""):
        return f"{'-' if value is None else format(value, spec):>{width}}"

    footnote = _("prices: US$ per million tokens; '-': not stated by the source read (see models.json)")
    if get_language() != "en":
        header = [pgettext("models table", "model"), pgettext("models table", "provider"),
                  pgettext("models table", "window"), pgettext("models table", "max out"), "tokenizer",
                  pgettext("models table", "in"), pgettext("models table", "cached"),
                  pgettext("models table", "out"), pgettext("models table", "checked")]
        return "\n".join([*_translated_table(header, [
            [m.model, m.provider, f"{m.context_window:,}", cell(m.max_output_tokens, 0, ","), m.tokenizer,
             cell(m.price_input, 0, "g"), cell(m.price_cached_input, 0, "g"), cell(m.price_output, 0, "g"), m.checked]
            for m in MODELS]), footnote])
    header = f"{'model':<25}{'provider':<10}{'window':>10}{'max out':>8} {'tokenizer':<18}{'in':>5}{'cached':>7}{'out':>5} checked"
    lines = [header, "-" * len(header)]
    for m in MODELS:
        lines.append(
            f"{m.model:<25}{m.provider:<10}{m.context_window:>10,}{cell(m.max_output_tokens, 8, ',')} {m.tokenizer:<18}"
            f"{cell(m.price_input, 5, 'g')}{cell(m.price_cached_input, 7, 'g')}{cell(m.price_output, 5, 'g')} {m.checked}"
        )
    return "\n".join([*lines, footnote])


def strategy_table(points: Sequence[Any]) -> str:
    """``retention.price_runs``'s points as a text table: memory, tokens, and cost with and without caching."""
    from course_utils.agentic.retention import STRATEGY_LABELS, CostPoint

    if isinstance(points, (str, bytes)) or not isinstance(points, Sequence) or not points:
        raise TypeError(f"points must be a non-empty list of CostPoint (from retention.price_runs), got {points!r:.80}")
    for i, p in enumerate(points):
        check_instance(p, f"points[{i}]", CostPoint, "retention.price_runs")
    footnote = pgettext("strategy table", "$: US dollars per 1,000 such conversations; "
                                          "cached: share of input tokens read from the prompt cache")
    if get_language() != "en":
        header = [pgettext("strategy table", "strategy"), pgettext("strategy table", "threshold"),
                  pgettext("strategy table", "facts"), pgettext("strategy table", "summaries"),
                  pgettext("strategy table", "input"), pgettext("strategy table", "output"),
                  pgettext("strategy table", "cached"), pgettext("strategy table", "$ cached"),
                  pgettext("strategy table", "$ plain")]
        return "\n".join([*_translated_table(header, [
            [_(STRATEGY_LABELS.get(p.strategy, p.strategy)), str(p.threshold), f"{p.facts_remembered}/{p.facts_asked}",
             str(p.summaries), f"{p.input_tokens:,}", f"{p.output_tokens:,}", f"{p.cached_share:.0%}",
             f"{p.cost * 1000:.2f}", f"{p.cost_without_caching * 1000:.2f}"] for p in points]), footnote])
    header = f"{'strategy':<30}{'threshold':>9}{'facts':>7}{'summaries':>10}{'input':>9}{'output':>8}{'cached':>8}{'$ cached':>10}{'$ plain':>9}"
    lines = [header, "-" * len(header)]
    for p in points:
        lines.append(
            f"{STRATEGY_LABELS.get(p.strategy, p.strategy):<30}{p.threshold:>9}{f'{p.facts_remembered}/{p.facts_asked}':>7}"
            f"{p.summaries:>10}{p.input_tokens:>9,}{p.output_tokens:>8,}{p.cached_share:>8.0%}"
            f"{p.cost * 1000:>10.2f}{p.cost_without_caching * 1000:>9.2f}"
        )
    return "\n".join([*lines, footnote])


# --- a text cut into tokens (lesson 01's visualiser) -------------------------------

#: Alternating backgrounds of whole tokens, and the look of a token that is part of a character.
TOKEN_COLOURS = ("#d7e8f7", "#fde2c4")
PARTIAL_TOKEN_STYLE = "background:#ececec;border:1px dashed #616161;" + MONO + ";font-size:0.8em"
#: The languages the visualiser knows how to lay out: lang and dir attributes.
TEXT_DIRECTION = {"fa": ' lang="fa" dir="rtl"', "zh": ' lang="zh" dir="ltr"', "en": ' lang="en" dir="ltr"'}

def _token(piece: Any, position: int, total: int) -> dict[str, Any]:
    """What the visualiser shows of one token: its text, tooltip, spoken name and look."""
    if piece.whole:
        shown = piece.label.replace("\n", "\u21b5")  # a newline token stays visible as ↵
        style = f"background:{TOKEN_COLOURS[position % 2]};white-space:pre-wrap"
        spoken = translate("token {number} of {total}: {label}, id {id}").format(
            number=position + 1, total=total, label=repr(piece.label), id=piece.token_id)
    else:  # bytes of a character, in hex: read left to right, even inside Persian (dir="ltr")
        shown = piece.label
        style = PARTIAL_TOKEN_STYLE
        spoken = translate("token {number} of {total}: bytes {label} of the character {chars}, id {id}").format(
            number=position + 1, total=total, label=piece.label, chars=repr(piece.chars), id=piece.token_id)
    title = f"id {piece.token_id}" + ("" if piece.whole else translate(": bytes {label} of {chars}").format(
        label=piece.label, chars=repr(piece.chars)))
    return {"id": piece.token_id, "whole": piece.whole, "shown": shown, "style": Markup(style), "spoken": spoken,
            "title": title}


def token_split_html(split: TokenSplit, *, lang: str | None = None) -> str:
    """One tokenizer's cut of a text: the count, then every token in alternating colours.

    Each token is focusable (``tabindex="0"``) and named for a screen reader
    with its position, text and id; hovering or focusing it shows the id in
    JupyterLab. A token that is only part of a character is drawn with a
    dashed border and shown as its bytes in hex. ``lang`` ("en", "fa", "zh")
    sets the text's ``lang`` and direction (Persian right to left). When the
    tokenizer is unavailable, a note says so and only the approximate count
    is given.

    >>> from course_utils.window.tokens import split_tokens
    >>> html_ = token_split_html(split_tokens("hello world", "o200k_base"), lang="en")
    >>> html_.count('role="listitem"'), "2 tokens" in html_
    (2, True)
    """
    check_instance(split, "split", TokenSplit, "split_tokens")
    if lang is not None:
        check_text(lang, "lang")
        if lang not in TEXT_DIRECTION:
            raise ValueError(f"lang must be one of {tuple(TEXT_DIRECTION)} or None, got {lang!r}")
    if not split.exact:
        return render_template("token_split.html.j2", exact=False, name=split.encoding, count=split.count,
                               note=split.note)
    total = len(split.pieces)
    return render_template(
        "token_split.html.j2", exact=True, name=split.encoding, partial=split.partial, ids=split.ids,
        attributes=Markup(TEXT_DIRECTION.get(lang, ' dir="auto"')),
        tokens=[_token(piece, i, total) for i, piece in enumerate(split.pieces)],
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
    panes = [Markup(token_split_html(split, lang=lang)) for split in splits]
    return render_template("token_comparison.html.j2", panes=panes, live=live)
