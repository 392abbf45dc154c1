"""Matplotlib figures of growth, budgets and retention strategies' recall against cost (lessons 01, 02 and 05).

Each function takes a result computed elsewhere and returns a new
``matplotlib.figure.Figure``. They never call ``plt.show()`` and never touch
pyplot's global state: a lesson displays the figure itself, a widget turns it
into PNG bytes with :func:`figure_png`, and a test reads the artists.

Figures are deterministic: fixed sizes, no dates, and PNG metadata without
the software version, so re-running a lesson gives the same picture.

>>> from course_utils.window.budget import budget_working
>>> fig = budget_figure(budget_working(4096, 350, 180, 700))
>>> [t.get_text() for t in fig.axes[0].get_xticklabels()]
['L', 'S', 'U', 'R', 'B']
"""

from __future__ import annotations

import base64
import io
import math
from collections.abc import Mapping, Sequence
from typing import Any

from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from course_utils.core import i18n
from course_utils.core.args import check_instance, check_int, check_text
from course_utils.core.i18n import _, translate
from course_utils.window.budget import BudgetWorking, OverflowWorking
from course_utils.window.growth import GrowthReport
from course_utils.pictures.render import image_html
from course_utils.core.style import HISTORY_COLOUR, LIMIT_COLOUR, NEUTRAL, PART_COLOURS, SENT_COLOUR

GROWTH_SIZE = (9.0, 3.4)
BUDGET_SIZE = (6.5, 3.4)


class DescribedFigure(Figure):
    """A matplotlib ``Figure`` that carries a text alternative stating its point.

    Every figure function here returns one. It is a real ``Figure`` (axes,
    artists, ``savefig`` and :func:`figure_png` work as before); in a notebook
    it shows as ``<img alt="...">`` (``text/html``: JupyterLab's own PNG
    renderer sets no ``alt``), with the same words as ``text/plain``, so a
    screen reader, a text-only viewer and nbval all get the point of the
    figure, not "<Figure size 900x340 with 2 Axes>". The PNG is
    :func:`figure_png`'s: fixed DPI and no software version in the file.

    ``alt_text`` is computed by the figure's function from the numbers it
    draws (see :func:`growth_alt_text` and the others below).
    """

    alt_text: str = ""

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        png = figure_png(self)
        alt = self.alt_text or translate("figure")  # never an empty alt on a figure that carries information
        return {
            # The <img> carries lang and dir in Persian (image.html.j2), so its alt needs no RTL isolate.
            "text/html": image_html(png, alt=without_rtl_isolates(alt)),
            # Given here, so IPython's inline backend adds no second, differently rendered PNG.
            "image/png": base64.b64encode(png).decode("ascii"),
            "text/plain": alt,
        }


def drawn(text: str) -> str:
    """``text`` ready for matplotlib: unchanged in English; in a right-to-left language every line in an RTL isolate.

    matplotlib (with libraqm) shapes Persian and orders it right to left, but
    it takes a line's direction from its first strong letter, so
    "80 token بیش از limit" would start from the left. matplotlib splits a
    text at line breaks before laying it out, so each line gets its own
    isolate (U+2067 ... U+2069, drawn as nothing).

    >>> drawn("tokens")
    'tokens'
    >>> i18n.set_language("fa"); drawn("a\\nb") == "\\u2067a\\u2069\\n\\u2067b\\u2069"; i18n.set_language("en")
    True
    """
    if i18n.direction() != "rtl":
        return text
    lines = []
    for line in text.split("\n"):
        line = line.strip()
        if line.startswith(i18n.RLI) and line.endswith(i18n.PDI) and line.count(i18n.RLI) == 1:
            line = line[1:-1]
        lines.append(f"{i18n.RLI}{line}{i18n.PDI}")
    return "\n".join(lines)


def said(text: str) -> str:
    """A text alternative composed of translated parts, in one RTL isolate in a right-to-left language.

    One isolate around the whole (not one per sentence): two isolated Persian
    sentences on one printed line would read in the wrong order.
    """
    if i18n.direction() != "rtl":
        return text
    return f"{i18n.RLI}{text}{i18n.PDI}"


