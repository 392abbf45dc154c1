"""Summaries requested in Persian (issue 23): recognised, written in Persian, same rules, read back.

The offline model must understand Persian where the demonstrations need it,
"summaries that keep or lose" a fact among them, under the same documented
rules as in English. These tests hold it to that: Persian create and extend
requests with the length words English accepts, Persian sentences ranked and
cut by the same rule (words counted by whitespace), and a summary the model
can read back, so a name it kept is still known and one it lost is not.
"""

from __future__ import annotations

from typing import Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, SystemMessage, trim_messages
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph

from course_utils.model.chat import OfflineChatModel
from course_utils.model.summaries import (
    BRIEF_SUMMARY_WORDS,
    DEFAULT_SUMMARY_WORDS,
    NO_FACTS,
    NOTHING_FITS,
    drift_conversation,
    rank_facts,
    requested_length,
    stated_facts,
    summary_language,
    summary_recall,
    write_summary,
)
from course_utils.model.summary_sentences import FA_READ, NO_FACTS as NO_FACTS_IN, SUMMARY_SENTENCES, summary_sentence
from course_utils.window.tokens import exact_counter

#: The how-to's two prompts, as a Persian teacher would write them.
FA_CREATE = "گفتگوی بالا را خلاصه کن:"
FA_EXTEND = (
    "این خلاصهٔ گفتگو تا اینجاست: {summary}\n\n"
    "خلاصه را با در نظر گرفتن پیام\u200cهای جدید بالا گسترش بده:"
)
EN_EXTEND = (
    "This is summary of the conversation to date: {summary}\n\n"
    "Extend the summary by taking into account the new messages above:"
)
FA_PREFIX = "خلاصهٔ گفتگوی پیشین: "
NOT_KNOWN = "نمی\u200cدانم"
BOB = "سلام! من باب هستم"
ASK_NAME = "اسم من چیست؟"
#: A Persian chat: name, city, like, attribute, allergy, origin, trait, dislike and a question.
PERSIAN_CHAT = [
    BOB,
    "من در تهران زندگی می\u200cکنم.",
    "من قهوه را دوست دارم.",
    "رنگ مورد علاقه من سبز است.",
    "من به بادام زمینی حساسیت دارم.",
    "من اهل شیراز هستم.",
    "من دانشجو هستم.",
    "من زیتون را دوست ندارم.",
    ASK_NAME,
]
#: An English chat with every kind of fact a summary keeps (lesson 05's Sara, and more).
ENGLISH_CHAT = [
    *drift_conversation(1)[0],
    "I'm 34 years old.", "I'm vegetarian.", "I'm from Spain.", "My favourite colour is green.",
    "I'm allergic to peanuts.", "I don't like olives.", "i like the celtics!", "What's my name?",
]  # fmt: skip


def ask(*messages):
    return OfflineChatModel().invoke(list(messages)).text


def summarise(texts, request):
    """What the offline model answers to ``request`` after these human messages (each answered "…")."""
    messages = [m for text in texts for m in (HumanMessage(text), AIMessage("…"))]
    return ask(*messages, HumanMessage(request))


def kept_keys(summary):
    return {fact.key for fact in stated_facts([summary])}


# --- which requests ask for a summary, and in which language ----------------------------


@pytest.mark.parametrize("request_", [
    FA_CREATE,
    "گفتگوی بالا را خلاصه کنید.",
    "لطفاً خلاصه کن",
    "خلاصه\u200cای از گفتگوی بالا بنویس",
    "یک خلاصه از گفتگو بنویسید:",
    "خلاصهٔ گفتگوی بالا را بنویس.",
    "خلاصه\u200cای کوتاه از گفتگوی بالا بساز",
    "می\u200cشود گفتگو را خلاصه کنی؟",
    FA_EXTEND.format(summary="اسم کاربر باب است."),
    "خلاصه را با پیام\u200cهای جدید به\u200cروز کن:",
    "یک summary از گفتگوی بالا بنویس:",  # the glossary keeps "summary" in Latin script
    "summary را با در نظر گرفتن پیام\u200cهای جدید بالا گسترش بده:",
])
def test_persian_requests_ask_for_a_persian_summary(request_):
    assert summary_language(request_) == "fa"
    reply = summarise([BOB], request_)
    assert reply.endswith("اسم کاربر باب است."), "a summary in Persian, not an echo"
    # (a request worded as a question is itself recorded, as in English: "کاربر پرسید: ...؟")
    assert "The user" not in reply and "name" in kept_keys(reply)


