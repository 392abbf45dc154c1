"""Interactive widgets over the course's functions (lessons 01-04).

- :class:`TrimExplorer`: every ``trim_messages`` option as a control; each
  message is a row coloured kept / partial / dropped with the reason.
- :class:`BudgetCalculator`: sliders for L, S, U, R and M; the budget worked
  out step by step and drawn as a waterfall.
- :class:`GrowthExplorer`: a turn slider over a replayed conversation; the
  growth up to that call against the limit, and what that call would send.

Each widget is an ``ipywidgets.VBox`` of real controls. Its computed results
live in traitlets (``report``, ``working``, ``growth``, ``error``) and in the
``value`` of its ``output`` HTML widget, so a test (or a curious learner) can
drive it from Python without a browser::

    explorer = TrimExplorer(load_conversation("bob"), max_tokens=60)
    explorer.max_tokens.value = 30           # move the slider
    [row.status for row in explorer.report.rows]

Nothing is printed: results go into trait values, which is what keeps the
lessons' stored outputs stable under ``nbval``. Each widget also has
``static_html()``, the same picture as plain HTML; it is stored in the
notebook next to the live widget, so GitHub and nbconvert still show it.

The computing is done by ``trimming.py``, ``budget.py`` and ``growth.py``; the
pictures by ``render.py`` and ``plots.py``. This module only wires controls
to them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import ipywidgets as widgets
import traitlets
from langchain_core.messages import AIMessage, BaseMessage

from course_utils.pictures import render
from course_utils.pictures.a11y import BUDGET_HELP, GROWTH_HELP, TRIM_HELP, describe_controls, page_script_bundle
from course_utils.core.args import check_bool, check_choice, check_int, check_text
from course_utils.core.i18n import pgettext, translate
from course_utils.window.budget import BudgetWorking, budget_working
from course_utils.window.growth import GROWTH_STRATEGIES, GrowthReport, growth_trim_kwargs, replay_growth, trim_policy
from course_utils.pictures.plots import budget_figure, figure_png, growth_figure, without_rtl_isolates
from course_utils.pictures.templates import Markup, render_template
from course_utils.window.tokens import COUNTER_NAMES, check_messages, get_token_counter, tokenizer_status
from course_utils.pictures.trim_view import RUN_ROWS, trim_region_html, trim_report_html
from course_utils.window.trimming import TrimReport, explain_trim, trim_option_conflicts, untrimmed_report

#: Message types TrimExplorer's ``start_on`` / ``end_on`` dropdowns can name.
BOUNDARY_TYPES = ("human", "ai", "system", "tool")
#: The choices of the start_on / end_on dropdowns: (label, value); "none" means the option is not used.
NO_BOUNDARY = "none"
BOUNDARY_CHOICES = (
    ("None", NO_BOUNDARY),
    ("human", "human"),
    ("ai", "ai"),
    ("system", "system"),
    ("tool", "tool"),
    ("human or tool", ("human", "tool")),
)
#: The choices of TrimExplorer's ``strategy`` dropdown (trim_messages' own strategies).
TRIM_STRATEGIES = ("last", "first")
WIDE = widgets.Layout(width="98%")
LABEL_STYLE = {"description_width": "initial"}
#: One label width for a column of sliders, so every track starts at the same x ("initial": each elsewhere).
SLIDER_LABEL_STYLE = {"description_width": "10.5em"}
#: What one arrow key moves each budget slider by, in tokens (Page Up/Down: five steps, noUiSlider's
#: default that ipywidgets 8.1 keeps). Limits are round (4096, 128000 = 2000 x 64); parts are estimates.
BUDGET_STEPS = {"limit": 64, "system": 10, "user": 10, "reserve": 10, "margin": 10}


# --- checking arguments ------------------------------------------------------------


def _check_messages(messages: Any, *, need_ai: bool = False) -> list[BaseMessage]:
    messages = check_messages(messages)
    if not messages:
        raise ValueError("messages must hold at least one message, got an empty list")
    if need_ai and not any(isinstance(m, AIMessage) for m in messages):
        raise ValueError(f"messages must contain at least one AIMessage (a model call to replay), got {len(messages)} without one")
    return list(messages)


def _boundary_value(value: Any, parameter: str) -> str | tuple[str, ...]:
    """start_on / end_on as a dropdown value: "none", one type name, or a tuple of them."""
    if value is None:
        return NO_BOUNDARY
    if isinstance(value, str):
        check_choice(value, parameter, BOUNDARY_TYPES)
        return value
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, str) for v in value):
        for v in value:
            check_choice(v, parameter, BOUNDARY_TYPES)
        return tuple(value)
    raise TypeError(
        f"{parameter} must be None, a message type {BOUNDARY_TYPES} or a tuple of them, "
        f"got {type(value).__name__}: {value!r:.80}"
    )


def _boundary_options(value: str | tuple[str, ...]) -> list[tuple[str, Any]]:
    """The dropdown's (label, value) pairs; a choice of several types is labelled in words, in the course's language."""
    options = [(label if isinstance(choice, str) else translate(label), choice) for label, choice in BOUNDARY_CHOICES]
    if value not in [v for _, v in options]:
        options.append((translate(" or ").join(value), value))
    return options


def _counter_dropdown(value: str, css_class: str) -> widgets.Dropdown:
    dropdown = widgets.Dropdown(options=list(COUNTER_NAMES), value=value, description="token_counter", style=LABEL_STYLE)
    dropdown.add_class(css_class)
    return dropdown


def _counter_note(counter_name: str) -> str:
    """A visible note when "exact" had to fall back to approximate counting on this machine."""
    if counter_name != "exact":
        return ""
    status = tokenizer_status()
    if status.exact_available:
        return ""
    return render.error_html(f"token_counter='exact' counts approximately here: {status.note}")


def _image_layout() -> widgets.Layout:
    """A figure at its own size (a VBox would stretch it), shrinking on a narrow screen."""
    return widgets.Layout(max_width="100%", width="auto", align_self="flex-start")


class FigureHTML(widgets.HTML):
    """A figure in a widget, as ``<img alt="...">``: the picture and the words that state its point.

    ipywidgets' ``Image`` draws an ``<img>`` with no ``alt`` and has no
    trait for one, so the widgets show their figures through this HTML
    widget instead. ``png`` holds the PNG bytes and ``alt`` the text
    alternative (a test reads them; ``value`` is the HTML the page shows).
    """

    png = traitlets.Bytes(b"")
    alt = traitlets.Unicode("")

    def show(self, fig: Any) -> None:
        """Draw a figure from ``plots`` (its ``alt_text`` becomes the image's alt)."""
        png = figure_png(fig)
        alt = getattr(fig, "alt_text", "") or "figure"
        self.png, self.alt = png, alt
        # The <img> carries lang/dir in Persian: its alt needs no RTL isolate (self.alt keeps the printed form).
        image = render.image_html(png, alt=without_rtl_isolates(alt), fit=True)
        self.value = render_template("figure.html.j2", image=Markup(image))

    def clear(self) -> None:
        self.png, self.alt, self.value = b"", "", ""




class StaticHtmlMixin:
    """A short, deterministic text repr and the static picture stored beside the live widget.

    ipywidgets' default text repr lists every child widget's state; nbval
    compares it, so each widget says what it shows in one line instead.
    The ``text/html`` entry is what GitHub and nbconvert show when the
    widget itself cannot run.
    """

    def static_html(self) -> str:  # pragma: no cover - each widget defines it
        raise NotImplementedError

    def _repr_mimebundle_(self, **kwargs: Any) -> dict:
        bundle = super()._repr_mimebundle_(**kwargs)  # the live widget view
        if bundle is None:
            bundle = {}
        bundle["text/plain"] = repr(self)
        bundle["text/html"] = self.static_html()
        return bundle

    def _repr_html_(self) -> str:
        return self.static_html()

    def _ipython_display_(self, **kwargs: Any) -> None:
        """Show the page script that names slider handles (see ``a11y.py``), then the widget itself."""
        from IPython.display import display

        display(page_script_bundle())
        display(self._repr_mimebundle_(**kwargs), raw=True)


def _conflicts_html(conflicts: Sequence[str]) -> str:
    """The conflicts as a list under the error box; the other controls keep their values meanwhile."""
    return render_template("trim_conflicts.html.j2", conflicts=list(conflicts))


# --- TrimExplorer -------------------------------------------------------------------


class TrimExplorer(StaticHtmlMixin, widgets.VBox):
    """Every ``trim_messages`` option as a control, and which messages each choice keeps.

    Controls (each named after the option it sets): ``max_tokens`` (a
    slider), ``strategy``, ``allow_partial``, ``include_system``,
    ``start_on``, ``end_on`` and ``token_counter`` ("approximate", "exact",
    or "dummy", the reference page's 10-tokens-a-message counter).

    Results: ``report`` (the ``TrimReport`` from ``explain_trim``, or None
    while the options are incompatible), ``error`` (trim_messages' own
    message then, else ""), ``conflicts`` (every incompatible option, each
    with the change that fixes it: trim_messages names only the first) and
    ``output.value`` (the HTML picture).

    >>> from langchain_core.messages import AIMessage, HumanMessage
    >>> chat = [HumanMessage("hi"), AIMessage("hello"), HumanMessage("bye")]
    >>> explorer = TrimExplorer(chat, max_tokens=20, token_counter="dummy")
    >>> [row.status for row in explorer.report.rows]
    ['dropped', 'kept', 'kept']
    >>> explorer.strategy.value = "first"; explorer.start_on.value = "human"
    >>> explorer.error
    "ValueError: start_on parameter is only valid with strategy='last'"
    """

    report = traitlets.Instance(TrimReport, allow_none=True)
    error = traitlets.Unicode("")
    #: Every incompatible option, each with the change that fixes it (see :func:`trim_option_conflicts`).
    conflicts = traitlets.List(traitlets.Unicode())

    def __init__(
        self,
        messages: Sequence[BaseMessage],
        *,
        max_tokens: int | None = None,
        strategy: str = "last",
        allow_partial: bool = False,
        include_system: bool = False,
        start_on: str | Sequence[str] | None = None,
        end_on: str | Sequence[str] | None = None,
        token_counter: str = "approximate",
        preview_chars: int = 80,
        title: str | None = None,
    ):
        messages = _check_messages(messages)
        max_tokens = check_int(max_tokens, "max_tokens", none_ok=True)
        strategy = check_choice(strategy, "strategy", TRIM_STRATEGIES)
        allow_partial = check_bool(allow_partial, "allow_partial")
        include_system = check_bool(include_system, "include_system")
        start_on = _boundary_value(start_on, "start_on")
        end_on = _boundary_value(end_on, "end_on")
        token_counter = check_choice(token_counter, "token_counter", COUNTER_NAMES)
        self.preview_chars = check_int(preview_chars, "preview_chars", minimum=10)
        check_text(title, "title", none_ok=True)
        self.messages = messages
        self.title = None if title is None else translate(title)  # a lesson's own title, when the catalogue has it
        self._totals: dict[str, int] = {}  # all messages counted with each counter, for the slider's range
        self._row_cache: dict = {}  # each message's cells of the table, drawn once (see trim_view)

        total = self._total(token_counter)
        if max_tokens is None:
            max_tokens = total // 2
        self.max_tokens = widgets.IntSlider(
            value=max_tokens, min=0, max=max(total, max_tokens), step=1,
            description="max_tokens", style=LABEL_STYLE, layout=WIDE, continuous_update=True,
        )
        self.max_tokens.add_class("trim-max-tokens")
        self.strategy = widgets.Dropdown(options=list(TRIM_STRATEGIES), value=strategy, description="strategy", style=LABEL_STYLE)
        self.strategy.add_class("trim-strategy")
        self.token_counter = _counter_dropdown(token_counter, "trim-token-counter")
        self.allow_partial = widgets.Checkbox(value=allow_partial, description="allow_partial", indent=False)
        self.allow_partial.add_class("trim-allow-partial")
        self.include_system = widgets.Checkbox(value=include_system, description="include_system", indent=False)
        self.include_system.add_class("trim-include-system")
        self.start_on = widgets.Dropdown(options=_boundary_options(start_on), value=start_on, description="start_on",
                                         style=LABEL_STYLE)
        self.start_on.add_class("trim-start-on")
        self.end_on = widgets.Dropdown(options=_boundary_options(end_on), value=end_on, description="end_on",
                                       style=LABEL_STYLE)
        self.end_on.add_class("trim-end-on")
        self.output = widgets.HTML()
        self.output.add_class("trim-output")

        controls = [
            self.max_tokens,
            widgets.HBox([self.strategy, self.token_counter]),
            widgets.HBox([self.allow_partial, self.include_system, self.start_on, self.end_on]),
        ]
        heading = [widgets.HTML(render_template("widget_title.html.j2", title=self.title))] if title else []
        super().__init__(children=[*heading, *controls, self.output])
        self.add_class("trim-explorer")

        for control in (self.strategy, self.allow_partial, self.include_system, self.start_on, self.end_on,
                        self.max_tokens):
            control.observe(self._on_option, names="value")
        self.token_counter.observe(self._on_counter, names="value")
        describe_controls(vars(self), TRIM_HELP)
        self.update()

    # -- what the controls say ---------------------------------------------------

    def _total(self, counter_name: str) -> int:
        if counter_name not in self._totals:
            self._totals[counter_name] = get_token_counter(counter_name)(self.messages)
        return self._totals[counter_name]

    @property
    def trim_kwargs(self) -> dict[str, Any]:
        """The keyword arguments the controls give ``trim_messages``, right now."""
        kwargs: dict[str, Any] = {
            "max_tokens": self.max_tokens.value,
            "token_counter": get_token_counter(self.token_counter.value),
            "strategy": self.strategy.value,
        }
        if self.allow_partial.value:
            kwargs["allow_partial"] = True
        if self.include_system.value:
            kwargs["include_system"] = True
        for name, control in (("start_on", self.start_on), ("end_on", self.end_on)):
            if control.value != NO_BOUNDARY:
                kwargs[name] = control.value
        return kwargs

    # -- reacting ------------------------------------------------------------------

    def _on_option(self, change: dict) -> None:
        self.update()

    def _on_counter(self, change: dict) -> None:
        """A new counter changes the scale: the slider's range follows, its value stays if it can."""
        total = self._total(change["new"])
        with self.max_tokens.hold_trait_notifications():
            self.max_tokens.unobserve(self._on_option, names="value")
            try:
                self.max_tokens.max = max(total, 1)  # clamps the value when it no longer fits
            finally:
                self.max_tokens.observe(self._on_option, names="value")
        self.update()

    def update(self) -> None:
        """Trim again with the current options and redraw; show trim_messages' error in place if it refuses."""
        try:
            report = explain_trim(self.messages, **self.trim_kwargs)
        except Exception as exc:  # trim_messages' own ValueError for incompatible options, shown as is
            self.report = None
            self.error = f"{type(exc).__name__}: {exc}"
            self.conflicts = trim_option_conflicts(
                self.strategy.value, start_on=self.trim_kwargs.get("start_on"), include_system=self.include_system.value
            )
            if self.conflicts:
                self.output.value = render.error_html(self.error) + _conflicts_html(self.conflicts)
            else:
                self.output.value = render.error_html(
                    self.error, hint=translate("trim_messages refused these options; change them and the table comes back.")
                )
            return
        self.error = ""
        self.conflicts = []
        self.report = report
        # Every row on the page (a long conversation folds its runs, so the HTML stays small); rows are
        # drawn from a cache, so a slider move redraws only the rows whose status changed.
        self.output.value = _counter_note(self.token_counter.value) + trim_region_html(
            trim_report_html(report, preview_chars=self.preview_chars, run_rows=RUN_ROWS, cache=self._row_cache),
            label=translate("trim result: {count} messages, max_tokens {max_tokens}").format(
                count=len(report.rows), max_tokens=report.max_tokens),
        )

    # -- showing -------------------------------------------------------------------------

    @property
    def statuses(self) -> list[str]:
        """Each message's status, in order ([] while there is an error)."""
        return [] if self.report is None else [row.status for row in self.report.rows]

    def static_html(self) -> str:
        """The current picture as plain HTML, for GitHub, nbconvert and handouts."""
        return render_template("widget_static.html.j2", css_class="trim-explorer-static", title=self.title,
                               parts=[Markup(self.output.value)])

    def __repr__(self) -> str:
        head = (
            f"TrimExplorer({len(self.messages)} messages, max_tokens={self.max_tokens.value}, "
            f"strategy={self.strategy.value!r}, token_counter={self.token_counter.value!r})"
        )
        if self.report is None:
            return f"{head}: {self.error}"
        counts = ", ".join(f"{self.statuses.count(s)} {s}" for s in ("kept", "partial", "dropped"))
        return f"{head}: {counts}; {self.report.result_tokens} tokens kept"


# --- BudgetCalculator ---------------------------------------------------------------------

class BudgetCalculator(StaticHtmlMixin, widgets.VBox):
    """Sliders for L, S, U, R and M, and the history budget worked out step by step.

    B = L - S - U - R (and H_max = B - M with a safety margin M). When the
    fixed parts leave no room, the calculator shows why instead of a
    traceback, and recovers as soon as a slider makes room again.

    Results: ``working`` (a ``BudgetWorking``, or None when there is no
    room), ``budget`` (its result, or None), ``error`` (the explanation),
    ``output.value`` (HTML) and ``figure.png`` (the waterfall as PNG, ``figure.alt`` its text).

    >>> calc = BudgetCalculator(4096, 350, 180, 700)
    >>> calc.working.lines
    ['4096 - 350 = 3746', '3746 - 180 = 3566', '3566 - 700 = 2866']
    >>> calc.reserve.value = 4000
    >>> calc.budget is None, calc.error.startswith("no room left for history")
    (True, True)
    """

    working = traitlets.Instance(BudgetWorking, allow_none=True)
    budget = traitlets.Int(None, allow_none=True)
    error = traitlets.Unicode("")

    def __init__(
        self,
        limit: int = 4096,
        system: int = 350,
        user: int = 180,
        reserve: int = 700,
        margin: int = 0,
        *,
        max_limit: int | None = None,
        show_plot: bool = True,
    ):
        limit = check_int(limit, "limit", minimum=1)
        values = {
            "system": check_int(system, "system"),
            "user": check_int(user, "user"),
            "reserve": check_int(reserve, "reserve"),
            "margin": check_int(margin, "margin"),
        }
        max_limit = check_int(max_limit, "max_limit", minimum=1, none_ok=True)
        if max_limit is None:
            max_limit = max(2 * limit, 8192)
        too_big = {name: v for name, v in {"limit": limit, **values}.items() if v > max_limit}
        if too_big:
            raise ValueError(f"max_limit ({max_limit}) must be at least every slider's value, got {too_big}")
        self.show_plot = check_bool(show_plot, "show_plot")

        def slider(name: str, value: int, description: str) -> widgets.IntSlider:
            # A slider lands only on min + k * step: the step divides the starting value (else the first key
            # press would jump to the grid); L starts its grid at one step (L >= 1), the parts at 0.
            step = math.gcd(value, BUDGET_STEPS[name]) if value else BUDGET_STEPS[name]
            minimum = step if name == "limit" else 0
            s = widgets.IntSlider(value=value, min=minimum, max=max_limit, step=step, description=description,
                                  style=SLIDER_LABEL_STYLE, layout=WIDE, continuous_update=False)
            s.add_class(f"budget-{name}")
            return s

        self.limit = slider("limit", limit, translate("L: context limit"))
        self.system = slider("system", values["system"], translate("S: system prompt"))
        self.user = slider("user", values["user"], translate("U: user input"))
        self.reserve = slider("reserve", values["reserve"], translate("R: reply reserve"))
        self.margin = slider("margin", values["margin"], translate("M: safety margin"))
        self.output = widgets.HTML()
        self.output.add_class("budget-output")
        self.figure = FigureHTML(layout=_image_layout())
        super().__init__(children=[self.limit, self.system, self.user, self.reserve, self.margin,
                                   self.output, self.figure])
        self.add_class("budget-calculator")
        for control in self.sliders:
            control.observe(self._on_change, names="value")
        describe_controls(vars(self), BUDGET_HELP)
        self.update()

    @property
    def sliders(self) -> tuple[widgets.IntSlider, ...]:
        return (self.limit, self.system, self.user, self.reserve, self.margin)

    def _on_change(self, change: dict) -> None:
        self.update()

    def update(self) -> None:
        """Work the budget out again from the sliders and redraw."""
        try:
            working = budget_working(self.limit.value, self.system.value, self.user.value, self.reserve.value,
                                     margin=self.margin.value)
        except ValueError as exc:  # the fixed parts leave no room: explain, do not raise
            self.working, self.budget, self.error = None, None, str(exc)
            self.output.value = render.error_html(
                self.error, hint=translate("Lower S, U, R or M, or raise L: the history needs at least one token.")
            )
            self.figure.clear()
            self.figure.layout.display = "none"
            return
        if self.show_plot:  # the figure first, so it is in the page by the time the working changes
            self.figure.show(budget_figure(working))
            self.figure.layout.display = None
        else:
            self.figure.layout.display = "none"
        self.error = ""
        self.working = working
        self.budget = working.budget
        self.output.value = render.budget_working_html(working) + render.budget_bar_html(working)

    def static_html(self) -> str:
        return render_template("widget_static.html.j2", css_class="budget-calculator-static", title=None,
                               parts=[Markup(self.output.value)])

    def __repr__(self) -> str:
        values = ", ".join(f"{name}={s.value}" for name, s in zip("LSURM", self.sliders))
        result = self.error if self.working is None else f"{self.working.name} = {self.budget}"
        return f"BudgetCalculator({values}): {result}"


# --- GrowthExplorer --------------------------------------------------------------------------

class GrowthExplorer(StaticHtmlMixin, widgets.VBox):
    """Replay a conversation call by call; see the growth up to a turn and what that call sends.

    Controls: ``turn`` (which model call), ``limit`` (the context limit,
    drawn as a red line), ``strategy`` ("none" sends everything, "last" /
    "first" trim with ``trim_messages``; see :func:`growth_trim_kwargs`) and
    ``token_counter``.

    Results: ``growth`` (the ``GrowthReport`` of the whole replay),
    ``report`` (a ``TrimReport`` of the chosen call: which messages it
    sends), ``error``, ``output.value`` (HTML) and ``figure.png`` (PNG, ``figure.alt`` its text).

    >>> from langchain_core.messages import AIMessage, HumanMessage
    >>> chat = [HumanMessage("a"), AIMessage("b"), HumanMessage("c"), AIMessage("d"), HumanMessage("e"), AIMessage("f")]
    >>> g = GrowthExplorer(chat, token_counter="dummy", limit=25, strategy="last", show_plot=False)
    >>> g.growth.column("history_tokens"), g.growth.column("sent_tokens")
    ([10, 30, 50], [10, 10, 10])
    """

    growth = traitlets.Instance(GrowthReport, allow_none=True)
    report = traitlets.Instance(TrimReport, allow_none=True)
    error = traitlets.Unicode("")

    def __init__(
        self,
        messages: Sequence[BaseMessage],
        *,
        token_counter: str = "approximate",
        limit: int | None = None,
        strategy: str = "none",
        turn: int | None = None,
        max_limit: int | None = None,
        show_plot: bool = True,
        preview_chars: int = 60,
    ):
        self.messages = _check_messages(messages, need_ai=True)
        token_counter = check_choice(token_counter, "token_counter", COUNTER_NAMES)
        strategy = check_choice(strategy, "strategy", [value for _, value in GROWTH_STRATEGIES])
        limit = check_int(limit, "limit", minimum=1, none_ok=True)
        max_limit = check_int(max_limit, "max_limit", minimum=1, none_ok=True)
        self.show_plot = check_bool(show_plot, "show_plot")
        self.preview_chars = check_int(preview_chars, "preview_chars", minimum=10)
        self.ai_indexes = [i for i, m in enumerate(self.messages) if isinstance(m, AIMessage)]
        calls = len(self.ai_indexes)
        turn = calls if turn is None else check_int(turn, "turn", minimum=1)
        if turn > calls:
            raise ValueError(f"turn must be between 1 and the number of model calls ({calls}), got {turn}")

        full = get_token_counter(token_counter)(self.messages[: self.ai_indexes[-1]])
        if limit is None:
            limit = max(full // 2, 1)
        if max_limit is None:
            max_limit = max(full, limit)
        if limit > max_limit:
            raise ValueError(f"limit ({limit}) must be at most max_limit ({max_limit})")

        self.turn = widgets.IntSlider(value=turn, min=1, max=calls, step=1, description=translate("turn (model call)"),
                                      style=SLIDER_LABEL_STYLE, layout=WIDE, continuous_update=False)
        self.turn.add_class("growth-turn")
        step = math.gcd(limit, BUDGET_STEPS["limit"])  # as the budget's L: 64 tokens a key when limit allows
        self.limit = widgets.IntSlider(value=limit, min=step, max=max_limit, step=step, description=translate("limit", "growth slider"),
                                       style=SLIDER_LABEL_STYLE, layout=WIDE, continuous_update=False)
        self.limit.add_class("growth-limit")
        # pgettext: a Persian label inside an RTL isolate, so it reads right to left in the (LTR) select.
        self.strategy = widgets.Dropdown(options=[(pgettext("growth strategy", label), value)
                                                  for label, value in GROWTH_STRATEGIES], value=strategy, description="strategy",
                                         style=LABEL_STYLE)
        self.strategy.add_class("growth-strategy")
        self.token_counter = _counter_dropdown(token_counter, "growth-token-counter")
        self.figure = FigureHTML(layout=_image_layout())
        self.output = widgets.HTML()
        self.output.add_class("growth-output")
        super().__init__(children=[self.turn, self.limit, widgets.HBox([self.strategy, self.token_counter]),
                                   self.figure, self.output])
        self.add_class("growth-explorer")

        for control in (self.limit, self.strategy):
            control.observe(self._on_policy, names="value")
        self.token_counter.observe(self._on_counter, names="value")
        self.turn.observe(self._on_turn, names="value")
        describe_controls(vars(self), GROWTH_HELP)
        self.update()

    @property
    def trim_kwargs(self) -> dict[str, Any] | None:
        """What ``trim_messages`` is called with at every turn (None: everything is sent)."""
        return growth_trim_kwargs(self.limit.value, self.strategy.value, self.token_counter.value)

    def history(self, turn: int | None = None) -> list[BaseMessage]:
        """The stored history at a model call: every message before that call's reply."""
        turn = self.turn.value if turn is None else check_int(turn, "turn", minimum=1)
        if turn > len(self.ai_indexes):
            raise ValueError(f"turn must be between 1 and {len(self.ai_indexes)}, got {turn}")
        return self.messages[: self.ai_indexes[turn - 1]]

    def _on_policy(self, change: dict) -> None:
        self.update()

    def _on_counter(self, change: dict) -> None:
        """Another counter, another scale: the limit slider reaches the whole history again."""
        full = get_token_counter(change["new"])(self.messages[: self.ai_indexes[-1]])
        self.limit.unobserve(self._on_policy, names="value")
        try:
            self.limit.max = max(full, self.limit.value)
        finally:
            self.limit.observe(self._on_policy, names="value")
        self.update()

    def _on_turn(self, change: dict) -> None:
        self._show_turn()

    def update(self) -> None:
        """Replay the conversation under the current limit, strategy and counter, then show the turn."""
        kwargs = self.trim_kwargs
        policy = None if kwargs is None else trim_policy(kwargs)
        try:
            self.growth = replay_growth(self.messages, self.token_counter.value, limit=self.limit.value, policy=policy)
        except Exception as exc:  # shown in place; the controls keep working
            self.growth, self.report, self.error = None, None, f"{type(exc).__name__}: {exc}"
            self.output.value = render.error_html(self.error)
            self.figure.layout.display = "none"
            return
        self._show_turn()

    def _show_turn(self) -> None:
        if self.growth is None:
            return
        turn = self.turn.value
        history = self.history(turn)
        kwargs = self.trim_kwargs
        try:
            if kwargs is None:
                report = untrimmed_report(history, self.limit.value, get_token_counter(self.token_counter.value))
            else:
                report = explain_trim(history, **kwargs)
        except Exception as exc:  # shown in place; the old figure would show another turn, so hide it
            self.report, self.error = None, f"{type(exc).__name__}: {exc}"
            self.output.value = render.error_html(self.error)
            self.figure.layout.display = "none"
            return
        if self.show_plot:  # the figure first, so it is in the page by the time the table changes
            self.figure.show(growth_figure(self.growth, upto=turn))
            self.figure.layout.display = None
        else:
            self.figure.layout.display = "none"
        self.error = ""
        self.report = report
        self.output.value = _counter_note(self.token_counter.value) + render.growth_turn_html(
            self.growth, turn, report, preview_chars=self.preview_chars
        )

    def static_html(self, *, with_table: bool = True) -> str:
        """The current turn as plain HTML, with the growth table up to that turn."""
        parts = [Markup(self.output.value)]
        if self.growth is not None and with_table:
            parts.insert(0, Markup(render.growth_table_html(self.growth, upto=self.turn.value)))
        return render_template("widget_static.html.j2", css_class="growth-explorer-static", title=None, parts=parts)

    def __repr__(self) -> str:
        head = (
            f"GrowthExplorer({len(self.messages)} messages, {len(self.ai_indexes)} calls, turn={self.turn.value}, "
            f"limit={self.limit.value}, strategy={self.strategy.value!r}, token_counter={self.token_counter.value!r})"
        )
        if self.growth is None or self.report is None:
            return f"{head}: {self.error}"
        row = self.growth.rows[self.turn.value - 1]
        return f"{head}: sends {row.sent_messages} messages, {row.sent_tokens} tokens"