def without_rtl_isolates(text: str) -> str:
    """``text`` without its RTL isolates (U+2067 and the U+2069 closing each): for HTML, whose element has ``dir``.

    Left-to-right isolates (U+2066 ... U+2069) inside stay: they keep an
    English name or a number left to right inside a Persian sentence.

    >>> without_rtl_isolates("\\u2067a \\u2066b\\u2069 c\\u2069") == "a \\u2066b\\u2069 c"
    True
    """
    out, stack = [], []
    for char in text:
        if char in "\u2066\u2067\u2068":
            stack.append(char)
            if char == i18n.RLI:
                continue
        elif char == i18n.PDI and stack:
            if stack.pop() == i18n.RLI:
                continue
        out.append(char)
    return "".join(out)


def call_ticks() -> MaxNLocator:
    """Ticks for an axis of model calls: whole numbers only (there is no call 2.5)."""
    return MaxNLocator(integer=True, min_n_ticks=1)


def described(alt_text: str, **figure_kwargs: Any) -> DescribedFigure:
    fig = DescribedFigure(**figure_kwargs)
    fig.alt_text = alt_text
    return fig


def _about(value: float) -> int:
    """``value`` to two significant figures, for "about 100 a call" (0 stays 0).

    >>> _about(103.4), _about(1234.0), _about(7.2)
    (100, 1200, 7)
    """
    if value == 0:
        return 0
    digits = 1 - int(math.floor(math.log10(abs(value))))
    return int(round(value, min(digits, 0)))


def growth_figure(report: GrowthReport, *, upto: int | None = None, title: str | None = None) -> Figure:
    """History tokens and tokens sent per call against the limit, and cumulative tokens sent.

    ``upto`` (a call number) draws the calls up to that one, on axes sized
    for the whole replay, so moving a slider grows the lines without the
    scale jumping. Left: tokens per call, with the limit as a red line.
    Right: cumulative tokens sent (a curve bending upward means every call
    pays again for the whole history).

    >>> from langchain_core.messages import AIMessage, HumanMessage
    >>> from course_utils.window.growth import replay_growth
    >>> chat = [HumanMessage("hi"), AIMessage("hello"), HumanMessage("and?"), AIMessage("so")]
    >>> fig = growth_figure(replay_growth(chat, "dummy", limit=25))
    >>> [line.get_label() for line in fig.axes[0].get_lines()]
    ['history tokens', 'tokens sent', 'limit 25']
    """
    check_instance(report, "report", GrowthReport, "replay_growth")
    calls = len(report.rows)
    upto = calls if upto is None else check_int(upto, "upto", minimum=None)
    if not 1 <= upto <= calls:
        raise ValueError(f"upto must be between 1 and the number of calls ({calls}), got {upto}")
    check_text(title, "title", none_ok=True)

    rows = report.rows[:upto]
    fig = described(growth_alt_text(report, upto=upto), figsize=GROWTH_SIZE, dpi=100, layout="constrained")
    per_call, cumulative = fig.subplots(1, 2)

    # A long thread (thousands of calls) is drawn from one point per bucket of calls: each bucket's
    # largest value, so no peak is hidden (the text alternative says so); markers only when every call is drawn.
    history, k = _sampled(rows, "history_tokens")
    sent = _sampled(rows, "sent_tokens")[0]
    marks = {"marker": "o", "ms": 3} if k == 1 else {}
    per_call.plot([r.call for r in history], [r.history_tokens for r in history], color=HISTORY_COLOUR,
                  label=drawn(_("history tokens")), **marks)
    per_call.plot([r.call for r in sent], [r.sent_tokens for r in sent], color=SENT_COLOUR, label=drawn(_("tokens sent")),
                  **({"marker": "s", "ms": 3} if k == 1 else {}))
    # Sized for the whole replay, and for what is sent as well as what is stored:
    # a policy that adds messages (a summary) can send more than the history holds.
    top = max([max(r.history_tokens, r.sent_tokens) for r in report.rows] + [report.limit or 0, 1])
    if report.limit is not None:
        per_call.axhline(report.limit, color=LIMIT_COLOUR, linestyle="--",
                         label=drawn(_("limit {limit}").format(limit=report.limit)))
    per_call.set_xlim(0.5, calls + 0.5)
    per_call.xaxis.set_major_locator(call_ticks())
    per_call.set_ylim(0, top * 1.08)
    per_call.set_xlabel(drawn(_("model call")))
    per_call.set_ylabel(drawn(_("tokens ({counter})").format(counter=translate(report.token_counter))))
    per_call.set_title(drawn(_("tokens per call")))
    per_call.legend(loc="upper left", fontsize=8)
    per_call.grid(alpha=0.3)

    total = _sampled(rows, "cumulative_sent_tokens")[0]
    cumulative.plot([r.call for r in total], [r.cumulative_sent_tokens for r in total], color="#6d4c41", **marks)
    cumulative.set_xlim(0.5, calls + 0.5)
    cumulative.xaxis.set_major_locator(call_ticks())
    cumulative.set_ylim(0, max(report.rows[-1].cumulative_sent_tokens, 1) * 1.08)
    cumulative.set_xlabel(drawn(_("model call")))
    cumulative.set_title(drawn(_("cumulative tokens sent")))
    cumulative.grid(alpha=0.3)
    if title:
        fig.suptitle(drawn(translate(title)))
    return fig


