"""The lessons' comparison figures: what they draw, and clear errors for bad input."""

import pytest

from course_utils.growth import replay_growth
from course_utils.plots import cumulative_figure, languages_figure
from course_utils.samples import load_conversation


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
