"""Exercise 07: beyond one window (``exercises/07_..._exercise.ipynb``, after ``notebooks/07_beyond_one_window.ipynb``).

The notebook binds its questions with ``from course_utils.checks import ex07``.
The checks run LangChain's real ``create_agent`` with the offline model, a
real LangGraph ``InMemoryStore`` and the learner's tool or middleware.
Question 4 (lesson 07b: does a sub-agent pay?) lives in
:mod:`course_utils.checks.subagent_decision` and is registered at the end.
"""

from __future__ import annotations

import inspect
import random
import warnings

from langchain_core.messages import HumanMessage, ToolMessage

from course_utils.checks.kinds import choice_question
from course_utils.checks.machinery import Exercise, describe
from course_utils.checks.reasons import Claim, Relation, Reversal, Term
from course_utils.checks.subagent_decision import HINTS as Q4_HINTS, TITLE as Q4_TITLE, USAGE as Q4_USAGE
from course_utils.checks.subagent_decision import check_subagent_decision
from course_utils.core.i18n import _, pgettext

ex07 = Exercise("07", "Beyond one window", "07_beyond_one_window")

#: Question 1: facts told in one thread and asked in another: (statement, question, the value to recall).
EX07_FACTS = (
    ("my favourite colour is green.", "What's my favourite colour?", "green"),
    ("I live in Porto.", "Where do I live?", "Porto"),
    ("my favourite tea is jasmine.", "What's my favourite tea?", "jasmine"),
    ("I'm allergic to peanuts.", "What am I allergic to?", "peanuts"),
)
EX07_SEED = 707
#: Question 2: the history after the large file is read must stay under this (exact counter).
EX07_HISTORY_TOKENS = 1000


def _memory_agent(save_tool, store):
    from langchain.agents import create_agent
    from langgraph.checkpoint.memory import InMemorySaver

    from course_utils.model.chat import OfflineChatModel
    from course_utils.agentic.memory import UserContext, memory_tools

    recall_tool = memory_tools()[1]
    return create_agent(OfflineChatModel(), tools=[save_tool, recall_tool], store=store, context_schema=UserContext,
                        checkpointer=InMemorySaver())


def _turn(agent, text, thread, user):
    from course_utils.agentic.memory import UserContext

    with warnings.catch_warnings():  # a bare ToolRuntime (no [UserContext]) makes pydantic warn on serialising it
        warnings.filterwarnings("ignore", message="Pydantic serializer warnings", category=UserWarning)
        result = agent.invoke({"messages": [HumanMessage(text)]}, {"configurable": {"thread_id": thread}},
                              context=UserContext(user))
    messages = result["messages"]
    start = max(i for i, m in enumerate(messages) if isinstance(m, HumanMessage))
    return messages[start:]


@ex07.question(
    "a memory-saving tool a new thread recalls from",
    "q1.check(save_fact)",
    hints=(
        "Decorate a function `save_fact(text: str, runtime: ToolRuntime) -> str` with `@tool`; its docstring "
        "says it saves a fact about the user to long-term memory (the model chooses tools by name and description).",
        "Inside: `runtime.store.put((\"memories\", runtime.context.user_id), key, {\"text\": text})` with a key "
        "of your choice (a new one per fact), and return a short confirmation.",
    ),
)
def _ex07_q1(q, save_fact):
    from langchain_core.tools import BaseTool
    from langgraph.store.memory import InMemoryStore

    q.need(save_fact, "save_fact")
    if not isinstance(save_fact, BaseTool):
        return q.wrong(_("`save_fact` should be a tool: decorate your function with `@tool`, got {describe}.").format(
            describe=describe(save_fact)))
    func = getattr(save_fact, "func", None)
    if func is not None:
        q.need_function(func, "save_fact")
    facts = random.Random(EX07_SEED).sample(EX07_FACTS, 2)
    store = InMemoryStore()
    agent = _memory_agent(save_fact, store)
    for n, (statement, question, value) in enumerate(facts, start=1):
        told = q.call(_turn, agent, f"Remember that {statement}", f"a{n}", "sara",
                      about=_("the request 'Remember that {statement}'").format(statement=statement))
        calls = [c["name"] for m in told for c in getattr(m, "tool_calls", []) or []]
        if save_fact.name not in calls:
            return q.wrong(_("asked 'Remember that {statement}', the agent did not call `{name}` (it called "
                             "{calls}): say in the tool's name or docstring that it saves or remembers facts.").format(
                                 statement=statement, name=save_fact.name,
                                 calls=calls or pgettext("exercise 07", "nothing")))
        errors = [m.text for m in told if isinstance(m, ToolMessage) and m.status == "error"]
        if errors:
            return q.wrong(_("your tool failed when the agent called it: {error}").format(error=errors[0][:200]))
        items = store.search(("memories", "sara"), limit=100)
        if not any(value.lower() in str(item.value.get("text", "")).lower() for item in items):
            where = sorted({tuple(i.namespace) for i in store.search((), limit=100)})
            return q.wrong(_("after 'Remember that {statement}', the namespace (\"memories\", \"sara\") holds "
                             "{items}; save {{\"text\": text}} under (\"memories\", runtime.context.user_id) (items "
                             "are in {where}).").format(
                                 statement=statement,
                                 items=[i.value for i in items] or pgettext("exercise 07", "nothing"),
                                 where=where or pgettext("exercise 07", "no namespace")))
    for n, (statement, question, value) in enumerate(facts, start=1):
        answer = q.call(_turn, agent, question, f"b{n}", "sara",
                        about=_("a new thread asking {question!r}").format(question=question))[-1].text
        if value.lower() not in answer.lower():
            return q.wrong(_("a new thread asked {question!r} and got {answer!r}, not {value!r}: store the text the "
                             "agent passes, under {{\"text\": ...}}, so recall_memory can find it.").format(
                                 question=question, answer=answer[:160], value=value))
        other = q.call(_turn, agent, question, f"c{n}", "bob", about=_("another user's thread"))[-1].text
        if value.lower() in other.lower():
            return q.wrong(_("another user (bob) asked {question!r} and was told {value!r}: keep each user's "
                             "memories in their own namespace, (\"memories\", runtime.context.user_id).").format(
                                 question=question, value=value))
    return q.correct(_("your tool saved {count} facts in thread A under (\"memories\", \"sara\"); new threads "
                       "recalled both, and another user's thread recalled neither.").format(count=len(facts)))