def budget_figure(working: BudgetWorking, *, title: str | None = None) -> Figure:
    """A waterfall: the context limit L, each fixed part taken off, and what is left.

    Each part is a floating bar from what was left before it down to what is
    left after it, labelled with its tokens; the last bar is the history
    budget (B, or H_max with a safety margin).
    """
    check_instance(working, "working", BudgetWorking, "budget_working")
    check_text(title, "title", none_ok=True)
    symbols = ["L"] + [step.symbol for step in working.steps] + [working.name]
    bottoms = [0] + [step.after for step in working.steps] + [0]
    heights = [working.limit] + [step.tokens for step in working.steps] + [working.budget]
    colours = ["#78909c"] + [PART_COLOURS.get(s.symbol, "#90a4ae") for s in working.steps] + [PART_COLOURS["B"]]

    fig = described(budget_alt_text(working), figsize=BUDGET_SIZE, dpi=100, layout="constrained")
    ax = fig.subplots()
    positions = list(range(len(symbols)))
    bars = ax.bar(positions, heights, bottom=bottoms, color=colours, edgecolor="#212121", linewidth=0.6)
    for bar, height, bottom in zip(bars, heights, bottoms):
        ax.annotate(
            str(height),
            (bar.get_x() + bar.get_width() / 2, bottom + height),
            xytext=(0, 2),
            textcoords="offset points",
            ha="center",
            va="bottom",
            fontsize=8,
        )
    for i, step in enumerate(working.steps, start=1):  # connectors: where the next bar starts
        ax.plot([i - 0.6, i + 0.6], [step.before, step.before], color=NEUTRAL, linewidth=0.8, linestyle=":")
    ax.set_xticks(positions, symbols)
    ax.set_ylim(0, working.limit * 1.12)
    ax.set_ylabel(drawn(_("tokens")))
    # The formula is symbols and digits: it stays left to right in every language.
    ax.set_title(drawn(translate(title)) if title else f"{working.formula} = {working.budget}", fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    return fig


def overflow_figure(working: OverflowWorking, *, title: str | None = None) -> Figure:
    """One stacked bar of the input's parts next to the limit (lesson 01: 700 + 200 + 180 > 1000)."""
    check_instance(working, "working", OverflowWorking, "overflow_working")
    check_text(title, "title", none_ok=True)
    fig = described(overflow_alt_text(working), figsize=(4.5, 3.4), dpi=100, layout="constrained")
    ax = fig.subplots()
    bottom = 0
    palette = ["#1e88e5", "#26a69a", "#ffa726", "#8e24aa", "#bdbdbd"]
    for i, (label, tokens) in enumerate(working.parts):
        ax.bar(0, tokens, bottom=bottom, color=palette[i % len(palette)], edgecolor="#212121", linewidth=0.6,
               label=drawn(_("{part} {tokens}").format(part=translate(label), tokens=tokens)))
        bottom += tokens
    ax.axhline(working.limit, color=LIMIT_COLOUR, linestyle="--", label=drawn(_("limit {limit}").format(limit=working.limit)))
    ax.set_xlim(-0.8, 0.8)
    ax.set_xticks([])
    ax.set_ylim(0, max(working.total, working.limit) * 1.12)
    ax.set_ylabel(drawn(_("tokens")))
    if title:
        heading = translate(title)
    elif working.over > 0:
        heading = translate("{total} vs {limit}: {over} over").format(total=working.total, limit=working.limit,
                                                                        over=working.over)
    else:
        heading = translate("{total} vs {limit}: fits, {spare} to spare").format(
            total=working.total, limit=working.limit, spare=-working.over)
    ax.set_title(drawn(heading), fontsize=10)
    # Beside the axes, not inside: inside, the box covered the dashed limit line.
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=8, frameon=False)
    return fig


