"""Every lesson has the parts a learner working alone relies on.

A title, objectives, prose between code cells, at least one picture, a
"check yourself" whose answers are hidden in <details>, a summary, and links
to the next lesson and to the lesson's exercise. The numbers themselves are
checked by nbval, which re-runs each notebook and compares its outputs.
"""

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
LESSONS = [
    "00_start_here",
    "01_measuring_growth",
    "01b_counting_tokens",
    "02_token_budgets",
    "03_trimming_walkthrough",
    "03b_valid_boundaries",
    "04_langgraph_integration",
    "04b_summarising_history",
    "05_threshold_selection",
    "05b_cost_and_caching",
    "06_agent_context",
    "06b_agent_failure_modes",
    "07_beyond_one_window",
    "07b_isolating_and_selecting",
    "08_provider_side_context",
]
#: A lesson split in two shares its exercise: 03b practises in the 03 exercise, and so on.
EXERCISE = {
    "01b_counting_tokens": "01_measuring_growth",
    "03b_valid_boundaries": "03_trimming_walkthrough",
    "04b_summarising_history": "04_langgraph_integration",
    "05b_cost_and_caching": "05_threshold_selection",
    "06b_agent_failure_modes": "06_agent_context",
    "07b_isolating_and_selecting": "07_beyond_one_window",
}
#: Appendices: the parts of a lesson, but no exercise and no next lesson (they link back to the course map).
APPENDICES = ["A1_your_own_conversation"]
PRESENT = [name for name in LESSONS + APPENDICES if (ROOT / "notebooks" / f"{name}.ipynb").exists()]


def markdown(nb) -> str:
    return "\n".join(cell.source for cell in nb.cells if cell.cell_type == "markdown")


def load(name):
    return nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4)


def test_lessons_exist():
    missing = sorted(set(LESSONS + APPENDICES) - set(PRESENT))
    assert not missing, f"lessons not written yet: {missing}"


@pytest.mark.parametrize("name", PRESENT)
def test_lesson_has_the_parts_of_a_lesson(name):
    nb = load(name)
    text = markdown(nb)
    assert nb.cells[0].cell_type == "markdown" and nb.cells[0].source.startswith("# "), "title first"
    assert re.search(r"^#+ .*objectives", text, re.I | re.M), "an Objectives section"
    assert re.search(r"^#+ .*summary", text, re.I | re.M), "a Summary section"
    if name != "00_start_here":
        assert re.search(r"^#+ .*check yourself", text, re.I | re.M), "a Check yourself section"
        assert "<details>" in text and "</details>" in text, "answers hidden in <details>"
    if name in APPENDICES:
        assert "00_start_here.ipynb" in text, "a link back to the course map"
        return
    if name != "00_start_here":
        exercise = f"../exercises/{EXERCISE.get(name, name)}_exercise.ipynb"
        assert exercise in text, f"a link to {exercise}"
    following = LESSONS.index(name) + 1
    if following < len(LESSONS):
        assert f"{LESSONS[following]}.ipynb" in text, "a link to the next lesson"


@pytest.mark.parametrize("name", PRESENT)
def test_lesson_has_a_picture_and_prose_between_code(name):
    nb = load(name)
    pictures = [
        output
        for cell in nb.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
        if {"image/png", "image/svg+xml", "text/html"} & set(output.get("data", {}))
    ]
    has_mermaid = "```mermaid" in markdown(nb)
    assert pictures or has_mermaid, "at least one picture (a figure, an HTML rendering or a diagram)"
    kinds = [cell.cell_type for cell in nb.cells]
    longest_code_run = max((len(run) for run in "".join("c" if k == "code" else "m" for k in kinds).split("m")), default=0)
    assert longest_code_run <= 3, "prose between code cells (no more than three code cells in a row)"


@pytest.mark.parametrize("name", PRESENT)
def test_lesson_outputs_are_stored_and_error_free(name):
    nb = load(name)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert code and all(cell.execution_count is not None for cell in code), "executed and saved with outputs"
    for cell in code:
        for output in cell.outputs:
            assert output.output_type != "error", f"an error is stored in {name}: {cell.source[:60]!r}"
            if output.output_type == "stream":
                assert output.name != "stderr", f"stderr (a warning?) stored in {name}: {output.text[:120]!r}"
