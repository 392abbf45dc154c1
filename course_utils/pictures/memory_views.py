"""Figures of lesson 07: what memory costs per call, and what offloading takes out of the window.

Each figure is a :class:`~course_utils.pictures.plots.DescribedFigure`: in a notebook
an ``<img alt="...">`` whose text alternative states the figure's point,
computed from the numbers drawn.

>>> from course_utils.window.memory_costs import compare_memory_costs
>>> from course_utils.core.samples import load_sample
>>> fig = memory_costs_figure(compare_memory_costs(load_sample("spread_chat")))
>>> fig.alt_text.split(":")[0]
'Tokens sent per call over a 40-turn chat'
"""

from __future__ import annotations

from collections.abc import Sequence

from course_utils.core.args import check_int

from course_utils.window.memory_costs import MemoryCosts
from course_utils.core.i18n import _, translate
from course_utils.pictures.plots import call_ticks, described, drawn, said
from course_utils.core.style import HISTORY_COLOUR, NEUTRAL, SENT_COLOUR


def memory_costs_alt_text(costs: MemoryCosts) -> str:
    return said(translate(
        "Tokens sent per call over a {turns}-turn chat: with the memory in the history the calls grow from {first:,} "
        "to {last:,} tokens ({history_total:,} in all); with the memory in the store they stay between {least:,} and "
        "{most:,} tokens ({store_total:,} in all, counting the {saves} extra calls that saved the facts).").format(
        turns=costs.turns, first=costs.history_calls[0], last=costs.history_calls[-1], history_total=costs.history_total,
        least=min(costs.store_calls), most=max(costs.store_calls), store_total=costs.store_total,
        saves=len(costs.store_saves)))


def memory_costs_figure(costs: MemoryCosts):
    """Tokens sent per call, memory in the history against memory in the store, over the turns."""
    if not isinstance(costs, MemoryCosts):
        raise TypeError(f"costs must be a MemoryCosts (compare_memory_costs(...)), got {type(costs).__name__}")
    fig = described(memory_costs_alt_text(costs), figsize=(8.5, 3.4))
    ax = fig.add_subplot()
    turns = range(1, costs.turns + 1)
    ax.plot(turns, costs.history_calls, color=HISTORY_COLOUR, marker="o", markersize=3, label=drawn(_("memory in the history")))
    ax.plot(turns, costs.store_calls, color=SENT_COLOUR, marker="s", markersize=3, label=drawn(_("memory in the store")))
    ax.set_xlabel(drawn(_("turn (one model call each; the store adds one call per fact saved)")))
    ax.set_ylabel(drawn(_("tokens sent")))
    ax.xaxis.set_major_locator(call_ticks())
    ax.grid(axis="y", color=NEUTRAL, alpha=0.3)
    ax.legend(frameon=False)
    ax.set_title(drawn(_("Remembering the user: what each call is sent")))
    fig.tight_layout()
    return fig


def offload_alt_text(kept: Sequence[int], offloaded: Sequence[int]) -> str:
    steps = translate("; ").join(
        translate("after request {request}, {kept:,} tokens kept in the history against {offloaded:,} offloaded").format(
            request=i + 1, kept=a, offloaded=b)
        for i, (a, b) in enumerate(zip(kept, offloaded)))
    return said(translate("Tokens the next call is sent: {steps}. The read-back brings the whole result back.").format(
        steps=steps))


def _token_list(value, parameter: str) -> list[int]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or not value:
        raise TypeError(f"{parameter} must be a non-empty list of token counts, one per request, got {value!r:.80}")
    return [check_int(x, f"{parameter}[{i}]") for i, x in enumerate(value)]


def offload_figure(kept: Sequence[int], offloaded: Sequence[int], result_tokens: int | None = None):
    """Grouped bars: the history's tokens after each request, with the large result kept and offloaded.

    ``kept`` and ``offloaded``: the tokens the thread's history holds after each
    request, one list per agent; ``result_tokens``: the offloaded result's size, for the title.
    """
    kept, offloaded = _token_list(kept, "kept"), _token_list(offloaded, "offloaded")
    fig = described(offload_alt_text(kept, offloaded), figsize=(8.5, 3.4))
    ax = fig.add_subplot()
    n = min(len(kept), len(offloaded))
    xs = range(n)
    ax.bar([x - 0.2 for x in xs], kept[:n], width=0.4, color=HISTORY_COLOUR, label=drawn(_("kept in the history")))
    ax.bar([x + 0.2 for x in xs], offloaded[:n], width=0.4, color=SENT_COLOUR, label=drawn(_("offloaded to the store")))
    for x in xs:
        ax.annotate(f"{offloaded[x]:,}", (x + 0.2, offloaded[x]), ha="center", va="bottom", fontsize=8)
    ax.set_xticks(list(xs), [drawn(_("request {number}").format(number=x + 1)) for x in xs])
    ax.set_ylabel(drawn(_("tokens in the history")))
    ax.grid(axis="y", color=NEUTRAL, alpha=0.3)
    ax.set_ylim(0, max(*kept[:n], *offloaded[:n]) * 1.3)  # room for the legend above the bars
    ax.legend(frameon=False, loc="upper left", ncol=2)
    if result_tokens is not None:
        heading = _("A {tokens:,}-token tool result: kept in the history, or offloaded with a pointer").format(
            tokens=check_int(result_tokens, "result_tokens"))
    else:
        heading = _("A large tool result: kept in the history, or offloaded with a pointer")
    ax.set_title(drawn(heading))
    fig.tight_layout()
    return fig