def cumulative_figure(reports: Mapping[str, GrowthReport], *, title: str | None = None) -> Figure:
    """Cumulative tokens sent per call, one line per replay, on one axis.

    Comparing policies on the same axis shows the curve straighten when
    every call is capped: quadratic growth becomes linear.
    """
    if not isinstance(reports, Mapping) or not reports:
        raise TypeError(f"reports must be a non-empty mapping of label to GrowthReport, got {reports!r:.80}")
    for label, report in reports.items():
        check_text(label, "reports label")
        check_instance(report, f"reports[{label!r}]", GrowthReport, "replay_growth")
    fig = described(cumulative_alt_text(reports), figsize=(5.5, 3.2), dpi=100, layout="constrained")
    ax = fig.subplots()
    for label, report in reports.items():
        ax.plot(report.column("call"), report.column("cumulative_sent_tokens"), marker="o", ms=3,
                label=drawn(translate(label)))
    ax.set(xlabel=drawn(_("model call")), ylabel=drawn(_("cumulative tokens sent")),
           title=drawn(translate(title) if title else _("cumulative tokens sent")))
    ax.xaxis.set_major_locator(call_ticks())
    ax.legend()
    ax.grid(alpha=0.3)
    return fig


def languages_figure(
    counts: Mapping[str, Mapping[str, int]], *, kinds: Sequence[str] = ("exact", "approximate"), title: str | None = None
) -> Figure:
    """Grouped bars: the same text's tokens per language, one bar per way of counting.

    ``counts`` maps a language to ``{kind: tokens}``, e.g.
    ``{"English": {"exact": 271, "approximate": 291}, ...}``.
    """
    if not isinstance(counts, Mapping) or not counts:
        raise TypeError(f"counts must be a non-empty mapping of language to token counts, got {counts!r:.80}")
    for language, row in counts.items():
        for kind in kinds:
            if not isinstance(row, Mapping) or kind not in row:
                raise ValueError(f"counts[{language!r}] must have a {kind!r} count, got {row!r:.80}")
            check_int(row[kind], f"counts[{language!r}][{kind!r}]")
    width = 0.8 / len(kinds)
    fig = described(languages_alt_text(counts, kinds=kinds), figsize=(6.5, 3.2), dpi=100, layout="constrained")
    ax = fig.subplots()
    for k, kind in enumerate(kinds):
        offset = (k - (len(kinds) - 1) / 2) * width
        bars = ax.bar([i + offset for i in range(len(counts))], [row[kind] for row in counts.values()], width,
                      label=drawn(translate(kind)))
        ax.bar_label(bars, fontsize=8)
    ax.set_xticks(range(len(counts)), [drawn(translate(language)) for language in counts])
    ax.set(ylabel=drawn(_("tokens")), ymargin=0.1,
           title=drawn(translate(title) if title else _("the same text: tokens by way of counting")))
    ax.legend()
    return fig


#: Past this many calls, the growth figure draws one point per bucket of calls (see :func:`_sampled`).
MAX_POINTS = 500


def _sampled(rows: Sequence[Any], column: str, max_points: int = MAX_POINTS) -> tuple[list[Any], int]:
    """At most about ``max_points`` of ``rows``: the row with the largest ``column`` in each bucket of
    ``k`` consecutive rows (so no peak is lost), plus the first and last row; and ``k`` (1: every row).

    >>> from types import SimpleNamespace as Row
    >>> rows = [Row(call=i, v=i % 7) for i in range(1, 1001)]
    >>> picked, k = _sampled(rows, "v", max_points=100)
    >>> k, len(picked), max(r.v for r in picked)
    (10, 102, 6)
    """
    if len(rows) <= max_points:
        return list(rows), 1
    k = math.ceil(len(rows) / max_points)
    picked = [rows[0]]
    for start in range(0, len(rows), k):
        best = max(rows[start:start + k], key=lambda r: getattr(r, column))
        if best is not picked[-1]:
            picked.append(best)
    if picked[-1] is not rows[-1]:
        picked.append(rows[-1])
    return picked, k


def figure_png(fig: Figure, *, dpi: int = 100) -> bytes:
    """The figure as PNG bytes, with no software version or date in the file."""
    check_instance(fig, "fig", Figure, "matplotlib")
    dpi = check_int(dpi, "dpi", minimum=1)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, metadata={"Software": None})
    return buffer.getvalue()


# --- text alternatives: each figure's point in words, from the numbers it draws --------------------


