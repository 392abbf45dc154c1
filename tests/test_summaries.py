"""Tests for course_utils.model.summaries: summaries that keep some facts and lose others."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, HumanMessage

from course_utils.model import summaries
from course_utils.model.chat import OfflineChatModel
from course_utils.agentic.graphs import CREATE_SUMMARY_PROMPT, EXTEND_SUMMARY_PROMPT
from course_utils.model.summaries import (
    BRIEF_SUMMARY_WORDS,
    DEFAULT_SUMMARY_WORDS,
    NOTHING_FITS,
    SummaryLength,
    drift_conversation,
    measure_drift,
    rank_facts,
    requested_length,
    stated_facts,
    summary_recall,
    write_summary,
)

#: Every human message of the drift chat: 5 personal facts, 10 hobbies, 10 questions.
LONG = [text for part in drift_conversation() for text in part]


def words(text):
    return len(text.split())


def summarise(texts, request=CREATE_SUMMARY_PROMPT):
    """What the offline model answers to a summary request after these human messages."""
    messages = []
    for text in texts:
        messages += [HumanMessage(text), AIMessage("ok")]
    return OfflineChatModel().invoke([*messages, HumanMessage(request)]).content


# --- a summary asked for in at most N words ---------------------------------------------


@pytest.mark.parametrize("limit", [1, 3, 5, 8, 12, 20, 35, 60, 100])
def test_a_summary_asked_for_in_at_most_n_words_has_at_most_n_words(limit):
    summary = summarise(LONG, f"Create a summary of the conversation above in at most {limit} words:")
    assert 1 <= words(summary) <= limit


def test_a_short_summary_loses_facts_and_a_longer_one_keeps_more():
    recalls = [summary_recall(write_summary(LONG, n), LONG) for n in (5, 12, 30, 60, 200)]
    assert recalls[0] < recalls[1] < recalls[2] < recalls[3] < 1.0
    assert recalls == sorted(recalls)
    assert recalls[-1] == 1.0  # room for everything: nothing lost
    assert summary_recall(write_summary(LONG, 12), LONG) <= 3 / len(stated_facts(LONG))


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=1, max_value=150), st.integers(min_value=1, max_value=len(LONG)))
def test_any_word_limit_is_kept(limit, messages):
    summary = write_summary(LONG[:messages], limit)
    assert 1 <= words(summary) <= limit
    kept = {fact.sentence for fact in stated_facts([summary])}
    assert kept <= {fact.sentence for fact in stated_facts(LONG[:messages])}  # it invents nothing


def test_without_a_length_the_default_cap_applies():
    summary = summarise(LONG)
    assert words(summary) <= DEFAULT_SUMMARY_WORDS
    assert summary_recall(summary, LONG) < 1.0
    assert words(write_summary(LONG[:6])) < DEFAULT_SUMMARY_WORDS  # a short chat fits whole
    assert summary_recall(write_summary(LONG[:6]), LONG[:6]) == 1.0


def test_briefly_and_one_sentence():
    brief = summarise(LONG, "Summarise the conversation above briefly.")
    assert words(brief) <= BRIEF_SUMMARY_WORDS < words(summarise(LONG))
    one = summarise(LONG, "Summarise the conversation above in one sentence.")
    assert one.count(".") + one.count("?") == 1
    two = summarise(LONG, "Summarise the conversation above in at most 2 sentences.")
    assert len(stated_facts([two])) == 2


@pytest.mark.parametrize(
    "request_text, expected",
    [
        ("Create a summary of the conversation above:", SummaryLength(DEFAULT_SUMMARY_WORDS)),
        ("Summarise in at most 12 words.", SummaryLength(12, None, True)),
        ("Summarise in no more than twenty words.", SummaryLength(20, None, True)),
        ("Summarise it, 30 words or fewer.", SummaryLength(30, None, True)),
        ("Summarise in under 10 words.", SummaryLength(9, None, True)),
        ("Summarise in a single sentence.", SummaryLength(DEFAULT_SUMMARY_WORDS, 1, True)),
        ("Summarise in at most 3 sentences.", SummaryLength(DEFAULT_SUMMARY_WORDS, 3, True)),
        ("Briefly summarise, in at most 40 words.", SummaryLength(BRIEF_SUMMARY_WORDS, None, True)),
        ("Briefly summarise, in at most 10 words.", SummaryLength(10, None, True)),
        # An old summary inside the "extend" prompt does not set the length.
        (EXTEND_SUMMARY_PROMPT.format(summary="The user asked: can you answer briefly, in 5 words?"),
         SummaryLength(DEFAULT_SUMMARY_WORDS)),
    ],
)  # fmt: skip
def test_requested_length(request_text, expected):
    assert requested_length(request_text) == expected


# --- the loss rule -----------------------------------------------------------------------


def test_more_mentions_beat_newer_facts():
    texts = ["I live in Valencia.", "I live in Valencia, really.", "I like jazz.", "I like chess."]
    # 5 + 4 words: room for the city (said twice) and the newest like, not both likes.
    assert write_summary(texts, 9) == "The user lives in Valencia. The user likes chess."


def test_newer_facts_beat_older_ones_and_are_written_oldest_first():
    texts = ["I like jazz.", "I like chess.", "I like poetry."]
    assert write_summary(texts, 8) == "The user likes chess. The user likes poetry."


def test_statements_beat_questions():
    texts = ["I like jazz.", "what's the time?", "what's the date?"]
    assert write_summary(texts, 4) == "The user likes jazz."
    assert write_summary(texts, 10) == "The user likes jazz. The user asked: what's the date?"


def test_a_later_value_replaces_an_earlier_one():
    [city] = stated_facts(["I live in Valencia.", "I live in Madrid now."])
    assert (city.sentence, city.mentions) == ("The user lives in Madrid.", 2)


def test_rank_order_is_documented():
    facts = stated_facts(["hi! I'm bob", "is it late?", "I'm bob!", "i like the celtics!"])
    assert [f.key for f in rank_facts(facts)] == ["name", "likes:the celtics", "asked:is it late?"]
    rule = summaries.LOSS_RULE
    assert "mentioned more often first" in rule and "newer facts first" in rule
    assert f"{DEFAULT_SUMMARY_WORDS} words" in rule and f"{BRIEF_SUMMARY_WORDS} words" in rule
    assert "\n" not in rule and ":func:" not in rule


def test_nothing_fits_states_no_fact():
    assert write_summary(["I like birdwatching."], 3) == NOTHING_FITS
    assert stated_facts([NOTHING_FITS]) == []
    assert write_summary(["hello"], 2) == NOTHING_FITS  # "nothing stated" does not fit either


def test_a_summary_can_be_read_back():
    summary = write_summary(LONG[:6])
    model = OfflineChatModel()
    for question, answer in [("what's my name?", "Sara"), ("Where do I live?", "Valencia"),
                             ("What is my cat called?", "Pistachio")]:  # fmt: skip
        assert answer in model.invoke([HumanMessage(summary), HumanMessage(question)]).content


# --- drift: extending a summary again and again ---------------------------------------------


def test_drift_recall_after_1_3_and_10_extensions():
    points = measure_drift()
    assert [p.extensions for p in points] == list(range(11))
    first = [points[n].recall_first for n in (1, 3, 10)]
    assert first == sorted(first, reverse=True) and first[0] > first[-1]
    assert first[-1] < 1.0 and points[0].recall_first == 1.0
    assert all(words(p.summary) <= DEFAULT_SUMMARY_WORDS for p in points)
    tight = measure_drift(words=30)
    assert [tight[n].recall_first for n in (1, 3, 10)] < first  # a tighter limit loses more, sooner


def test_a_fact_that_fell_out_stays_out_unless_said_again():
    points = measure_drift(words=30)
    parts = drift_conversation()
    for n, point in enumerate(points[:-1]):
        lost = {f.key for f in stated_facts(parts[0])} - {f.key for f in stated_facts([point.summary])}
        later = {f.key for f in stated_facts([points[n + 1].summary])}
        said_again = {f.key for f in stated_facts(parts[n + 1])}
        assert not (lost & later) - said_again


def test_extending_forgets_how_often_a_fact_was_said():
    # The name is said three times, first: a summary written once keeps it,
    # the extended one counts it once and lets newer facts push it out.
    points = measure_drift(words=30)
    assert "Sara" not in points[10].summary
    assert points[10].fresh_first > points[10].recall_first
    assert "Sara" in write_summary([t for part in drift_conversation() for t in part], 30)


def test_drift_is_what_the_model_does_with_the_how_tos_prompts():
    model, summary, expected = OfflineChatModel(), "", measure_drift(drift_conversation(4))
    for part, point in zip(drift_conversation(4), expected):
        prompt = EXTEND_SUMMARY_PROMPT.format(summary=summary) if summary else CREATE_SUMMARY_PROMPT
        messages = [m for text in part for m in (HumanMessage(text), AIMessage("I see."))]
        summary = model.invoke([*messages, HumanMessage(prompt)]).content
        assert summary == point.summary


# --- bad input ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: write_summary(LONG, 0), ValueError, "words must be >= 1, got 0"),
        (lambda: write_summary(LONG, 2.5), TypeError, "words must be an int"),
        (lambda: write_summary("hi! I'm bob"), TypeError, "texts must be a list of str"),
        (lambda: write_summary([1]), TypeError, r"texts\[0\] must be a str"),
        (lambda: write_summary(LONG, sentences=0), ValueError, "sentences must be >= 1, got 0"),
        (lambda: write_summary(LONG, max_questions=-1), ValueError, "max_questions must be >= 0, got -1"),
        (lambda: requested_length(None), TypeError, "request must be a str"),
        (lambda: summary_recall(None, LONG), TypeError, "summary must be a str"),
        (lambda: measure_drift("abc"), TypeError, "parts must be a non-empty list"),
        (lambda: measure_drift([["hi"], "hello"]), TypeError, r"parts\[1\] must be a list of str"),
        (lambda: drift_conversation(99), ValueError, "parts must be at most 13, got 99"),
    ],
)
def test_bad_input_is_a_clear_error(call, error, message):
    with pytest.raises(error, match=message):
        call()