# --- question 2: offloading middleware --------------------------------------------------------


def _wrapped_function(middleware):
    """The function ``@wrap_tool_call`` wrapped (held in its method's closure), or None."""
    method = type(middleware).__dict__.get("wrap_tool_call")
    for cell in getattr(method, "__closure__", None) or ():
        if inspect.isfunction(cell.cell_contents):
            return cell.cell_contents
    return None


def _offload_run(middleware):
    from course_utils.agentic.offload import offload_agent
    from course_utils.window.tokens import exact_counter

    agent, _ = offload_agent(middleware=middleware)
    config = {"configurable": {"thread_id": "ex07"}}
    small = agent.invoke({"messages": [HumanMessage("Read the file notes.txt")]}, config)["messages"]
    big = agent.invoke({"messages": [HumanMessage("Read the file orders/march.csv")]}, config)["messages"]
    after_big = exact_counter(big)
    back = agent.invoke({"messages": [HumanMessage("Read that result back: what is the status of order 1427?")]},
                        config)["messages"]
    return small, big, after_big, back


@ex07.question(
    "offload a large tool result and keep the answer correct",
    "q2.check(offload_big)",
    hints=(
        "In `offload_big(request, handler)`: `result = handler(request)`; if `count_text_tokens(result.text)` is "
        "over 1000, put `{\"content\": result.text}` in `request.runtime.store` under "
        "(\"offloaded\", thread_id_of(request.runtime)) with a key such as \"res-1\".",
        "Return `result.model_copy(update={\"content\": pointer})` where the pointer is short and says "
        "\"stored as id res-1\" (pointer_text(...) writes one); return small results, and read_result's, unchanged.",
    ),
)
def _ex07_q2(q, offload_big):
    from langchain.agents.middleware import AgentMiddleware

    from course_utils.agentic.offload import ORDER_COUNT, order_lines

    q.need(offload_big, "offload_big")
    if not isinstance(offload_big, AgentMiddleware) or "wrap_tool_call" not in type(offload_big).__dict__:
        return q.wrong(_("`offload_big` should be the middleware made by decorating your function with "
                         "`@wrap_tool_call`, got {describe}.").format(describe=describe(offload_big)))
    written = _wrapped_function(offload_big)
    if written is not None:
        q.need_function(written, "offload_big")
    small, big, after_big, back = q.call(_offload_run, offload_big, about=_("the lesson's three requests"))
    small_results = [m for m in small if isinstance(m, ToolMessage)]
    if not small_results or not small_results[-1].text.startswith("No such file"):
        return q.wrong(_("a small tool result (read_file('notes.txt'): a one-line 'No such file' message) came back "
                         "as {got!r}: leave results under 1000 tokens unchanged.").format(
                             got=small_results[-1].text[:120] if small_results else pgettext("exercise 07", "nothing")))
    if after_big > EX07_HISTORY_TOKENS:
        return q.wrong(_("after reading orders/march.csv the history is {tokens:,} tokens (exact counter), over "
                         "{limit}: the large result was not replaced by a short pointer.").format(
                             tokens=after_big, limit=EX07_HISTORY_TOKENS))
    full = "\n".join(order_lines(ORDER_COUNT))
    reads = [m for m in back if isinstance(m, ToolMessage) and m.name == "read_result"]
    if not reads:
        return q.wrong(_("asked to read that result back, the agent called no read_result: your pointer must state "
                         "the id it was stored as, e.g. \"stored as id res-1\"."))
    if reads[-1].text.startswith("[offloaded"):
        return q.wrong(_("read_result's own result was offloaded again, so the model got a second pointer instead "
                         "of the file: leave read_result's results alone (request.tool_call[\"name\"])."))
    if reads[-1].text != full:
        return q.wrong(_("read_result returned {got!r}, not the whole file: store {{\"content\": result.text}} under "
                         "(\"offloaded\", thread_id_of(request.runtime)) and the id your pointer names.").format(
                             got=reads[-1].text[:120]))
    if "refunded" not in back[-1].text:
        return q.wrong(_("after reading back, the answer was {answer!r}, not order 1427's status (refunded).").format(
            answer=back[-1].text[:160]))
    from course_utils.window.tokens import count_text_tokens

    return q.correct(_("small results pass unchanged, the {tokens:,}-token file left only {after} tokens in the "
                       "history, and reading it back gave the whole file and the right answer (refunded).").format(
                           tokens=count_text_tokens(full), after=after_big))