def growth_alt_text(report: GrowthReport, *, upto: int | None = None) -> str:
    """What :func:`growth_figure` shows, in words: the growth a call, where it crosses the limit, what is sent.

    >>> from langchain_core.messages import AIMessage, HumanMessage
    >>> from course_utils.window.growth import replay_growth
    >>> chat = [HumanMessage("a"), AIMessage("b")] * 4
    >>> growth_alt_text(replay_growth(chat, "dummy", limit=45))
    'Tokens per call, calls 1 to 4 (dummy counter): history tokens grow from 10 at call 1 to 70 at call 4, about 20 a call, and cross the 45 limit at call 3. Every call sends the whole history, so tokens sent cross it too. Cumulative tokens sent reach 160 by call 4.'
    """
    check_instance(report, "report", GrowthReport, "replay_growth")
    upto = len(report.rows) if upto is None else check_int(upto, "upto", minimum=1)
    rows = report.rows[:upto]
    if not rows:
        return said(translate("Tokens per call: no model call to show."))
    first, last = rows[0], rows[-1]
    counter = translate(report.token_counter)  # "exact", "approximate": words in Persian; an encoding stays
    if last.call == first.call:
        head = translate("Tokens at call 1 ({counter} counter): ").format(counter=counter)
        growth = translate("the history holds {tokens:,} tokens").format(tokens=first.history_tokens)
    else:
        head = translate("Tokens per call, calls 1 to {last} ({counter} counter): ").format(last=last.call, counter=counter)
        step = (last.history_tokens - first.history_tokens) / (last.call - first.call)
        growth = translate("history tokens grow from {first:,} at call {first_call} to {last:,} at call {last_call}, "
                           "about {step:,} a call").format(first=first.history_tokens, first_call=first.call,
                                                          last=last.history_tokens, last_call=last.call,
                                                          step=_about(step))
    sentences = []
    if report.limit is None:
        sentences.append(translate("{head}{growth}.").format(head=head, growth=growth))
    else:
        crossing = next((r for r in rows if r.history_tokens > report.limit), None)
        where = (translate("cross the {limit:,} limit at call {call}").format(limit=report.limit, call=crossing.call)
                 if crossing else translate("stay under the {limit:,} limit").format(limit=report.limit))
        sentences.append(translate("{head}{growth}, and {where}.").format(head=head, growth=growth, where=where))
        over = [r for r in rows if r.over_limit]
        if report.policy is None:
            sentences.append(translate("Every call sends the whole history, so tokens sent cross it too.") if over
                             else translate("Every call sends the whole history, so tokens sent stay under it too."))
        elif over:
            sentences.append(translate("With {policy}, tokens sent still go over it on {over} of {calls} calls, "
                                       "first at call {first}.").format(policy=translate(report.policy), over=len(over),
                                                                        calls=len(rows), first=over[0].call))
        else:
            most = max(r.sent_tokens for r in rows)
            sentences.append(translate("With {policy}, tokens sent stay under it: at most {most:,}.").format(
                policy=translate(report.policy), most=most))
    sentences.append(translate("Cumulative tokens sent reach {total:,} by call {call}.").format(
        total=last.cumulative_sent_tokens, call=last.call))
    k = _sampled(rows, "history_tokens")[1]
    if k > 1:
        sentences.append(translate("With {calls:,} calls, the lines are drawn from one point per {k} calls, each the "
                                   "largest value of its calls, so no peak is hidden; the numbers above are from "
                                   "every call.").format(calls=len(rows), k=k))
    return said(" ".join(sentences))


def budget_alt_text(working: BudgetWorking) -> str:
    """What :func:`budget_figure` shows: the limit, each part taken off, and what is left for history.

    >>> from course_utils.window.budget import budget_working
    >>> budget_alt_text(budget_working(4096, 350, 180, 700))
    'Waterfall: the 4,096-token context limit, minus system prompt 350, user input 180 and reply reserve 700, leaves B = 2,866 tokens for history (70% of the limit).'
    """
    check_instance(working, "working", BudgetWorking, "budget_working")
    parts = [translate("{part} {tokens:,}").format(part=translate(step.label), tokens=step.tokens)
             for step in working.steps]
    listed = parts[0] if len(parts) == 1 else translate("{parts} and {last}").format(
        parts=translate(", ").join(parts[:-1]), last=parts[-1])
    share = round(100 * working.budget / working.limit)
    return said(translate("Waterfall: the {limit:,}-token context limit, minus {listed}, leaves {name} = {budget:,} "
                          "tokens for history ({share}% of the limit).").format(
        limit=working.limit, listed=listed, name=working.name, budget=working.budget, share=share))