@pytest.mark.parametrize("text", [
    ASK_NAME,
    "خلاصه چیست؟",
    "من خلاصه\u200cها را دوست دارم.",
    "این کتاب خلاصهٔ خوبی دارد.",
    BOB,
    FA_EXTEND.format(summary="کاربر پرسید: گفتگو را خلاصه کن؟").split("\n\n")[0],  # only a restated question
])
def test_texts_that_ask_for_no_summary_get_none(text):
    assert summary_language(text) is None
    assert not summarise([BOB], text).startswith(("اسم کاربر", "کاربر")), "an answer, not a summary"


def test_english_requests_stay_english_even_around_a_persian_summary():
    persian_summary = summarise([BOB], FA_CREATE)
    assert summary_language("Create a summary of the conversation above:") == "en"
    assert summary_language(EN_EXTEND.format(summary=persian_summary)) == "en"
    extended = ask(HumanMessage("ok"), HumanMessage(EN_EXTEND.format(summary=persian_summary)))
    assert extended == "The user's name is باب."
    # and a Persian request extending an English summary is Persian
    english_summary = summarise(["hi! I'm bob"], "Create a summary of the conversation above:")
    assert summary_language(FA_EXTEND.format(summary=english_summary)) == "fa"
    assert ask(HumanMessage("ok"), HumanMessage(FA_EXTEND.format(summary=english_summary))) == "اسم کاربر Bob است."


# --- the length a Persian request asks for -------------------------------------------------


@pytest.mark.parametrize("english, persian", [
    ("Create a summary of the conversation above in 25 words:", "گفتگوی بالا را در 25 کلمه خلاصه کن:"),
    ("Create a summary in at most 12 words:", "خلاصه\u200cای در حداکثر 12 کلمه بنویس"),
    ("Create a summary of no more than 12 words:", "خلاصه\u200cای با حداکثر 12 کلمه بنویس"),
    ("Create a summary in up to twelve words:", "خلاصه\u200cای تا دوازده کلمه بنویس"),
    ("Create a summary in 20 words or fewer:", "خلاصه\u200cای در 20 کلمه یا کمتر بنویس"),
    ("Create a summary in under 20 words:", "خلاصه\u200cای در کمتر از 20 کلمه بنویس"),
    ("Create a summary in fewer than five words:", "خلاصه\u200cای زیر پنج کلمه بنویس"),
    ("Summarise the chat in one sentence.", "گفتگو را در یک جمله خلاصه کن."),
    ("Summarise the chat in at most 3 sentences.", "گفتگو را در حداکثر 3 جمله خلاصه کن."),
    ("Write a short summary:", "خلاصه\u200cای کوتاه بنویس:"),
    ("Summarise briefly:", "به\u200cطور خلاصه گفتگو را خلاصه کن:"),
    ("Write a concise summary:", "خلاصه\u200cای مختصر بنویس:"),
    ("Create a summary in 12 words, briefly:", "خلاصه\u200cای کوتاه در 12 کلمه بنویس"),
    ("Create a summary of the conversation above:", FA_CREATE),
])
def test_persian_length_words_ask_for_what_the_english_ones_do(english, persian):
    assert summary_language(persian) == "fa" and summary_language(english) == "en"
    assert requested_length(persian) == requested_length(english)


def test_persian_digits_are_read_as_numbers():
    assert requested_length("گفتگوی بالا را در ۱۲ کلمه خلاصه کن:") == requested_length("در 12 کلمه خلاصه کن")
    assert requested_length("در ۱۲ کلمه خلاصه کن").words == 12


def test_a_request_that_names_the_user_keeps_its_own_words():
    request = "لطفاً پیام\u200cهای کاربر را در 20 کلمه خلاصه کن، مهم است."
    assert summary_language(request) == "fa"
    assert requested_length(request).words == 20


def test_length_words_inside_an_old_persian_summary_are_not_read():
    old = summary_sentence("asked", "fa", question="یک داستان کوتاه در 3 جمله می\u200cگویی؟")
    assert "کوتاه" in old
    length = requested_length(FA_EXTEND.format(summary=old))
    assert (length.words, length.sentences, length.asked) == (DEFAULT_SUMMARY_WORDS, None, False)
    assert requested_length(FA_EXTEND.format(summary=old) + " کوتاه").words == BRIEF_SUMMARY_WORDS


