"""Pictures of lesson 07b: windows of parent and sub-agent, totals per request, schema tokens per call.

Presentation only: each function takes what :mod:`course_utils.agentic.subagents` and
:mod:`course_utils.agentic.tool_selection` computed and returns a
:class:`course_utils.pictures.plots.DescribedFigure`, whose text alternative
(``fig.alt_text``, also the ``*_text`` functions) states the figure's point
from the numbers it draws.
"""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.ticker import MaxNLocator

from course_utils.core.args import check_instance
from course_utils.core.i18n import _, translate
from course_utils.pictures.plots import DescribedFigure, drawn
from course_utils.core.style import HISTORY_COLOUR, LIMIT_COLOUR, NEUTRAL, SENT_COLOUR
from course_utils.agentic.subagents import CHILD_NAME, IsolationComparison, break_even, cumulative_tokens
from course_utils.agentic.call_accounting import AccountedRun
from course_utils.agentic.tool_selection import SchemaRow, schema_rows

#: One colour (and, for the child, a hatch: colour is never the only cue) per agent.
AGENT_STYLES = {"single": (SENT_COLOUR, ""), "planner": (HISTORY_COLOUR, ""), "researcher": ("#8e24aa", "//")}
SCHEMA_COLOUR = "#9fa8da"
SELECTION_HATCH = ".."


def windows_text(comparison: IsolationComparison) -> str:
    """The point of :func:`windows_figure` in words."""
    check_instance(comparison, "comparison", IsolationComparison, "compare_isolation")
    single, parent = comparison.parent_window()
    child = max((c.input_tokens for c in comparison.isolated.calls if c.agent == CHILD_NAME), default=0)
    return _("The single agent's largest call was sent {single} tokens; with a sub-agent the parent's largest was "
             "{parent} and the child's {child}, but the parent and child made "
             "{isolated_calls} calls where the single agent made {single_calls}.").format(
        single=single, parent=parent, child=child, isolated_calls=comparison.isolated.total_calls,
        single_calls=comparison.single.total_calls)


def windows_figure(comparison: IsolationComparison | AccountedRun, isolated: AccountedRun | None = None) -> DescribedFigure:
    """Input tokens of every call: the single agent's on the left, the parent's and the child's on the right.

    Pass a comparison (``compare_isolation``), or the two runs: ``windows_figure(single, isolated)``.
    """
    if isolated is not None:
        check_instance(comparison, "single", AccountedRun, "run_requests")
        comparison = IsolationComparison(comparison, check_instance(isolated, "isolated", AccountedRun, "run_requests"))
    check_instance(comparison, "comparison", IsolationComparison, "compare_isolation")
    fig = DescribedFigure(figsize=(9.0, 3.4), dpi=100, layout="constrained")
    # One message, not two joined: two right-to-left sentences on one printed line would read in the wrong order.
    fig.alt_text = _("Input tokens of every model call. {point}").format(point=windows_text(comparison))
    axes = fig.subplots(1, 2, sharey=True)
    for ax, run in zip(axes, (comparison.single, comparison.isolated)):
        seen = set()
        for number, call in enumerate(run.calls, start=1):
            colour, hatch = AGENT_STYLES.get(call.agent, (NEUTRAL, ""))
            label = None if call.agent in seen else drawn(translate(call.agent))
            seen.add(call.agent)
            ax.bar(number, call.input_tokens, color=colour, hatch=hatch, edgecolor="white", label=label)
        ax.set(title=drawn(_("{name}: {calls} calls").format(name=translate(run.name), calls=run.total_calls)),
               xlabel=drawn(_("model call, in order")), xlim=(0.4, len(run.calls) + 0.6))
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.legend(fontsize=8, loc="upper left")
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel(drawn(_("input tokens of the call")))
    return fig


def totals_text(comparison: IsolationComparison) -> str:
    """The point of :func:`totals_figure` in words."""
    check_instance(comparison, "comparison", IsolationComparison, "compare_isolation")
    single, isolated = cumulative_tokens(comparison.single), cumulative_tokens(comparison.isolated)
    turns = break_even(comparison.single, comparison.isolated)
    when = (_("from request {turns} on, isolation has cost less").format(turns=turns) if turns
            else _("isolation never cost less within the task"))
    return _("After one request the single agent had used {single_first} tokens and parent plus child "
             "{isolated_first}; after {requests} requests {single_last} against {isolated_last}: {when}.").format(
        single_first=single[0], isolated_first=isolated[0], requests=len(single), single_last=single[-1],
        isolated_last=isolated[-1], when=when)