def overflow_alt_text(working: OverflowWorking) -> str:
    """What :func:`overflow_figure` shows: the parts stacked against the limit, and by how much they miss it.

    >>> from course_utils.window.budget import overflow_working
    >>> overflow_alt_text(overflow_working(1000, history=700, prompt=200, tools=180))
    'Stacked bar: history 700 + prompt 200 + tools 180 = 1,080 tokens, 80 over the 1,000-token limit.'
    """
    check_instance(working, "working", OverflowWorking, "overflow_working")
    parts = " + ".join(translate("{part} {tokens:,}").format(part=translate(label), tokens=tokens)
                       for label, tokens in working.parts)
    verdict = (translate("{over:,} over the {limit:,}-token limit").format(over=working.over, limit=working.limit)
               if working.over > 0 else
               translate("fits the {limit:,}-token limit with {spare:,} to spare").format(limit=working.limit,
                                                                                          spare=-working.over))
    return said(translate("Stacked bar: {parts} = {total:,} tokens, {verdict}.").format(
        parts=parts, total=working.total, verdict=verdict))


def _shape(report: GrowthReport) -> str:
    """How a replay's cumulative curve looks: it bends upward while each call sends more than the last.

    Compares the calls' sent tokens: later calls sending clearly more than
    earlier ones bend the curve upward; the last third of calls all within
    15% of each other means calls are capped, and the curve straightens.
    """
    sent = report.column("sent_tokens")
    half, third = len(sent) // 2, max(len(sent) // 3, 1)
    if half == 0:
        return translate("one call")
    early, late = sum(sent[:half]) / half, sum(sent[-half:]) / half
    tail = sent[-third:]
    capped = min(tail) > 0 and max(tail) <= 1.15 * min(tail)
    if late <= 1.5 * early:
        return translate("rising in a straight line")
    if capped:
        return translate("bending upward at first, then straight once each call is capped")
    return translate("bending upward (each call sends more)")


def cumulative_alt_text(reports: Mapping[str, GrowthReport]) -> str:
    """What :func:`cumulative_figure` shows: each replay's total and the shape of its curve, largest first."""
    if not isinstance(reports, Mapping) or not reports:
        raise TypeError(f"reports must be a non-empty mapping of label to GrowthReport, got {reports!r:.80}")
    for label, report in reports.items():
        check_instance(report, f"reports[{label!r}]", GrowthReport, "replay_growth")
    ranked = sorted(reports.items(), key=lambda item: -item[1].total_sent_tokens)
    lines = translate("; ").join(
        translate("{label}: {total:,} tokens after {calls} calls, {shape}").format(
            label=translate(label), total=report.total_sent_tokens, calls=report.calls, shape=_shape(report))
        for label, report in ranked
    )
    return said(translate("Cumulative tokens sent per call, one line per replay: {lines}.").format(lines=lines))


def languages_alt_text(counts: Mapping[str, Mapping[str, int]], *, kinds: Sequence[str] = ("exact", "approximate")) -> str:
    """What :func:`languages_figure` shows: each language's tokens per way of counting, and how they compare.

    >>> languages_alt_text({"English": {"exact": 100, "approximate": 110}, "Persian": {"exact": 250, "approximate": 105}})
    'Tokens for the same text by language: English 100 exact, 110 approximate; Persian 250 exact, 105 approximate. By exact count, Persian takes 2.5 times the tokens of English.'
    """
    if not isinstance(counts, Mapping) or not counts:
        raise TypeError(f"counts must be a non-empty mapping of language to token counts, got {counts!r:.80}")
    rows = translate("; ").join(
        translate("{language} {counts}").format(
            language=translate(language),
            counts=translate(", ").join(translate("{tokens:,} {kind}").format(tokens=row[kind], kind=translate(kind))
                                        for kind in kinds))
        for language, row in counts.items())
    text = translate("Tokens for the same text by language: {rows}.").format(rows=rows)
    languages = list(counts)
    kind = kinds[0]
    base = counts[languages[0]][kind]
    if len(languages) > 1 and base > 0:
        ratios = translate(", ").join(
            translate("{language} takes {ratio:.1f} times").format(language=translate(language),
                                                                   ratio=counts[language][kind] / base)
            for language in languages[1:])
        text += " " + translate("By {kind} count, {ratios} the tokens of {first}.").format(
            kind=translate(kind), ratios=ratios, first=translate(languages[0]))
    return said(text)


# --- retention strategies: recall against cost (lesson 05b) -------------------------------------