# --- the same rules: facts, rank, length ----------------------------------------------------


def test_the_facts_and_their_rank_are_the_same_in_both_languages():
    for texts in (PERSIAN_CHAT, ENGLISH_CHAT, [text for part in drift_conversation() for text in part]):
        english, persian = stated_facts(texts), stated_facts(texts, "fa")
        assert [f.key for f in rank_facts(english)] == [f.key for f in rank_facts(persian)]
        assert [(f.mentions, f.last) for f in english] == [(f.mentions, f.last) for f in persian]
        assert all(f.words == len(f.sentence.split()) for f in persian)


@pytest.mark.parametrize("limit", [1, 3, 4, 5, 8, 12, 20, 30, 45, 60])
def test_a_persian_summary_keeps_what_the_loss_rule_keeps_within_its_words(limit):
    for texts in (PERSIAN_CHAT, ENGLISH_CHAT):
        summary = summarise(texts, f"گفتگوی بالا را در {limit} کلمه خلاصه کن:")
        assert len(summary.split()) <= limit
        # The rule, walked by hand: in rank order, keep each fact that still fits.
        used, expected = 0, set()
        for fact in rank_facts(stated_facts([FA_CREATE, *texts], "fa")):
            if used + len(fact.sentence.split()) <= limit:
                expected.add(fact.key)
                used += len(fact.sentence.split())
        assert kept_keys(summary) == expected


def test_words_are_counted_by_whitespace_a_half_space_joins_one_word():
    city = summary_sentence("city", "fa", city="تهران")
    assert "\u200c" in city  # می‌کند: one word, joined by a zero-width non-joiner
    limit = len(city.split())
    assert summarise(["من در تهران زندگی می\u200cکنم."], f"گفتگو را در {limit} کلمه خلاصه کن") == city
    lost = summarise(["من در تهران زندگی می\u200cکنم."], f"گفتگو را در {limit - 1} کلمه خلاصه کن")
    assert "تهران" not in lost


def test_facts_are_written_oldest_first_and_the_newer_wins_a_tie():
    both = summarise([BOB, "من قهوه را دوست دارم."], FA_CREATE)
    assert both == "اسم کاربر باب است. کاربر قهوه را دوست دارد."
    like = summary_sentence("like", "fa", thing="قهوه")
    short = summarise([BOB, "من قهوه را دوست دارم."], f"گفتگو را در {len(like.split())} کلمه خلاصه کن")
    assert short == like  # the newer fact wins; the name is lost


def test_a_persian_summary_of_nothing_says_so_and_states_no_fact():
    summary = summarise(["ممنون!"], FA_CREATE)
    assert summary == NO_FACTS_IN["fa"] != NO_FACTS
    assert stated_facts([summary]) == []
    assert ask(SystemMessage(FA_PREFIX + summary), HumanMessage(ASK_NAME)).startswith("اسم شما را " + NOT_KNOWN)


# --- the model reads its own Persian summary back --------------------------------------------


@pytest.mark.parametrize("texts", [PERSIAN_CHAT, ENGLISH_CHAT, [BOB], ["hi! I'm bob", "i like the celtics!"]])
def test_a_persian_summary_states_every_fact_it_kept_as_the_english_one_reads_them(texts):
    summary = write_summary(texts, 1000, language="fa")
    assert [f.sentence for f in stated_facts([summary])] == [f.sentence for f in stated_facts(texts)]
    assert summary_recall(summary, texts) == 1.0
    assert summary == " ".join(f.sentence for f in stated_facts(texts, "fa"))


@settings(max_examples=60)
@given(st.lists(st.sampled_from(PERSIAN_CHAT + ENGLISH_CHAT), min_size=1, max_size=12), st.integers(1, 80))
def test_any_persian_summary_fits_its_words_invents_nothing_and_reads_back_as_written(texts, limit):
    summary = write_summary(texts, limit, language="fa")
    assert len(summary.split()) <= limit
    read = stated_facts([summary])
    assert {f.key for f in read} <= {f.key for f in stated_facts(texts)}  # it invents nothing
    # what it reads back is what it wrote: the same facts, in the same Persian sentences
    if summary in (NOTHING_FITS, NO_FACTS_IN["fa"]):
        assert read == []
    else:
        assert " ".join(f.sentence for f in stated_facts([summary], "fa")) == summary


