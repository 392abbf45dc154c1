"""Pictures of an agent's model calls (lesson 06): figures, HTML tables and their text alternatives.

Presentation only: every function takes what :mod:`course_utils.agentic.agents`
computed (a ``TaskRun``, its ``CallRow``s, the comparison's ``StrategyRow``s)
and returns a matplotlib ``Figure``, an HTML string or a plain sentence.

- :func:`roles_figure`: tokens per model call as stacked bars, one colour per role;
- :func:`steps_figure`: a grid, one row per model call and one column per
  message of the transcript, coloured by what the call was sent (sent,
  cleared, summary, summarised, not sent);
- :func:`call_html`: the messages one call received, with role, status and tokens;
- :func:`comparison_html`: the strategies side by side;
- ``*_text`` functions: the point of each picture in one or two sentences, its
  text alternative.
"""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from course_utils.core.args import check_instance, check_int, check_text
from course_utils.agentic.agent_strategies import run_label
from course_utils.agentic.agents import (
    ROLES,
    STATUSES,
    CallRow,
    StrategyRow,
    TaskRun,
    call_rows,
    message_counter,
    message_statuses,
    role_of,
    tokens_by_role,
)
from course_utils.core.i18n import PDI, RLI, _, direction, pgettext, translate
from course_utils.pictures.plots import DescribedFigure, drawn
from course_utils.pictures.render import preview
from course_utils.core.style import LIMIT_COLOUR, NEUTRAL, STATUS_COLOURS as PALETTE
from course_utils.pictures.templates import Markup, render_template
from course_utils.window.tokens import resolve_token_counter

#: One colour per role (tool results stand out; cleared results are pale).
ROLE_COLOURS = {
    "system": "#5c6bc0",
    "tool schemas": "#9fa8da",
    "human": "#26a69a",
    "summary": "#8e24aa",
    "ai text": NEUTRAL,
    "ai tool calls": "#616161",
    "tool results": "#ef6c00",
    "cleared tool results": "#ffe0b2",
    "reply priming": "#212121",
}
#: One colour per status in the steps grid; "later" is white (the message did not exist yet).
#: The course palette's meanings: sent as "kept", cleared as "partial", not sent as "dropped".
STATUS_COLOURS = {
    "sent": PALETTE["kept"][0],
    "cleared": "#f9a825",
    "summary": PALETTE["solution"][0],
    "summarised": "#ce93d8",
    "not sent": PALETTE["dropped"][0],
    "later": "#ffffff",
}
#: Darker twins of the status colours, for status words written on white (contrast 4.5:1 or more).
STATUS_TEXT_COLOURS = {**STATUS_COLOURS, "cleared": PALETTE["partial"][0], "summarised": "#6a1b9a"}
#: A mark drawn in each grid cell that is not plainly sent, so the grid does not rely on colour alone.
STATUS_MARKS = {"cleared": "c", "summary": "Σ", "summarised": "s", "not sent": "×"}
ROLE_LETTERS = {"system": "S", "tool schemas": "S", "human": "H", "summary": "Σ", "ai text": "A", "ai tool calls": "C",
                "tool results": "T", "cleared tool results": "T"}


#: Unicode's left-to-right isolate (U+2066); ``PDI`` ends it.
LRI = "\u2066"


def _ltr(text: str) -> str:
    """English data (a request, a run's name) inside a right-to-left sentence: isolated left to right.

    Without it a Persian sentence ending in "...on Saturday?" would show the
    question mark on the wrong side. Unchanged in English.
    """
    return f"{LRI}{text}{PDI}" if direction() == "rtl" else text


def _line(text: str) -> str:
    """A line assembled from translated pieces, isolated as one right-to-left line in Persian."""
    return f"{RLI}{text}{PDI}" if direction() == "rtl" else text


def _word(context: str | None, text: str) -> str:
    """A translated word, separator or piece of a longer line: without the isolate of its own that ``_`` adds."""
    translated = _(text) if context is None else pgettext(context, text)
    return translated.replace(RLI, "").replace(PDI, "")


