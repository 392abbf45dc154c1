"""The offline model recalls facts in the forms people state them, while they are sent (issues 27, 23).

A table of stated facts with a question each, in English, Chinese and
Persian: answered while the statement is among the messages sent (or a
summary that kept it, English or Persian), and "I don't know ... not in what I was sent" once a
real ``trim_messages`` has cut it or a summary too short to hold it replaced it.
"""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, trim_messages

from course_utils.model.chat import OfflineChatModel
from course_utils.model.fact_replies import fact_reply
from course_utils.model.facts import read_facts, stated_attributes
from course_utils.window.tokens import exact_counter

#: (statement, question, the answer while it is sent, a word of it that only the statement can give)
FACTS = [
    ("My favourite colour is green.", "What's my favourite colour?", "Your favourite colour is green.", 'green'),
    ("My favorite color is blue.", "What is my favourite colour?", "Your favourite colour is blue.", 'blue'),
    ("I'm allergic to peanuts.", "What am I allergic to?", "You're allergic to peanuts.", 'peanuts'),
    ("I'm allergic to shellfish.", "Am I allergic to shellfish?", "Yes: you told me you're allergic to shellfish.", 'Yes'),
    ("My name is Alice.", "What is my name?", "Your name is Alice.", 'Alice'),
    ("hi! I'm bob", "what's my name?", "Your name is Bob.", 'Bob'),
    ("I like jazz.", "What do I like?", "You told me you like jazz.", 'jazz'),
    ("I don't like olives.", "What don't I like?", "You don't like olives.", 'olives'),
    ("I'm from Spain.", "Where am I from?", "You're from Spain.", 'Spain'),
    ("I'm 34 years old.", "How old am I?", "You're 34.", '34'),
    ("I'm vegetarian.", "Am I vegetarian?", "Yes: you told me you're vegetarian.", 'Yes'),
    ("I live in Valencia.", "Where do I live?", "You live in Valencia.", 'Valencia'),
    ("My cat is called Pistachio.", "What is my cat called?", "Your cat is called Pistachio.", 'Pistachio'),
    ("My favourite food is mushroom risotto.", "What is my favourite food?", "Your favourite food is mushroom risotto.", 'risotto'),
    ("I work as a nurse.", "What do I do for work?", "You work as a nurse.", 'nurse'),
    ("My birthday is 3 May.", "When is my birthday?", "Your birthday is 3 May.", '3 May'),
    ("My phone number is 555 0199.", "What's my phone number?", "Your phone number is 555 0199.", '555 0199'),
    ("你好！我叫小明。", "我叫什么名字？", "你叫小明。", '小明'),
    ("我最喜欢的颜色是绿色。", "我最喜欢的颜色是什么？", "你最喜欢的颜色是绿色。", '绿色'),
    ("我对花生过敏。", "我对什么过敏？", "你对花生过敏。", '花生'),
    ("我住在上海。", "我住在哪里？", "你住在上海。", '上海'),
    ("我喜欢爵士乐。", "我喜欢什么？", "你喜欢爵士乐。", '爵士乐'),
    ("我不喜欢香菜。", "我不喜欢什么？", "你不喜欢香菜。", '香菜'),
    ("我来自北京。", "我来自哪里？", "你来自北京。", '北京'),
    ("سلام! من باب هستم", "اسم من چیست؟", "اسم شما باب است.", 'باب'),
    ("اسم من سارا است.", "اسمم چیه؟", "اسم شما سارا است.", 'سارا'),
    ("رنگ مورد علاقه من سبز است.", "رنگ مورد علاقه من چیست؟", "رنگ مورد علاقه شما سبز است.", 'سبز'),
    ("من به بادام زمینی حساسیت دارم.", "من به چه چیزی حساسیت دارم؟", "شما به بادام زمینی حساسیت دارید.", 'بادام'),
    ("من در تهران زندگی می‌کنم.", "من کجا زندگی می‌کنم؟", "شما در تهران زندگی می‌کنید.", 'تهران'),
    ("من قهوه را دوست دارم.", "من چه چیزی را دوست دارم؟", "شما قهوه را دوست دارید.", 'قهوه'),
    ("من اهل شیراز هستم.", "من اهل کجا هستم؟", "شما اهل شیراز هستید.", 'شیراز'),
]
#: How an honest "not known" begins or reads, by the question's script.
UNKNOWN = {"en": "I don't know", "zh": "我不知道", "fa": "نمی‌دانم"}
FILLER = {"en": "Thanks!", "zh": "谢谢！", "fa": "ممنون!"}


def language(text: str) -> str:
    if any("\u0600" <= ch <= "\u06ff" for ch in text):
        return "fa"
    return "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in text) else "en"