#: Each Persian form filled in, and the one fact it must read back as.
FORMS = {
    "name": ({"name": "باب"}, "name"),
    "city": ({"city": "تهران"}, "city"),
    "pet": ({"animal": "cat", "pet": "Pistachio"}, "pet"),
    "food": ({"food": "قورمه\u200cسبزی"}, "food"),
    "job": ({"job": "پرستار"}, "job"),
    "attribute": ({"key": "رنگ مورد علاقه", "value": "سبز"}, "attribute:رنگ مورد علاقه"),
    "allergy": ({"allergy": "گردو"}, "allergy:گردو"),
    "dislike": ({"thing": "زیتون"}, "dislikes:زیتون"),
    "origin": ({"origin": "شیراز"}, "origin"),
    "age": ({"age": "34"}, "age"),
    "trait": ({"trait": "دانشجو"}, "trait:دانشجو"),
    "like": ({"thing": "قهوه"}, "likes:قهوه"),
    "asked": ({"question": "اسم من چیست؟"}, "asked:اسم من چیست؟"),
}


def test_every_persian_form_is_read_back_as_its_own_fact_and_no_other():
    assert set(FORMS) == set(SUMMARY_SENTENCES["fa"]) == set(FA_READ)
    for kind, (fields, key) in FORMS.items():
        sentence = summary_sentence(kind, "fa", **fields)
        assert [fact.key for fact in stated_facts([sentence])] == [key], sentence
        if kind != "asked":  # a question is read from a sentence's start, in English too ("The user asked: ...")
            assert [fact.key for fact in stated_facts([FA_PREFIX + sentence])] == [key], "after a prefix too"


@pytest.mark.parametrize("question, answer, value", [
    (ASK_NAME, "اسم شما باب است.", "باب"),
    ("من کجا زندگی می\u200cکنم؟", "شما در تهران زندگی می\u200cکنید.", "تهران"),
    ("من چه چیزی را دوست دارم؟", "شما قهوه را دوست دارید.", "قهوه"),
    ("رنگ مورد علاقه من چیست؟", "رنگ مورد علاقه شما سبز است.", "سبز"),
    ("من به چه چیزی حساسیت دارم؟", "شما به بادام زمینی حساسیت دارید.", "بادام"),
    ("من اهل کجا هستم؟", "شما اهل شیراز هستید.", "شیراز"),
    ("من چه چیزی را دوست ندارم؟", "شما زیتون را دوست ندارید.", "زیتون"),
])
def test_each_fact_is_known_from_a_persian_summary_that_kept_it_and_not_from_one_that_lost_it(question, answer, value):
    chat_ = PERSIAN_CHAT[:-1]
    summary = summarise(chat_, FA_CREATE)
    assert ask(SystemMessage(FA_PREFIX + summary), HumanMessage(question)) == answer
    tiny = summarise(chat_, "گفتگوی بالا را در 2 کلمه خلاصه کن:")
    lost = ask(SystemMessage(FA_PREFIX + tiny), HumanMessage(question))
    assert NOT_KNOWN in lost and value not in lost


def test_issue_23_bob_is_known_until_trimmed_or_summarised_away():
    """Done when: told "سلام! من باب هستم", it answers "اسم من چیست؟" with باب, and stops knowing it
    once the fact is trimmed away; a Persian summary that keeps the name keeps it known, a short one loses it."""
    intro = HumanMessage(BOB)
    history = [intro, AIMessage(ask(intro)), HumanMessage("من قهوه را دوست دارم."), AIMessage("…")]
    question = HumanMessage(ASK_NAME)
    assert "باب" in ask(*history, question)
    # A real trim_messages that keeps only the newest exchange cuts the introduction.
    trimmed = trim_messages([*history, question], max_tokens=exact_counter([*history[2:], question]),
                            token_counter=exact_counter, strategy="last", start_on="human")
    assert intro not in trimmed and trimmed[-1] is question
    assert "باب" not in ask(*trimmed) and NOT_KNOWN in ask(*trimmed)
    # The history replaced by a Persian summary: kept at the default length, lost in 5 words.
    kept = ask(*history, HumanMessage(FA_CREATE))
    assert ask(SystemMessage(FA_PREFIX + kept), question) == "اسم شما باب است."
    lost = ask(*history, HumanMessage("گفتگوی بالا را در 5 کلمه خلاصه کن:"))
    assert lost == "کاربر قهوه را دوست دارد."
    reply = ask(SystemMessage(FA_PREFIX + lost), question)
    assert "باب" not in reply and NOT_KNOWN in reply