def _check_rows(rows: Sequence[CallRow] | TaskRun) -> list[CallRow]:
    if isinstance(rows, TaskRun):  # a run: its agent calls' rows
        rows = call_rows(rows)
    if isinstance(rows, (str, bytes)) or not isinstance(rows, Sequence) or not rows:
        raise TypeError(f"rows must be a non-empty list of CallRow (from call_rows), got {rows!r:.80}")
    for i, row in enumerate(rows):
        check_instance(row, f"rows[{i}]", CallRow, "call_rows")
    return list(rows)


def roles_figure(rows: Sequence[CallRow] | TaskRun, *, limit: int | None = None, title: str | None = None) -> Figure:
    """Tokens per model call, stacked by role, with the context window as a dashed line.

    ``rows`` is :func:`~course_utils.agentic.agents.call_rows` of a run, or the run itself.
    """
    rows = _check_rows(rows)
    limit = check_int(limit, "limit", minimum=1, none_ok=True)
    check_text(title, "title", none_ok=True)
    fig = DescribedFigure(figsize=(9.0, 3.6), dpi=100, layout="constrained")
    fig.alt_text = _("Input tokens per model call, stacked by role.") + " " + roles_text(rows)  # the image's alt
    ax = fig.subplots()
    x = [r.call for r in rows]
    bottom = [0] * len(rows)
    for role in ROLES:
        heights = [r.parts.get(role, 0) for r in rows]
        if any(heights):
            ax.bar(x, heights, bottom=bottom, color=ROLE_COLOURS[role], label=role, edgecolor="white", linewidth=0.5)
            bottom = [b + h for b, h in zip(bottom, heights)]
    for r in rows:
        if r.error:
            ax.annotate(drawn(_("refused")), (r.call, r.tokens), ha="center", va="bottom", fontsize=8, color="#b71c1c")
    if limit is not None:
        ax.axhline(limit, color=LIMIT_COLOUR, linestyle="--", label=drawn(_("context window {limit}").format(limit=limit)))
    ax.set_xticks(x, [f"{r.call}\n" + drawn(_("turn {turn}").format(turn=r.turn)) for r in rows], fontsize=8)
    ax.set(xlabel=drawn(_("model call")), ylabel=drawn(_("input tokens")),
           title=drawn(title or _("what each model call was sent, by role")))
    ax.legend(loc="upper left", fontsize=8, ncols=2)
    ax.grid(axis="y", alpha=0.3)
    return fig


def roles_text(rows: Sequence[CallRow] | TaskRun) -> str:
    """The point of :func:`roles_figure` in words: how much of the last call tool results take."""
    rows = _check_rows(rows)
    last = rows[-1]
    tools = last.parts.get("tool results", 0)
    share = round(100 * tools / last.tokens) if last.tokens else 0
    return _(
        "Input tokens grow from {first} on call 1 to {last} on call {call}; "
        "on the last call tool results are {tools} tokens ({share}%), "
        "the user's requests {human}, the system prompt {system}, "
        "the tool schemas {schemas} "
        "and the reply priming {priming}."
    ).format(first=rows[0].tokens, last=last.tokens, call=last.call, tools=tools, share=share,
             human=last.parts.get("human", 0), system=last.parts.get("system", 0),
             schemas=last.parts.get("tool schemas", 0), priming=last.parts.get("reply priming", 0))


