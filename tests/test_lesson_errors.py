"""Errors a learner would act on, each caught where it was made, and the length of every lesson part.

Each test reads a lesson's source or stored outputs (which strict nbval keeps
equal to a fresh run) or recomputes the fact with the package, so a lesson
that slips back into the old error fails here. Issue 26 lists the errors.
"""

import inspect
import re
from pathlib import Path

import nbformat
import pytest
from langchain_core.messages import trim_messages
from langchain_core.messages.utils import count_tokens_approximately

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
#: The most prose words one lesson part may hold (markdown cells, code blocks excluded).
MAX_PROSE_WORDS = 2400


def load(name):
    return nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4)


def markdown(nb) -> str:
    return "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


def code_cell(nb, must_contain: str):
    [cell] = [c for c in nb.cells if c.cell_type == "code" and must_contain in c.source]
    return cell


def stdout(cell) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream")


def prose_words(nb) -> int:
    """Words of prose: the markdown cells' text without fenced code blocks (diagrams, code listings)."""
    text = re.sub(r"```.*?```", " ", markdown(nb), flags=re.S)
    return len(text.split())


# --- lesson length -----------------------------------------------------------------------------


def test_every_notebook_is_found():
    names = {path.stem for path in NOTEBOOKS}
    assert {"00_start_here", "04b_summarising_history", "06_agent_context", "06b_agent_failure_modes"} <= names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_no_lesson_part_runs_over_2400_words_of_prose(path):
    words = prose_words(nbformat.read(path, as_version=4))
    assert words <= MAX_PROSE_WORDS, f"{path.name}: {words} words of prose; split it or shorten it"


def test_the_word_count_skips_code_blocks():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("one two\n```python\nx = 1 + 2\n```\nthree"),
                                         nbformat.v4.new_code_cell("not prose at all")])
    assert prose_words(nb) == 3


# --- lesson 02 ---------------------------------------------------------------------------------


def test_lesson_02s_trim_starts_on_a_human_message():
    """Lesson 03b's rule, in the lesson that introduces the fix: the kept list never starts on a reply."""
    from course_utils.core.samples import load_conversation
    from course_utils.window.tokens import exact_counter

    nb = load("02_token_budgets")
    cell = code_cell(nb, "kept = trim_messages(history")
    assert 'start_on="human"' in cell.source
    assert "the first is a human message" in stdout(cell)
    # Recomputed: without start_on, the same budget keeps a list that starts with an AIMessage.
    chat = load_conversation("long_chat")
    history = chat[1:-2]
    budget = int(re.search(r"max_tokens=(\d+)", stdout(cell)).group(1))
    assert trim_messages(history, max_tokens=budget, token_counter=exact_counter)[0].type == "ai"
    fixed = trim_messages(history, max_tokens=budget, token_counter=exact_counter, strategy="last", start_on="human")
    assert fixed[0].type == "human"


def test_lesson_02_sizes_r_for_reasoning_tokens():
    text = markdown(load("02_token_budgets"))
    paragraph = text[text.index("**R** is your choice"):]
    paragraph = paragraph[: paragraph.index("\n- **S**")]
    assert "reasoning" in paragraph and "output cap" in paragraph and "window" in paragraph
    assert re.search(r"read \d{4}-\d{2}-\d{2}", paragraph), "the providers' rule is dated"


def test_lesson_02_says_where_lesson_01s_tools_term_went():
    lesson01 = "\n".join(c.source for c in load("01_measuring_growth").cells if c.cell_type == "code")
    tools = re.search(r"tools=(\d+)", lesson01).group(1)
    text = markdown(load("02_token_budgets"))
    assert f"{tools} tokens of tool definitions" in text
    assert re.search(r"tool schemas\s+in\s+\*\*S\*\*", text), "tools belong to S, as in lessons 05 and 06"
    lesson05 = "\n".join(markdown(nbformat.read(path, as_version=4)) for path in NOTEBOOKS if path.stem.startswith("05"))
    assert re.search(r"\*\*S\*\* \| the system prompt \(and, for an agent, the tools' schemas\)", lesson05), \
        "the convention lesson 02 cites: lesson 05 counts tool schemas in S"


# --- lessons 00 and 01b: o200k_base --------------------------------------------------------------


@pytest.mark.parametrize("name", ["00_start_here", "01b_counting_tokens"])
def test_o200k_base_is_attributed_only_to_models_tiktoken_maps_to_it(name):
    import tiktoken.model

    text = markdown(load(name))
    assert not re.search(r"o200k_base\W*\(GPT-4o and later\)", text), "GPT-6 is not mapped to o200k_base"
    for models in re.findall(r"o200k_base\*{0,2}`?\s*\(([^)]*)\)", text):
        named = models.split(";")[0]  # what follows a ";" may say which models are *not* mapped
        for model in re.findall(r"GPT-[\d.]+o?", named):
            assert tiktoken.model.encoding_name_for_model(model.lower()) == "o200k_base", (name, model)


def test_models_json_maps_no_gpt6_model_to_a_published_tokenizer():
    import json

    import tiktoken.model

    rows = json.loads((ROOT / "course_utils" / "data" / "models.json").read_text())["models"]
    gpt6 = [row for row in rows if row["model"].startswith("GPT-6")]
    assert gpt6 and all(row["tokenizer"] not in ("o200k_base", "cl100k_base") for row in gpt6)
    for row in gpt6:
        with pytest.raises(KeyError):
            tiktoken.model.encoding_name_for_model(row["model"].lower().replace(" ", "-"))


# --- lesson 03b: a current turn over the budget ------------------------------------------------