def totals_figure(comparison: IsolationComparison) -> DescribedFigure:
    """Tokens of every call so far, after each request, with and without the sub-agent."""
    check_instance(comparison, "comparison", IsolationComparison, "compare_isolation")
    fig = DescribedFigure(figsize=(6.5, 3.2), dpi=100, layout="constrained")
    fig.alt_text = _("Total tokens after each request. {point}").format(point=totals_text(comparison))
    ax = fig.subplots()
    for run, colour, marker in ((comparison.single, SENT_COLOUR, "o"), (comparison.isolated, HISTORY_COLOUR, "s")):
        totals = cumulative_tokens(run)
        ax.plot(range(1, len(totals) + 1), totals, marker=marker, color=colour, label=drawn(translate(run.name)))
    turns = break_even(comparison.single, comparison.isolated)
    if turns:
        ax.axvline(turns, color=LIMIT_COLOUR, linestyle="--", label=drawn(_("isolation pays from request {turns}").format(turns=turns)))
    ax.set(xlabel=drawn(_("requests so far")), ylabel=drawn(_("tokens of every call (in + out)")),
           title=drawn(_("total cost: one agent against parent + sub-agent")))
    ax.set_xticks(range(1, len(comparison.single.requests) + 1))
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return fig


def schema_text(before: Sequence[SchemaRow], after: Sequence[SchemaRow]) -> str:
    """The point of :func:`schema_figure` in words."""
    agent_before = [r for r in before if r.purpose == "agent"]
    agent_after = [r for r in after if r.purpose == "agent"]
    selection = [r for r in after if r.purpose == "selection"]
    return _("With every tool bound, each agent call carried {before} schema tokens; with a selector, {least} to "
             "{most}, but {selections} selector calls of about {selection_tokens} tokens each came on top.").format(
        before=agent_before[0].schema_tokens if agent_before else 0,
        least=min((r.schema_tokens for r in agent_after), default=0),
        most=max((r.schema_tokens for r in agent_after), default=0), selections=len(selection),
        selection_tokens=selection[0].input_tokens if selection else 0)


def schema_figure(before: Sequence[SchemaRow] | AccountedRun, after: Sequence[SchemaRow] | AccountedRun) -> DescribedFigure:
    """Input tokens per call, the tool schemas' share shaded, without and with a tool selector.

    ``before`` and ``after``: two runs (``run_requests``) or their :func:`schema_rows`.
    """
    before = schema_rows(before) if isinstance(before, AccountedRun) else before
    after = schema_rows(after) if isinstance(after, AccountedRun) else after
    for name, rows in (("before", before), ("after", after)):
        if isinstance(rows, (str, bytes)) or not rows:
            raise TypeError(f"{name} must be a non-empty list of SchemaRow (from schema_rows), got {rows!r:.80}")
        for i, row in enumerate(rows):
            check_instance(row, f"{name}[{i}]", SchemaRow, "schema_rows")
    fig = DescribedFigure(figsize=(9.0, 3.4), dpi=100, layout="constrained")
    fig.alt_text = _("Input tokens per call, tool schemas shaded. {point}").format(point=schema_text(before, after))
    axes = fig.subplots(1, 2, sharey=True)
    for ax, rows, title in ((axes[0], before, _("every tool bound")), (axes[1], after, "LLMToolSelectorMiddleware")):
        for row in rows:
            hatch = SELECTION_HATCH if row.purpose == "selection" else ""
            ax.bar(row.call, row.schema_tokens, color=SCHEMA_COLOUR, hatch=hatch, edgecolor="white")
            ax.bar(row.call, row.input_tokens - row.schema_tokens, bottom=row.schema_tokens, color=NEUTRAL,
                   hatch=hatch, edgecolor="white")
        ax.set(title=drawn(title), xlabel=drawn(_("model call (dotted: a selector call)")))
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel(drawn(_("input tokens")))
    from matplotlib.patches import Patch

    axes[0].legend(handles=[Patch(color=SCHEMA_COLOUR, label=drawn(_("tool schemas"))),
                            Patch(color=NEUTRAL, label=drawn(_("everything else")))], fontsize=8, loc="upper left")
    return fig