def steps_figure(run: TaskRun, *, title: str | None = None) -> Figure:
    """Which message each model call was sent: rows are calls, columns the transcript's messages."""
    check_instance(run, "run", TaskRun, "run_task")
    check_text(title, "title", none_ok=True)
    messages, grid = message_statuses(run)
    if not grid:
        raise ValueError(f"run {run.name!r} has no agent model call to draw")
    codes = [[STATUSES.index(s) for s in row] for row in grid]
    fig = DescribedFigure(figsize=(9.0, 0.5 + 0.34 * len(grid) + 0.9), dpi=100, layout="constrained")
    fig.alt_text = _("Which messages each model call of {name} was sent:").format(name=run_label(run.name)) + " " + steps_text(run)
    ax = fig.subplots()
    ax.imshow(codes, cmap=ListedColormap([STATUS_COLOURS[s] for s in STATUSES]), vmin=0, vmax=len(STATUSES) - 1,
              aspect="auto", interpolation="nearest")
    ax.set_xticks(range(len(messages)), [ROLE_LETTERS[role_of(m)] for m in messages], fontsize=8)
    ax.set_yticks(range(len(grid)), [drawn(_("call {call} (turn {turn})").format(call=i + 1, turn=c.turn))
                                     for i, c in enumerate(run.agent_calls)], fontsize=8)
    ax.set_xticks([i - 0.5 for i in range(len(messages) + 1)], minor=True)
    ax.set_yticks([i - 0.5 for i in range(len(grid) + 1)], minor=True)
    for y, row in enumerate(grid):
        for x, status in enumerate(row):
            if status in STATUS_MARKS:
                ax.text(x, y, STATUS_MARKS[status], ha="center", va="center", fontsize=8,
                        color="black" if status in ("cleared", "summarised") else "white")
    ax.grid(which="minor", color="#e0e0e0", linewidth=0.6)
    ax.tick_params(which="minor", length=0)
    ax.set_xlabel(drawn(_("messages of the task, in order (S system, H human, C ai tool calls, T tool result, "
                          "A ai text, Σ summary)")), fontsize=8)
    ax.set_title(drawn(title or _("{name}: what each model call was sent").format(name=run_label(run.name))))
    used = [s for s in STATUSES if any(s in row for row in grid)]
    labels = [drawn(f"{translate(s, 'message status')} ({STATUS_MARKS[s]})" if s in STATUS_MARKS
                    else translate(s, "message status")) for s in used]
    ax.legend(handles=[Patch(facecolor=STATUS_COLOURS[s], edgecolor=NEUTRAL, label=label)
                       for s, label in zip(used, labels)],
              loc="upper center", bbox_to_anchor=(0.5, -0.22), ncols=len(used), fontsize=8, frameon=False)
    return fig


def steps_text(run: TaskRun) -> str:
    """The point of :func:`steps_figure` in words: per call, how many messages had each status."""
    check_instance(run, "run", TaskRun, "run_task")
    _, grid = message_statuses(run)
    lines = []
    for i, row in enumerate(grid, start=1):
        counts = [f"{row.count(s)} {_word('message status', s)}" for s in STATUSES[:-1] if row.count(s)]
        lines.append(_word(None, "call {number}: {counts}").format(number=i, counts=_word("separator", ", ").join(counts)))
    return _line(_word("separator", "; ").join(lines) + ".")