def test_lesson_03b_warns_that_an_over_budget_turn_leaves_only_the_system_prompt():
    from course_utils.core.samples import load_conversation

    nb = load("03b_valid_boundaries")
    text = markdown(nb)
    assert "current turn over the budget" in text and "06b_agent_failure_modes.ipynb" in text
    assert "kept: ['at-01']" in stdout(code_cell(nb, "mid_turn = agent[:15]"))
    # Recomputed: at the trap's budget, the safe options keep nothing but the system prompt.
    agent = load_conversation("agent_tools")
    kept = trim_messages(agent[:15], max_tokens=459, token_counter="approximate", start_on="human",
                         include_system=True)
    assert [m.type for m in kept] == ["system"]
    assert count_tokens_approximately(agent[:1] + agent[10:15]) > 459


# --- lessons 04 and 04b: removed is not erased -------------------------------------------------


def test_lessons_04_and_04b_do_not_say_that_removing_erases():
    assert "loses messages for good" not in markdown(load("04_langgraph_integration"))
    text = markdown(load("04b_summarising_history"))
    assert "has deleted it and keeps only the summary" not in text
    assert "Removed is not erased" in text


def test_lesson_04b_erase_step_leaves_no_checkpoint_holding_the_removed_message():
    nb = load("04b_summarising_history")
    before = stdout(code_cell(nb, 'NAME = "hi! I\'m bob"'))
    held = [int(n) for n in re.findall(r"checkpoints holding it: +(\d+) of", before)]
    assert held and all(n > 0 for n in held), "RemoveMessage left the message in earlier checkpoints"
    after = stdout(code_cell(nb, "restart_from_summary(summarizing_bot"))
    assert re.search(r"checkpoints holding \"hi! I'm bob\": 0 of the file's \d+; copies in the file's bytes: 0", after)
    assert "checkpoints holding 'Bob' (the summaries): 2" in after  # the summary may keep the name


def test_lesson_04b_says_the_summary_call_must_fit_the_window():
    nb = load("04b_summarising_history")
    out = stdout(code_cell(nb, "largest call that wrote a summary"))
    answered = int(re.search(r"answered a turn, summarising bot: (\d+)", out).group(1))
    wrote = int(re.search(r"wrote a summary: (\d+)", out).group(1))
    assert wrote > answered, "the summary call is the graph's largest call"
    text = markdown(nb)
    assert f"({wrote} tokens, against\n{answered}" in text or f"({wrote} tokens, against {answered}" in text
    assert "must fit the window" in text or "must fit the model's window" in text


def test_lessons_04_and_04b_keep_their_files_out_of_the_notebooks_folder():
    for name in ("04_langgraph_integration", "04b_summarising_history"):
        setup = code_cell(load(name), "DATA = Path(\"course_data\")").source
        assert "unlink(missing_ok=True)" in setup, "cleaned up on re-run"
    assert "notebooks/course_data/" in (ROOT / ".gitignore").read_text()


# --- lesson 06: the summariser's cap, tokens vs money ------------------------------------------


def test_lesson_06_shows_trim_tokens_to_summarize_and_its_default():
    from langchain.agents.middleware import SummarizationMiddleware

    default = inspect.signature(SummarizationMiddleware).parameters["trim_tokens_to_summarize"].default
    nb = load("06_agent_context")
    cell = code_cell(nb, "trim_tokens_to_summarize=cap")
    assert f"trim_tokens_to_summarize default: {default}" in stdout(cell)
    assert f"{default:,}" in markdown(nb)


def test_lesson_06_says_where_tokens_sent_differ_from_money_and_measures_clear_at_least():
    nb = load("06_agent_context")
    text = markdown(nb)
    assert "Tokens sent are not money" in text and "prompt cache" in text
    assert "every call pays again for every" not in text
    out = stdout(code_cell(nb, "clear_at_least=600"))
    rows = {line.split("  ")[0].strip(): line.split() for line in out.splitlines() if line.startswith(("send", "clear"))}
    assert len(rows) == 3, out
    rewrites = [int(row[-2]) for row in rows.values()]
    assert rewrites[0] == 0 and rewrites[1] > rewrites[2], "clear_at_least rewrites the prefix less often"


def test_lesson_06b_says_what_the_summarise_rows_measure():
    text = markdown(load("06b_agent_failure_modes"))
    assert "What the summarising rows measure" in text
    assert "offline" in text and "`SUMMARY_PROMPT`" in text and "COURSE_CHAT_MODEL" in text


def test_lesson_06_says_what_the_clearing_trigger_counts_where_its_output_shows_it():
    """Calls over the trigger as the model counts them, not cleared: the lesson says the trigger counts the messages
    only (issue 34), next to the output that shows it."""
    nb = load("06_agent_context")
    text = markdown(nb)
    assert "`request.messages` only" in text and "token_count_method=\"model\"" in text
    out = stdout(code_cell(nb, "messages_only = exact_counter"))
    over = [line for line in out.splitlines()
            if int(line.split("counted")[1].split(";")[0]) > 1200 and line.endswith("cleared 0")]
    assert over, "the output shows calls over the trigger that were not cleared"


def test_lesson_06b_teaches_catching_overflow_and_says_the_system_prompt_alone_is_refused():
    nb = load("06b_agent_failure_modes")
    text = markdown(nb)
    assert "ContextOverflowError" in text and "_overflow_retry_prompt" in text
    assert "at least one message is required" in text
    assert "sent the system prompt alone, and refused it" in text
    assert "caught ContextWindowExceededError, a ContextOverflowError" in stdout(code_cell(nb, "except ContextOverflowError as error"))
    assert "SystemPromptOnlyError" in stdout(code_cell(nb, "def tight_trim"))