#: Marker and colour of each strategy of ``retention.compare_strategies``.
RETENTION_STYLES = {
    "trim": {"color": "#1e88e5", "marker": "o"},
    "trim_chunked": {"color": "#00897b", "marker": "s"},
    "summarise": {"color": "#43a047", "marker": "^"},
    "summary_window": {"color": "#8e24aa", "marker": "D"},
    "pinned_facts": {"color": "#f4511e", "marker": "P"},
}
CORNER_COLOUR = "#fff59d"


#: Marker areas (points²) of the smallest and largest threshold in the recall-against-cost figure.
COST_RECALL_SIZES = (18.0, 80.0)
#: How far (in percentage points) markers may be spread above and below their recall, so points
#: with the same recall and nearly the same cost stay visible side by side (a "beeswarm").
COST_RECALL_SPREAD = 9.0


def _swarm(xs_px: Sequence[float], radii_px: Sequence[float], px_per_unit: float, spread: float) -> list[float]:
    """Vertical offsets (in data units) that keep markers of one recall level apart: each marker, in order
    of cost, takes the smallest offset (0, +d, -d, +2d, ...) where its disc touches none placed before.

    >>> _swarm([10.0, 11.0, 50.0], [5.0, 5.0, 5.0], 2.0, 9.0)
    [0.0, 5.5, 0.0]
    """
    placed: list[tuple[float, float, float]] = []  # (x px, y px, radius px)
    offsets = []
    step = 0.5
    for x, r in zip(xs_px, radii_px):
        candidates = [0.0] + [sign * k * step for k in range(1, int(spread / step) + 1) for sign in (1, -1)]
        chosen = candidates[-1]
        for dy in candidates:
            y = dy * px_per_unit
            if all((x - px) ** 2 + (y - py) ** 2 >= (r + pr + 1) ** 2 for px, py, pr in placed):
                chosen = dy
                break
        placed.append((x, chosen * px_per_unit, r))
        offsets.append(chosen)
    return offsets


