"""Pictures of lesson 08: the window of every model pass, for runs managed on the client or on the server.

Presentation only: :func:`windows_figure` takes the passes an emulated
provider billed (:class:`course_utils.model.provider_emulation.Pass`, one
list per run) and returns a :class:`course_utils.pictures.plots.DescribedFigure`
whose text alternative states the figure's point from the numbers it draws.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from course_utils.core.i18n import _, translate
from course_utils.model.provider_emulation import Pass
from course_utils.pictures.plots import DescribedFigure, call_ticks, drawn
from course_utils.core.style import HISTORY_COLOUR, LIMIT_COLOUR, NEUTRAL, SENT_COLOUR

#: Colour, marker and dash per run, in order: colour is never the only cue.
STYLES = [(NEUTRAL, "o", "-"), (SENT_COLOUR, "s", "--"), (HISTORY_COLOUR, "^", "-."), (LIMIT_COLOUR, "D", ":"),
          ("#8e24aa", "v", (0, (5, 1, 1, 1))), ("#00897b", "P", (0, (1, 2)))]


def _checked(runs: Mapping[str, Sequence[Pass]]) -> dict[str, list[Pass]]:
    if not isinstance(runs, Mapping) or not runs:
        raise TypeError(f"runs must be a non-empty dict of run name -> the server's passes (server.passes), "
                        f"got {runs!r:.80}")
    if len(runs) > len(STYLES):
        raise ValueError(f"runs: at most {len(STYLES)} runs in one figure, got {len(runs)}")
    out = {}
    for name, passes in runs.items():
        passes = list(passes)
        if not passes or not all(isinstance(p, Pass) for p in passes):
            raise TypeError(f"runs[{name!r}] must be a non-empty list of Pass (an emulated server's .passes)")
        out[name] = passes
    return out


def windows_text(runs: Mapping[str, Sequence[Pass]]) -> str:
    """The point of :func:`windows_figure` in words: each run's largest window and its passes.

    >>> windows_text({"a": [Pass("turn", ("k",), (120,), 5), Pass("summary", ("k",), (300,), 9)]})
    'a: largest window 300 tokens, 2 passes (1 summary pass).'
    """
    parts = []
    for name, passes in _checked(runs).items():
        summaries = sum(p.kind == "summary" for p in passes)
        text = _("{name}: largest window {largest} tokens, {passes} passes").format(
            name=translate(name), largest=max(p.input_tokens for p in passes), passes=len(passes))
        if summaries:
            text += _(" ({summaries} summary pass)").format(summaries=summaries) if summaries == 1 else \
                _(" ({summaries} summary passes)").format(summaries=summaries)
        parts.append(text)
    return "; ".join(parts) + "."


def windows_figure(runs: Mapping[str, Sequence[Pass]]) -> DescribedFigure:
    """Input tokens of every model pass, one line per run (``{"name": server.passes, ...}``)."""
    runs = _checked(runs)
    fig = DescribedFigure(figsize=(9.0, 3.6), dpi=100, layout="constrained")
    fig.alt_text = _("Input tokens of every model pass, one line per run. {point}").format(point=windows_text(runs))
    ax = fig.subplots()
    for (name, passes), (colour, marker, dash) in zip(runs.items(), STYLES):
        ax.plot(range(1, len(passes) + 1), [p.input_tokens for p in passes], color=colour, marker=marker,
                linestyle=dash, markersize=4, label=drawn(translate(name)))
    ax.set(xlabel=drawn(_("model pass, in order (summary passes included)")),
           ylabel=drawn(_("input tokens the model read")))
    ax.xaxis.set_major_locator(call_ticks())
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(alpha=0.3)
    return fig