def call_html(run: TaskRun, call: int, *, token_counter: str = "exact", preview_chars: int = 70) -> str:
    """The messages agent call number ``call`` (1-based) received: role, status, tokens and a preview.

    Each message's tokens are what it adds to the call (:func:`~course_utils.agentic.agents.message_counter`);
    the caption adds the tool schemas and the reply priming to give the call's input tokens, and
    shows the count the model itself reported next to it.
    """
    check_instance(run, "run", TaskRun, "run_task")
    calls = run.agent_calls
    call = check_int(call, "call", minimum=1)
    if call > len(calls):
        raise ValueError(f"call must be between 1 and {len(calls)} (the run's agent calls), got {call}")
    counter = resolve_token_counter(token_counter)
    one = message_counter(counter)
    sent = calls[call - 1]
    parts = tokens_by_role(sent.messages, counter, sent.tools)
    rows = []
    for message in sent.messages:
        role = role_of(message)
        status = "summary" if role == "summary" else "cleared" if role == "cleared tool results" else "sent"
        rows.append({"role": role, "status": translate(status, "message status"),
                     "colour": STATUS_TEXT_COLOURS[status], "tokens": one(message),
                     "text": preview(message.text or translate("(tool calls)"), preview_chars)})
    total = sum(parts.values())
    count = len(sent.messages)
    # Each piece a whole phrase of its own, so a translation can order its words (the run's name and
    # the error are data: isolated left to right inside a Persian caption by _ltr).
    caption = (translate("Call {call} (turn {turn}) of {name}: ").format(call=call, turn=sent.turn, name=run_label(run.name))
               + (translate("1 message, {tokens:,} tokens") if count == 1 else translate("{count} messages, {tokens:,} tokens")
                  ).format(count=count, tokens=total - parts['tool schemas'] - parts['reply priming'])
               + (translate(", tool schemas {tokens:,}").format(tokens=parts['tool schemas']) if sent.tools else "")
               + (translate(", reply priming {tokens:,}").format(tokens=parts['reply priming'])
                  if parts["reply priming"] else "")
               + translate(": {total:,} input tokens").format(total=total)
               + (translate(" (the model reported {tokens:,})").format(tokens=sent.input_tokens)
                  if sent.input_tokens is not None else "")
               + (translate("; refused: {error}").format(error=_ltr(str(sent.error))) if sent.error else ""))
    return render_template("agent_call.html.j2", caption=caption, rows=rows)


#: comparison_html's caption unless the caller gives one.
COMPARISON_CAPTION = "The same task under each strategy (input tokens counted with the exact counter, cl100k_base)"


def comparison_html(rows: Sequence[StrategyRow], *, caption: str | None = None) -> str:
    """The comparison table of :func:`course_utils.agentic.agents.compare_runs` as HTML, with a caption.

    ``caption`` defaults to :data:`COMPARISON_CAPTION`, in the current language.
    """
    check_text(caption, "caption", none_ok=True)
    if caption is None:
        caption = translate(COMPARISON_CAPTION)
    if isinstance(rows, (str, bytes)) or not isinstance(rows, Sequence) or not rows:
        raise TypeError(f"rows must be a non-empty list of StrategyRow (from compare_runs), got {rows!r:.80}")
    for i, row in enumerate(rows):
        check_instance(row, f"rows[{i}]", StrategyRow, "compare_runs")
    # A strategy's name in the learner's language (run_label); a name the catalogue lacks is English data,
    # isolated left to right in a Persian table ("... (window 100,000)").
    body = [(run_label(r.strategy), r.agent_calls, f"{r.tokens_sent:,}", f"{r.largest_call:,}", f"{r.summary_tokens:,}",
             r.turns_failed, f"{r.facts_answered}/{r.facts_asked}", r.orphaned_tool_results) for r in rows]
    return render_template("agent_comparison.html.j2", caption=caption, rows=body)


def turns_text(run: TaskRun, *, width: int = 90) -> str:
    """One line per turn of the task: the request, its tool calls, and the answer or the error."""
    check_instance(run, "run", TaskRun, "run_task")
    lines = []
    for turn in run.turns:
        outcome = _("REFUSED:") + f" {turn.error}" if turn.error else turn.answer or ""
        head = _("turn {number} ({calls} tool calls) {request}").format(
            number=turn.number, calls=turn.tool_calls, request=_ltr(turn.request))
        lines.append(f"{head}\n    -> {preview(outcome, width)}")
    return "\n".join(lines)


def probes_text(run: TaskRun, *, width: int = 90) -> str:
    """One line per probe question: answered or not, and what the agent said."""
    check_instance(run, "run", TaskRun, "run_task")
    lines = [_("{name}: {answered}/{asked} facts answerable from what was sent").format(
        name=run_label(run.name), answered=run.facts_answered, asked=len(run.probes))]
    for probe in run.probes:
        mark = _word("probe answered", "yes") if probe.answered else _word("probe answered", "NO ")
        said = probe.error or probe.answer or ""
        lines.append(f"  {mark} {probe.question}\n      -> {preview(said, width)}")
    return "\n".join(lines)