def ask(*messages):
    return OfflineChatModel().invoke(list(messages)).text


def test_the_table_covers_three_languages():
    counts = {lang: sum(language(s) == lang for s, *_ in FACTS) for lang in UNKNOWN}
    assert len(FACTS) >= 20 and counts["en"] >= 10 and counts["zh"] >= 5 and counts["fa"] >= 5


@pytest.mark.parametrize("statement, question, answer, value", FACTS)
def test_a_fact_is_recalled_while_sent_and_not_after_trimming(statement, question, answer, value):
    lang = language(question)
    said = HumanMessage(statement)
    history = [said, AIMessage(ask(said)), HumanMessage(FILLER[lang]), AIMessage("…"), HumanMessage(question)]
    assert ask(*history) == answer
    # A real trim that keeps only what fits the question's own tokens: the statement is cut.
    kept = trim_messages(history, max_tokens=exact_counter(history[-1:]), token_counter=exact_counter,
                         strategy="last", start_on="human")
    assert kept == history[-1:]
    forgotten = ask(*kept)
    assert UNKNOWN[lang] in forgotten
    assert value not in forgotten, "a trimmed fact is not known"


@pytest.mark.parametrize("statement, question, answer, value", FACTS)
def test_a_summary_keeps_a_fact_that_fits_and_loses_one_that_does_not(statement, question, answer, value):
    lang = language(question)
    chat = [HumanMessage(statement), AIMessage("…"), HumanMessage(FILLER[lang])]
    summary = ask(*chat, HumanMessage("Create a summary of the conversation above:"))
    assert ask(SystemMessage(f"Summary of the conversation so far: {summary}"), HumanMessage(question)) == answer
    tiny = ask(*chat, HumanMessage("Create a summary of the conversation above in at most 2 words:"))
    lost = ask(SystemMessage(f"Summary of the conversation so far: {tiny}"), HumanMessage(question))
    assert UNKNOWN[lang] in lost and value not in lost


@pytest.mark.parametrize("statement, question, answer, value", FACTS)
def test_a_summary_requested_in_persian_keeps_and_loses_a_fact_the_same_way(statement, question, answer, value):
    # The same table, the summary now asked for in Persian: written in Persian sentences, read back
    # whatever the language of the question.
    lang = language(question)
    chat = [HumanMessage(statement), AIMessage("…"), HumanMessage(FILLER[lang])]
    summary = ask(*chat, HumanMessage("گفتگوی بالا را خلاصه کن:"))
    assert "کاربر" in summary and "The user" not in summary
    assert ask(SystemMessage(f"خلاصهٔ گفتگوی پیشین: {summary}"), HumanMessage(question)) == answer
    tiny = ask(*chat, HumanMessage("گفتگوی بالا را در 2 کلمه خلاصه کن:"))
    lost = ask(SystemMessage(f"خلاصهٔ گفتگوی پیشین: {tiny}"), HumanMessage(question))
    assert UNKNOWN[lang] in lost and value not in lost


def test_the_persian_demonstration_of_issue_23():
    intro = HumanMessage("سلام! من باب هستم")
    greeting = ask(intro)
    assert "باب" in greeting and greeting.startswith("سلام")
    history = [intro, AIMessage(greeting), HumanMessage("اسم من چیست؟")]
    assert "باب" in ask(*history)
    assert "باب" not in ask(*history[-1:]) and "نمی‌دانم" in ask(*history[-1:])


def test_untrue_replies_are_gone_and_unknowns_say_why():
    assert ask(HumanMessage("What's my favourite colour?")) == (
        "I don't know your favourite colour: it is not in what I was sent."
    )
    assert "Tell me more" not in ask(HumanMessage("我对花生过敏。"))


@pytest.mark.parametrize("remark", [
    "My sister's birthday is coming up.",  # about someone else
    "I work as a nurse on night shifts, so my sleep schedule is a bit of a mess.",  # a remark, not a value
    "I'm fine, thanks.",
])
def test_remarks_are_not_facts(remark):
    facts = read_facts([remark])
    assert facts.attributes == {} and facts.traits == [] and facts.name is None
    assert stated_attributes(remark) == {}


def test_persian_and_chinese_replies_stay_in_their_language():
    assert fact_reply("我叫什么名字？", read_facts([])) == "我不知道你的名字：我收到的消息里没有。"
    assert ask(HumanMessage("کتاب خوبی می‌شناسی؟")).startswith("پرسیدید:")
    assert ask(HumanMessage("你好")) == "你好！有什么可以帮你的？"


def test_two_facts_in_one_sentence_are_both_read():
    facts = read_facts(["My favourite colour is green and my favourite food is pizza."])
    assert facts.attributes == {"favourite colour": "green"} and facts.food == "pizza"