def cost_recall_figure(points: Sequence[Any], points_without_caching: Sequence[Any] | None = None, *, title: str | None = None) -> Figure:
    """Recall against cost, one point per strategy and threshold, the cheap-and-good corner shaded.

    ``points`` are ``retention.price_runs``'s (with caching); with
    ``points_without_caching`` a second panel on the same axes shows the same
    runs priced without caching. A marker's size grows with its threshold
    (the legend shows the smallest and the largest), so no point needs a
    number next to it. Points with the same recall are spread a little
    up and down around it (at most ``COST_RECALL_SPREAD`` points) so that
    none hides another; each recall level is a light band. The shaded
    corner is what is at most as expensive as the best point
    (``retention.best_point``: the cheapest with the top recall) and nearly as
    good; the best point is circled and named under the panel's title, outside
    the plotting area, so the name never covers a marker or a line. The
    legend sits below the panels for the same reason. The text alternative
    is ``retention.describe_cost_recall``.
    """
    from matplotlib.lines import Line2D

    from course_utils.agentic.retention import STRATEGY_LABELS, CostPoint, describe_cost_recall

    panels = [(_("with prompt caching"), list(points), "cost")]
    if points_without_caching is not None:
        panels.insert(0, (_("without caching"), list(points_without_caching), "cost_without_caching"))
    for _label, pts, _attr in panels:
        if not pts:
            raise TypeError("points must be a non-empty list of CostPoint (from retention.price_runs)")
        for i, p in enumerate(pts):
            check_instance(p, f"points[{i}]", CostPoint, "retention.price_runs")
    check_text(title, "title", none_ok=True)
    alt = describe_cost_recall(points, points_without_caching)
    thresholds = sorted({p.threshold for _, pts, _ in panels for p in pts})
    small, large = COST_RECALL_SIZES

    def size(threshold: int) -> float:
        # Marker area from the smallest threshold to the largest: the threshold at a glance.
        rank = thresholds.index(threshold) / max(len(thresholds) - 1, 1)
        return small + (large - small) * rank

    dpi = 100
    fig = described(alt, figsize=(10.0 if len(panels) == 2 else 6.0, 6.2), dpi=dpi)
    # Fixed margins (not a layout engine), so the axes' size in pixels is known before drawing and
    # markers can be spread by their real size. Room on top for the titles, below for the legend.
    two = len(panels) == 2
    fig.subplots_adjust(left=0.075 if two else 0.12, right=0.985 if two else 0.97, top=0.80 if title else 0.85,
                        bottom=0.18 if two else 0.30, wspace=0.06)
    axes = fig.subplots(1, len(panels), sharey=True, squeeze=False)[0]
    xmax = max(getattr(p, attr) for _, pts, attr in panels for p in pts) * 1000 * 1.06
    lowest = min(p.recall for _, pts, _ in panels for p in pts) * 100
    ylim = (min(lowest, 80) - COST_RECALL_SPREAD - 3, 100 + COST_RECALL_SPREAD + 3)
    handles: list[Any] = []
    for ax, (label, pts, attr) in zip(axes, panels):
        ax.set_xlim(0, xmax)
        ax.set_ylim(*ylim)
        box = ax.get_window_extent()
        px_x, px_y = box.width / xmax, box.height / (ylim[1] - ylim[0])
        costs = {id(p): getattr(p, attr) * 1000 for p in pts}
        # Spread the markers of each recall level so none covers another.
        offset: dict[int, float] = {}
        for recall in sorted({p.recall for p in pts}):
            level = sorted((p for p in pts if p.recall == recall), key=lambda p: (costs[id(p)], p.threshold))
            radii = [math.sqrt(size(p.threshold)) / 2 * dpi / 72 + 0.6 for p in level]
            for p, dy in zip(level, _swarm([costs[id(p)] * px_x for p in level], radii, px_y, COST_RECALL_SPREAD)):
                offset[id(p)] = dy
            ax.axhspan(recall * 100 - COST_RECALL_SPREAD, recall * 100 + COST_RECALL_SPREAD, color="#f4f4f4", zorder=0)
        top = max(p.recall for p in pts)
        best = min((p for p in pts if p.recall == top), key=lambda p: costs[id(p)])
        # The corner: cheaper than (or as cheap as) the best point, and nearly as good.
        ax.fill_between([0, costs[id(best)]], top * 100 - 12, ylim[1], color=CORNER_COLOUR, alpha=0.8, zorder=0.5)
        handles = []
        for strategy in dict.fromkeys(p.strategy for p in pts):
            mine = sorted((p for p in pts if p.strategy == strategy), key=lambda p: p.threshold)
            style = RETENTION_STYLES.get(strategy, {})
            colour, marker = style.get("color"), style.get("marker", "o")
            xs, ys = [costs[id(p)] for p in mine], [p.recall * 100 + offset[id(p)] for p in mine]
            ax.plot(xs, ys, linestyle=":", linewidth=0.8, color=colour, alpha=0.7, zorder=2)
            ax.scatter(xs, ys, s=[size(p.threshold) for p in mine], marker=marker, color=colour,
                       edgecolors="white", linewidths=0.6, zorder=3, gid=f"markers-{strategy}")
            handles.append(Line2D([], [], linestyle=":", linewidth=1, color=colour, marker=marker, markersize=6,
                                  label=drawn(translate(STRATEGY_LABELS.get(strategy, strategy)))))
        ax.scatter([costs[id(best)]], [best.recall * 100 + offset[id(best)]], s=size(best.threshold) + 150,
                   facecolors="none", edgecolors="black", linewidths=1.4, zorder=5)
        # The best point named in the panel's title, outside the plotting area.
        # One message per line: matplotlib lays out each line of a title on its own.
        ax.set_title(drawn("\n".join([
            label,
            _("circled, cheapest with {remembered}/{asked} facts: {strategy}").format(
                remembered=best.facts_remembered, asked=best.facts_asked,
                strategy=translate(STRATEGY_LABELS.get(best.strategy, best.strategy))),
            _("at {threshold} tokens, ${cost:.2f}").format(threshold=best.threshold, cost=costs[id(best)]),
        ])), fontsize=8.5)
        ax.set_xlabel(drawn(_("cost, $ per 1,000 conversations")))
        ax.set_yticks([0, 20, 40, 60, 80, 100])
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_ylabel(drawn(_("facts answered, words matched (%)")))
    sizes = [Line2D([], [], linestyle="none", marker="o", color="#757575", markersize=size(t) ** 0.5,
                    label=drawn(_("threshold {threshold:,} tokens").format(threshold=t)))
             for t in (thresholds[0], thresholds[-1])]
    fig.legend(handles=handles + sizes, fontsize=7.5, loc="lower center", ncol=4 if two else 2, frameon=False,
               title=drawn(_("shaded corner: as cheap as the circled point and nearly as good;")
                           + (" " if two else "\n") + _("grey bands: one recall level each")),
               title_fontsize=7.5)
    if title:
        fig.suptitle(drawn(translate(title)), fontsize=11)
    return fig