# --- question 3: which move fits ---------------------------------------------------------------

SAVE = Term("save", predicate=True,
            en=("save", "store", "write", "written", "persist", "put ", "keep", "kept", "remember"),
            fa=("ذخیره", "نگه", "بنویس", "نوشته", "به خاطر"),
            zh=("保存", "存储", "存入", "写入", "记住", "存"))
FACTS = Term("facts",
             en=("fact", "memor", "profile", "plan", "language", "preference", "detail", "what they told",
                 "what the user said", "user's"),
             fa=("واقعیت", "حافظه", "اطلاعات", "زبان", "طرح", "ترجیح"),
             zh=("事实", "记忆", "信息", "语言", "套餐", "偏好", "资料"))
SMALL = Term("small", predicate=True, opposite="grow",
             en=("small", "short", "few", "only", "fewer", "less", "flat", "cheap", "instead of", "not the whole",
                 "not the entire", "stays the same", "constant"),
             fa=("کوچک", "کوتاه", "فقط", "کمتر", "ثابت", "به جای"),
             zh=("小", "短", "只", "少", "不变", "而不是", "代替"))
GROW = Term("grow", predicate=True, opposite="small",
            en=("grow", "larger", "bigger", "more and more", "whole history", "entire history", "every message"),
            fa=("بزرگ‌تر", "رشد", "بیشتر می", "کل تاریخچه"),
            zh=("增长", "越来越", "变大", "整个历史", "全部历史"))
CALL = Term("call",
            en=("call", "prompt", "window", "context", "token", "sent", "request", "each turn", "every turn"),
            fa=("فراخوان", "پنجره", "زمینه", "توکن", "ارسال"),
            zh=("调用", "窗口", "上下文", "令牌", "发送", "每轮"))

EX07_Q3 = Claim(
    "07 q3",
    relations=(
        Relation("saved", ((SAVE, FACTS),), {
            "en": "say what is written outside the window, and why a new thread can still use it",
            "fa": "بگویید چه چیزی بیرون از پنجره نوشته می‌شود و چرا یک رشته جدید هنوز می‌تواند از آن استفاده کند",
            "zh": "说明什么被写到窗口之外，以及为什么新的线程仍然能用到它",
        }),
        Relation("small", ((SMALL, CALL),), {
            "en": "say what each call is sent, and how big that is",
            "fa": "بگویید هر فراخوان چه چیزی دریافت می‌کند و چقدر بزرگ است",
            "zh": "说明每次调用发送了什么，以及它有多大",
        }),
    ),
    reversed=(
        Reversal(((GROW, CALL),), {"en": "that each call is sent more and more",
                                   "fa": "که هر فراخوان بزرگ‌تر و بزرگ‌تر می‌شود",
                                   "zh": "每次调用发送的内容越来越多"}),
    ),
)

choice_question(
    ex07,
    "choose a move for a returning user",
    "q3.check(choice, why)",
    hints=(
        "Where does a fact go so that a conversation started weeks later can find it?",
        "Compare what each call is sent in each option: the whole past, or a few saved facts.",
    ),
    options={
        "a": "One thread per user for ever, with a checkpointer, so the history holds everything they ever said.",
        "b": "Save the user's facts (plan, language) with a memory tool in a Store namespace (\"memories\", user_id), "
             "and recall them in each new thread.",
        "c": "Offload each finished conversation to a file and leave a pointer in the system prompt.",
        "d": "Trim every thread to its last 10 messages with trim_messages.",
    },
    answer="b",
    feedback={
        "a": "the user is remembered, but every call is sent everything they ever said: the calls grow without end "
             "until the window is full, and old turns cost tokens on every call.",
        "c": "a pointer to a whole conversation must be read back in full to find one fact: the read-back costs "
             "the whole conversation's tokens, and a new thread does not know which file holds the plan.",
        "d": "a trim forgets: the plan and language, said weeks ago in another thread, are not in this thread at all.",
    },
    praise="the facts are written once to the user's namespace, any new thread recalls them, and each call is "
           "sent a few facts, not the whole past.",
    claim=EX07_Q3,
)

# --- question 4: does a sub-agent pay? (lesson 07b; the check lives in subagent_decision) -------

ex07.question(Q4_TITLE, Q4_USAGE, hints=Q4_HINTS)(check_subagent_decision)