# --- a widget: step through the calls of each strategy ------------------------------------------


def call_status_line(run: TaskRun, call: int) -> str:
    """One sentence: how many messages of the task agent call ``call`` was sent, cleared, summarised or not sent."""
    check_instance(run, "run", TaskRun, "run_task")
    _, grid = message_statuses(run)
    call = check_int(call, "call", minimum=1)
    if call > len(grid):
        raise ValueError(f"call must be between 1 and {len(grid)} (the run's agent calls), got {call}")
    row = grid[call - 1]
    separator = translate(", ", "list separator")
    counts = separator.join(f"{row.count(s)} {translate(s, 'message status')}" for s in STATUSES[:-1] if row.count(s))
    return translate("{name}, call {call} of {calls}: of the {count} messages so far, {counts}.").format(
        name=run_label(run.name), call=call, calls=len(grid), count=len(row) - row.count("later"), counts=counts)


def _explorer_class():
    """AgentStepExplorer, built on first use so importing this module does not need ipywidgets."""
    import ipywidgets as widgets

    from course_utils.pictures.widgets import StaticHtmlMixin

    class AgentStepExplorer(StaticHtmlMixin, widgets.VBox):
        """Pick a strategy and a model call; see the messages that call was sent.

        Both controls have names (``strategy``, ``model call``) and work by
        keyboard; the table states each message's role and status in words.
        The result lives in the HTML widget's ``value`` (nothing is printed).
        """

        def __init__(self, runs: Sequence[TaskRun], **kwargs):
            if isinstance(runs, (str, bytes)) or not isinstance(runs, Sequence) or not runs:
                raise TypeError(f"runs must be a non-empty list of TaskRun (from run_task), got {runs!r:.80}")
            for i, run in enumerate(runs):
                check_instance(run, f"runs[{i}]", TaskRun, "run_task")
                if not run.agent_calls:
                    raise ValueError(f"runs[{i}] ({run.name!r}) has no agent model call to show")
            names = [run.name for run in runs]
            if len(set(names)) != len(names):
                raise ValueError(f"runs must have different names, got {names}")
            self.runs = {run.name: run for run in runs}
            style = {"description_width": "initial"}
            self.strategy = widgets.Dropdown(options=[(run_label(name), name) for name in names], value=names[0],
                                             description=translate("strategy"),
                                             style=style, layout=widgets.Layout(width="32em"))
            self.call = widgets.IntSlider(value=1, min=1, max=len(runs[0].agent_calls), description=translate("model call"),
                                          style=style, continuous_update=True)
            self.view = widgets.HTML()
            self.view.add_class("agent-step-view")
            super().__init__([self.strategy, self.call, self.view], **kwargs)
            self.add_class("agent-explorer")
            self.strategy.observe(self._on_strategy, names="value")
            self.call.observe(lambda change: self._render(), names="value")
            self._render()

        @property
        def run(self) -> TaskRun:
            return self.runs[self.strategy.value]

        def _on_strategy(self, change) -> None:
            calls = len(self.run.agent_calls)
            if self.call.value > calls:
                self.call.value = calls  # renders through the slider's observer
            self.call.max = calls
            self._render()

        def _render(self) -> None:
            self.view.value = render_template("agent_step.html.j2", line=call_status_line(self.run, self.call.value),
                                              table=Markup(call_html(self.run, self.call.value)))

        def static_html(self) -> str:
            return self.view.value

        def __repr__(self) -> str:
            call = self.run.agent_calls[self.call.value - 1]
            return (f"AgentStepExplorer({self.strategy.value!r}, call {self.call.value} of "
                    f"{len(self.run.agent_calls)}): {len(call.messages)} messages sent")

    return AgentStepExplorer


def agent_step_explorer(runs: Sequence[TaskRun]):
    """A widget to step through what each model call of each run was sent (see ``AgentStepExplorer``)."""
    return _explorer_class()(runs)
