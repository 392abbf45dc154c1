"""The lessons' comparison figures: what they draw, and clear errors for bad input."""

import pytest

from course_utils.window.growth import replay_growth
from course_utils.pictures.plots import cumulative_figure, languages_figure
from course_utils.core.samples import load_conversation


def test_cumulative_figure_draws_one_line_per_replay():
    chat = load_conversation("long_chat")
    reports = {"all": replay_growth(chat, "approximate"), "capped": replay_growth(chat, "approximate", policy=lambda h: h[-4:])}
    ax = cumulative_figure(reports).axes[0]
    assert [line.get_label() for line in ax.lines] == ["all", "capped"]
    assert list(ax.lines[0].get_ydata()) == reports["all"].column("cumulative_sent_tokens")


def test_languages_figure_bars_hold_the_counts():
    counts = {"English": {"exact": 271, "approximate": 291}, "Chinese": {"exact": 451, "approximate": 95}}
    ax = languages_figure(counts).axes[0]
    heights = sorted(round(patch.get_height()) for patch in ax.patches)
    assert heights == [95, 271, 291, 451]


@pytest.mark.parametrize(
    "bad, error",
    [({}, TypeError), ({"English": {"exact": 3}}, ValueError), ({"English": {"exact": True, "approximate": 2}}, TypeError)],
)
def test_languages_figure_rejects_bad_counts(bad, error):
    with pytest.raises(error, match="counts"):
        languages_figure(bad)


def test_cumulative_figure_rejects_bad_reports():
    with pytest.raises(TypeError, match="reports"):
        cumulative_figure({})
    with pytest.raises(TypeError, match="reports"):
        cumulative_figure({"x": [1, 2, 3]})


# --- a model call is a whole number: no tick at call 2.5 -----------------------------------------------


def _call_ticks_shown(ax) -> list[float]:
    """The x ticks a reader sees: those inside the axis' limits, after the figure is drawn."""
    low, high = ax.get_xlim()
    return [t for t in ax.get_xticks() if low <= t <= high]


@pytest.mark.parametrize("calls", [1, 2, 3, 5, 6, 9, 15, 20, 25, 33, 48])
def test_growth_and_cumulative_figures_tick_only_whole_calls(calls):
    from langchain_core.messages import AIMessage, HumanMessage
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from course_utils.pictures.plots import growth_figure

    chat = [m for i in range(calls) for m in (HumanMessage(f"q{i}"), AIMessage(f"a{i}"))]
    report = replay_growth(chat, "dummy", limit=10 * calls)
    figures = [growth_figure(report), growth_figure(report, upto=max(1, calls // 2)), cumulative_figure({"all": report})]
    for fig in figures:
        FigureCanvasAgg(fig).draw()  # tick labels are set when the figure is drawn
        for ax in fig.axes:
            ticks = _call_ticks_shown(ax)
            assert ticks, f"no call tick on {ax.get_title()!r} for {calls} calls"
            assert all(float(t).is_integer() for t in ticks), (calls, ax.get_title(), ticks)
            labels = [label.get_text() for label in ax.get_xticklabels() if label.get_text()]
            assert labels and all(text.lstrip("\u2212-").isdigit() for text in labels), (calls, labels)


def test_the_lesson_01_growth_explorer_figure_has_no_half_calls():
    """The figure lesson 01's GrowthExplorer draws (long_chat, exact counts) ticked 2.5, 7.5, 12.5 before."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from course_utils.pictures.plots import growth_figure

    report = replay_growth(load_conversation("long_chat"), "exact", limit=1848)
    fig = growth_figure(report)
    FigureCanvasAgg(fig).draw()
    for ax in fig.axes:
        assert all(float(t).is_integer() for t in _call_ticks_shown(ax)), _call_ticks_shown(ax)