def test_extending_a_persian_summary_follows_the_drift_rule():
    first = summarise([BOB, BOB, "من قهوه را دوست دارم."], FA_CREATE)  # the name said twice
    assert first == "اسم کاربر باب است. کاربر قهوه را دوست دارد."
    new = [HumanMessage("من در تهران زندگی می\u200cکنم."), AIMessage("…")]
    extended = ask(*new, HumanMessage(FA_EXTEND.format(summary=first)))
    assert extended == first + " " + summary_sentence("city", "fa", city="تهران")  # old facts first
    # In the old summary the name is said once: the newer facts push it out of a short extension.
    short = ask(*new, HumanMessage(FA_EXTEND.format(summary=first) + " در 10 کلمه"))
    assert "باب" not in short and kept_keys(short) == {"likes:قهوه", "city"}
    fresh = summarise([BOB, BOB, "من قهوه را دوست دارم.", "من در تهران زندگی می\u200cکنم."], "در 10 کلمه خلاصه کن")
    assert "name" in kept_keys(fresh)  # written once from the whole chat, the name said twice wins


def test_english_questions_are_answered_from_a_persian_summary_of_an_english_chat():
    summary = summarise(ENGLISH_CHAT, FA_CREATE)
    assert summary.startswith("اسم کاربر Sara است.") and "The user" not in summary
    system = SystemMessage(FA_PREFIX + summary)
    assert ask(system, HumanMessage("what's my name?")) == "Your name is Sara."
    assert ask(system, HumanMessage("What is my cat called?")) == "Your cat is called Pistachio."
    assert ask(system, HumanMessage("What do I do for work?")) == "You work as a nurse."


class State(MessagesState):
    summary: str


def test_a_langgraph_chatbot_with_persian_prompts_remembers_bob_through_its_summary():
    """Lesson 04b's chatbot with the Persian prompts: the history replaced by a summary, the name kept."""
    model = OfflineChatModel()

    def conversation(state: State):
        summary = state.get("summary", "")
        messages = [SystemMessage(FA_PREFIX + summary), *state["messages"]] if summary else state["messages"]
        return {"messages": [model.invoke(messages)]}

    def route(state: State) -> Literal["summarize", "__end__"]:
        return "summarize" if len(state["messages"]) > 4 else END

    def summarize(state: State):
        summary = state.get("summary", "")
        prompt = FA_EXTEND.format(summary=summary) if summary else FA_CREATE
        response = model.invoke([*state["messages"], HumanMessage(prompt)])
        return {"summary": response.text, "messages": [RemoveMessage(id=m.id) for m in state["messages"][:-2]]}

    graph = StateGraph(State)
    graph.add_node("conversation", conversation)
    graph.add_node("summarize", summarize)
    graph.add_edge(START, "conversation")
    graph.add_conditional_edges("conversation", route)
    graph.add_edge("summarize", END)
    app = graph.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "bob-fa"}}
    for text in [BOB, "من قهوه را دوست دارم.", "من در تهران زندگی می\u200cکنم.", "ممنون!"]:
        app.invoke({"messages": [HumanMessage(text)]}, config)
    values = app.get_state(config).values
    assert BOB not in [m.text for m in values["messages"]], "the introduction was summarised away"
    assert "اسم کاربر باب است." in values["summary"]
    reply = app.invoke({"messages": [HumanMessage(ASK_NAME)]}, config)["messages"][-1]
    assert reply.text == "اسم شما باب است."


@pytest.mark.parametrize("call, error, message", [
    (lambda: stated_facts(["x"], "de"), ValueError, r"^language must be one of \('en', 'fa'\), got 'de'$"),
    (lambda: write_summary(["x"], language="fr"), ValueError, r"^language must be one of"),
    (lambda: summary_sentence("name", "de", name="x"), ValueError, r"^language must be one of"),
    (lambda: summary_sentence("height", "fa"), ValueError, r"^kind must be one of .*got 'height'$"),
    (lambda: summary_language(3), TypeError, r"^request must be a str, got int: 3$"),
])
def test_bad_input_is_named(call, error, message):
    with pytest.raises(error, match=message):
        call()
