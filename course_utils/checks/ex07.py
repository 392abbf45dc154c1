"""Exercise 07: beyond one window (``exercises/07_..._exercise.ipynb``, after lessons 07 and 07b).

The notebook binds its questions with ``from course_utils.checks import ex07``.
Every question is data (:mod:`course_utils.checks.questions`): the checks run
LangChain's real ``create_agent`` with the offline model, a real LangGraph
``InMemoryStore`` and the learner's tool or middleware, on cases made at check
time: random users and thread ids, tool results just under, just over and far
over the stated 1,000 tokens, two seeds each. Question 4 (lesson 07b: from
which request does a sub-agent pay, in money) lives in
:mod:`course_utils.checks.subagent_decision`.
"""

from __future__ import annotations

import random
import re
import warnings

from langchain_core.messages import HumanMessage, ToolMessage

from course_utils.checks.machinery import Exercise, describe
from course_utils.checks.questions import Case, ChoiceQuestion, CodeQuestion, Kind, Mistake, Rule, Statement, Statements
from course_utils.checks.subagent_decision import PAYS_FROM
from course_utils.core.i18n import _

ex07 = Exercise("07", "Beyond one window", "07_beyond_one_window")

#: Question 1: facts a user tells, and the question that recalls each: (statement, question, the value to recall).
EX07_FACTS = (
    ("my favourite colour is green.", "What's my favourite colour?", "green"),
    ("I live in Porto.", "Where do I live?", "Porto"),
    ("my favourite tea is jasmine.", "What's my favourite tea?", "jasmine"),
    ("I'm allergic to peanuts.", "What am I allergic to?", "peanuts"),
    ("my dog is called Biscuit.", "What is my dog called?", "Biscuit"),
)
#: Question 2: the threshold the question states (exact tokens, ``count_text_tokens``).
EX07_THRESHOLD = 1000


def _ident(rng: random.Random, prefix: str) -> str:
    return f"{prefix}-{rng.randrange(1000, 10_000)}"


# --- question 1: a memory tool ------------------------------------------------------------------


def _memory_agent(save_tool, store):
    from langchain.agents import create_agent
    from langgraph.checkpoint.memory import InMemorySaver

    from course_utils.agentic.memory import UserContext, memory_tools
    from course_utils.model.chat import OfflineChatModel

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


def _q1_prepare(q, answers):
    from langchain_core.tools import BaseTool

    (save_fact,) = answers
    q.need(save_fact, "save_fact")
    if not isinstance(save_fact, BaseTool):
        q.stop(q.wrong(_("`save_fact` should be a tool: decorate your function with `@tool`, got {describe}.").format(
            describe=describe(save_fact))))
    func = getattr(save_fact, "func", None)
    if func is not None:
        q.need_function(func, "save_fact")
    return answers


def _q1_cases(rng: random.Random) -> list[Case]:
    facts = rng.sample(EX07_FACTS, 3)
    alice, bob = _ident(rng, "user"), _ident(rng, "user")
    while bob == alice:
        bob = _ident(rng, "user")
    threads = [_ident(rng, "thread") + f"-{n}" for n in range(4)]
    return [Case(_("user {user!r} told two facts in thread {thread!r}").format(user=alice, thread=threads[0]),
                 {"user": alice, "other": bob, "facts": facts[:2], "other_fact": facts[2], "threads": threads})]


def _q1_run(q, answers, case):
    """Tell user A's two facts and user B's one, each in a thread; then ask each in new threads."""
    from langgraph.store.memory import InMemoryStore

    (save_fact,) = answers
    store = InMemoryStore()
    agent = _memory_agent(save_fact, store)
    user, other, threads = case["user"], case["other"], case["threads"]
    told = []
    for statement, _question, _value in case["facts"]:
        told += q.call(_turn, agent, f"Remember that {statement}", threads[0], user,
                       about=_("the request 'Remember that {statement}'").format(statement=statement))
    statement = case["other_fact"][0]
    told += q.call(_turn, agent, f"Remember that {statement}", threads[1], other, about=_("another user's thread"))
    mine = store.search(("memories", user), limit=100)
    results = [m for m in told if isinstance(m, ToolMessage) and m.name == save_fact.name]
    if any("text" not in item.value for item in mine):  # recall_memory reads each item's "text": stop here
        return {"called": len(results), "results": results, "store": store, "recalled": None, "leaked": "",
                "mine": mine, "everything": store.search((), limit=1000)}
    recalled = {}
    for statement, question, value in case["facts"]:
        recalled[value] = q.call(_turn, agent, question, threads[2], user,
                                 about=_("a new thread asking {question!r}").format(question=question))[-1].text
    leaked = q.call(_turn, agent, case["facts"][0][1], threads[3], other, about=_("another user's thread"))[-1].text
    results = [m for m in told if isinstance(m, ToolMessage) and m.name == save_fact.name]
    return {"called": len(results), "results": results, "store": store, "recalled": recalled, "leaked": leaked,
            "mine": store.search(("memories", user), limit=100), "everything": store.search((), limit=1000)}


def _namespaces(obs) -> list:
    return sorted({tuple(item.namespace) for item in obs["everything"]})


_CONFIRMATION = re.compile(r"\w")


Q1 = CodeQuestion(
    "a memory-saving tool a new thread recalls from",
    ("save_fact",),
    hints=(
        "Decorate `save_fact(text: str, runtime: ToolRuntime[UserContext]) -> str` with `@tool`; its docstring "
        "says it saves a fact about the user to long-term memory (the model chooses tools by name and description).",
        "The namespace comes from the run, not from you: `(\"memories\", runtime.context.user_id)`. Give each fact "
        "a new key (count what the namespace already holds, or use `uuid.uuid4().hex`) and return a short "
        "confirmation such as `f\"Saved: {text}\"`.",
    ),
    prepare=_q1_prepare,
    cases=_q1_cases,
    run=_q1_run,
    rules=(
        Rule("called", lambda obs, case: obs["called"] >= 3,
             "asked to remember facts, the agent called your tool {count} times of 3: say in its name or docstring "
             "that it saves or remembers facts about the user.", lambda obs, case: {"count": obs["called"]}),
        Rule("no error", lambda obs, case: not any(m.status == "error" for m in obs["results"]),
             "your tool failed when the agent called it: {error}",
             lambda obs, case: {"error": next(m.text for m in obs["results"] if m.status == "error")[:200]}),
        Rule("confirms", lambda obs, case: all(_CONFIRMATION.search(m.text) and m.text.strip() not in ("None", "null")
                                               for m in obs["results"]),
             "your tool returned {got!r}: return a short confirmation (a sentence the model can pass on).",
             lambda obs, case: {"got": obs["results"][0].text[:80]}),
        Rule("user's namespace", lambda obs, case: len(obs["mine"]) >= 2,
             "{case}, but the namespace (\"memories\", {user!r}) holds {count} item(s); what was saved is in "
             "{where}.", lambda obs, case: {"user": case["user"], "count": len(obs["mine"]), "where": _namespaces(obs)}),
        Rule("text field", lambda obs, case: obs["recalled"] is not None,
             "{case}; your tool saved items {items}: save `{{\"text\": text}}`, the field recall_memory reads.",
             lambda obs, case: {"items": [i.value for i in obs["mine"]][:2]}),
        Rule("recalled", lambda obs, case: all(v.lower() in a.lower() for v, a in obs["recalled"].items()),
             "{case}; a new thread of the same user asked about them and was answered {answers}.",
             lambda obs, case: {"answers": [a[:80] for a in obs["recalled"].values()]}),
        Rule("private", lambda obs, case: case["facts"][0][2].lower() not in obs["leaked"].lower(),
             "another user asked {question!r} and was told {value!r}: one user's memories must stay in their own "
             "namespace.", lambda obs, case: {"question": case["facts"][0][1], "value": case["facts"][0][2]}),
    ),
    mistakes=(
        Mistake("a hard-coded user",
                "your tool saved under a namespace that is not this user's (\"memories\", runtime.context.user_id): "
                "take the user id from `runtime.context`, never type one.",
                lambda obs, case: any(ns[:1] == ("memories",) and ns != ("memories", case["user"])
                                      and ns != ("memories", case["other"]) for ns in _namespaces(obs))),
        Mistake("one key for every fact",
                "your tool saved both facts under the same key, so the second replaced the first: give each fact a "
                "new key.", lambda obs, case: len(obs["mine"]) == 1),
        Mistake("returns None",
                "your tool returns nothing (`None` or an empty text): return a short confirmation, e.g. `f\"Saved: {text}\"`.",
                lambda obs, case: any(m.text.strip() in ("", "None", "null") for m in obs["results"])),
    ),
    praise="your tool saved each user's facts under their own namespace, with a new key each and a confirmation; "
           "new threads recalled them, and another user's did not (random users and threads, two seeds).",
)
Q1.register(ex07)


# --- question 2: offloading middleware ----------------------------------------------------------


def _order_text(rng: random.Random, target: int, above: bool) -> tuple[str, int, int]:
    """Order lines of just under (``above=False``) or just over ``target`` exact tokens; a random refunded order."""
    from course_utils.agentic.offload import order_lines
    from course_utils.window.tokens import count_text_tokens

    start = rng.randrange(1001, 9000)
    refunded = start + rng.randrange(5, 30)
    lines = order_lines(60, start=start, refunded=refunded)
    count = 1
    while count_text_tokens("\n".join(lines[:count + 1])) <= target:
        count += 1
        if count + 1 >= len(lines):
            lines = order_lines(len(lines) * 2, start=start, refunded=refunded)
    text = "\n".join(lines[:count + 1] if above else lines[:count])
    return text, count_text_tokens(text), refunded


def _q2_prepare(q, answers):
    from langchain.agents.middleware import AgentMiddleware

    (offload_big,) = answers
    q.need(offload_big, "offload_big")
    if not isinstance(offload_big, AgentMiddleware) or "wrap_tool_call" not in type(offload_big).__dict__:
        q.stop(q.wrong(_("`offload_big` should be the middleware made by decorating your function with "
                         "`@wrap_tool_call`, got {describe}.").format(describe=describe(offload_big))))
    written = _wrapped_function(offload_big)
    if written is not None:
        q.need_function(written, "offload_big")
    return answers


def _wrapped_function(middleware):
    """The function ``@wrap_tool_call`` wrapped (held in its method's closure), or None."""
    import inspect

    method = type(middleware).__dict__.get("wrap_tool_call")
    for cell in getattr(method, "__closure__", None) or ():
        if inspect.isfunction(cell.cell_contents):
            return cell.cell_contents
    return None


def _q2_cases(rng: random.Random) -> list[Case]:
    from course_utils.agentic.offload import order_lines
    from course_utils.window.tokens import count_text_tokens

    cases = []
    for size, above in (("just under", False), ("just over", True)):
        text, tokens, refunded = _order_text(rng, EX07_THRESHOLD, above)
        cases.append(Case(_("a {tokens:,}-token result ({size} {limit})").format(
            tokens=tokens, size=_(size), limit=EX07_THRESHOLD),
            {"text": text, "tokens": tokens, "offload": above, "thread": _ident(rng, "thread"), "refunded": refunded,
             "path": f"orders/{_ident(rng, 'export')}.csv", "read_back": False}))
    start = rng.randrange(1001, 9000)
    refunded = start + rng.randrange(100, 700)
    text = "\n".join(order_lines(800, start=start, refunded=refunded))
    tokens = count_text_tokens(text)
    cases.append(Case(_("a {tokens:,}-token result (far over {limit})").format(tokens=tokens, limit=EX07_THRESHOLD),
                      {"text": text, "tokens": tokens, "offload": True, "thread": _ident(rng, "thread"),
                       "refunded": refunded, "path": f"orders/{_ident(rng, 'export')}.csv", "read_back": True}))
    return cases


def _invoke(q, agent, text, config, case):
    """One request to the agent; what the learner's middleware raises is said in the learner's words."""
    from course_utils.checks.machinery import learner_line

    try:
        return agent.invoke({"messages": [HumanMessage(text)]}, config)["messages"]
    except NotImplementedError:
        q.stop(q.wrong(_("{case}: your middleware returned nothing (`None`): return the tool's result, or its copy "
                         "with the pointer.").format(case=case.label)))
    except Exception as exc:  # noqa: BLE001 - the learner's middleware may raise anything
        q.stop(q.error(_("{case}: your middleware raised {error}: {exc}{line}.").format(
            case=case.label, error=type(exc).__name__, exc=str(exc)[:200], line=learner_line(exc))))


def _q2_run(q, answers, case):
    from langchain.agents import create_agent
    from langchain_core.tools import tool
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.store.memory import InMemoryStore

    from course_utils.agentic.offload import read_result
    from course_utils.model.chat import OfflineChatModel
    from course_utils.window.tokens import count_text_tokens

    (offload_big,) = answers

    @tool
    def read_file(path: str) -> str:
        """Read a file of the shop's records and return its text."""
        return case["text"] if path == case["path"] else f"No such file: {path}."

    store = InMemoryStore()
    agent = create_agent(OfflineChatModel(context_window=128_000), tools=[read_file, read_result],
                         middleware=[offload_big], store=store, checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": case["thread"]}}
    first = _invoke(q, agent, f"Read the file {case['path']}", config, case)
    sent = [m for m in first if isinstance(m, ToolMessage) and m.name == "read_file"]
    obs = {"sent": sent[-1].text if sent else None, "store": store.search(("offloaded", case["thread"]), limit=100),
           "everything": store.search((), limit=1000), "read": None, "answer": ""}
    obs["sent_tokens"] = count_text_tokens(obs["sent"]) if obs["sent"] is not None else 0
    if case["read_back"]:
        question = f"Read that result back: what is the status of order {case['refunded']}?"
        back = _invoke(q, agent, question, config, case)
        reads = [m for m in back if isinstance(m, ToolMessage) and m.name == "read_result"]
        obs["read"] = reads[-1].text if reads else None
        obs["answer"] = back[-1].text
    return obs


def _states_count(text: str, tokens: int) -> bool:
    return any(form in text for form in (f"{tokens:,}", str(tokens), f"{tokens:_}", f"{tokens:,}".replace(",", " ")))


def _pointer_ok(obs, case) -> bool:
    return not case["offload"] or (obs["sent"] is not None and obs["sent_tokens"] < 300
                                   and bool(re.search(r"\bres-\d+|\bid\b", obs["sent"])))


Q2 = CodeQuestion(
    "offload a large tool result and keep the answer correct",
    ("offload_big",),
    hints=(
        "In `offload_big(request, handler)`: `result = handler(request)`; if `count_text_tokens(result.text)` is "
        "over 1000 (tokens, not characters), put `{\"content\": result.text}` in `request.runtime.store` under "
        "(\"offloaded\", thread_id_of(request.runtime)) with a key such as \"res-1\".",
        "Return `result.model_copy(update={\"content\": pointer})` where the pointer is short and states the id and "
        "the token count (`pointer_text(result_id, tokens, result.text)` writes one); return results of 1000 tokens "
        "or fewer, and read_result's, unchanged.",
    ),
    prepare=_q2_prepare,
    cases=_q2_cases,
    run=_q2_run,
    rules=(
        Rule("small unchanged", lambda obs, case: case["offload"] or obs["sent"] == case["text"],
             "{case} reached the model changed ({got!r}...): results of 1000 tokens or fewer go through unchanged.",
             lambda obs, case: {"got": (obs["sent"] or "")[:80]}),
        Rule("large replaced", lambda obs, case: not case["offload"] or obs["sent"] != case["text"],
             "{case} reached the model whole: results over 1000 tokens go to the store, and the model gets a pointer."),
        Rule("stored", lambda obs, case: not case["offload"] or any(i.value.get("content") == case["text"]
                                                                    for i in obs["store"]),
             "{case}: the namespace (\"offloaded\", {thread!r}) holds no item whose \"content\" is the whole result "
             "(the store holds {where}).",
             lambda obs, case: {"thread": case["thread"],
                                "where": sorted({tuple(i.namespace) for i in obs["everything"]})}),
        Rule("pointer", _pointer_ok,
             "{case}: the model was sent {got!r} ({tokens} tokens): send a short pointer that states the id.",
             lambda obs, case: {"got": (obs["sent"] or "")[:120], "tokens": obs["sent_tokens"]}),
        Rule("pointer count", lambda obs, case: not case["offload"] or _states_count(obs["sent"] or "", case["tokens"]),
             "{case}: the pointer {got!r} does not state the result's size in tokens ({tokens:,}): the model "
             "decides whether to read it back from that.",
             lambda obs, case: {"got": (obs["sent"] or "")[:120], "tokens": case["tokens"]}),
        Rule("read back", lambda obs, case: not case["read_back"] or obs["read"] == case["text"],
             "{case}: asked to read it back, the agent got {got!r}: leave read_result's results unchanged, and "
             "store the whole text under the id your pointer states.",
             lambda obs, case: {"got": (obs["read"] or "")[:120]}),
        Rule("answer", lambda obs, case: not case["read_back"] or "refunded" in obs["answer"],
             "{case}: after reading it back the answer was {answer!r}, not the order's status (refunded).",
             lambda obs, case: {"answer": obs["answer"][:160]}),
    ),
    mistakes=(
        Mistake("counts characters", "a result under 1000 tokens was offloaded: offload only results over 1000 "
                "tokens, counted with `count_text_tokens(result.text)` (tokens, not characters).",
                lambda obs, case: not case["offload"] and obs["sent"] != case["text"] and len(case["text"]) > 1000),
        Mistake("the wrong threshold", "a result just over 1000 tokens was sent whole: the question's threshold is "
                "1000 tokens.", lambda obs, case: case["offload"] and obs["sent"] == case["text"]),
        Mistake("a hard-coded thread", "the result was stored under another thread's namespace: take the thread id "
                "from the run, `thread_id_of(request.runtime)`, never type one.",
                lambda obs, case: case["offload"] and not obs["store"] and any(
                    tuple(i.namespace)[:1] == ("offloaded",) for i in obs["everything"])),
        Mistake("read_result offloaded", "read_result's own result was offloaded again, so the model got a second "
                "pointer: leave read_result's results alone (`request.tool_call[\"name\"]`).",
                lambda obs, case: case["read_back"] and (obs["read"] or "").startswith("[offloaded")),
    ),
    praise="results just under 1000 tokens went through unchanged; just over and far over, they were stored under "
           "the run's thread and replaced by a pointer stating id and size; reading back gave the whole result and "
           "the right answer (random threads and sizes, two seeds).",
)
Q2.register(ex07)


# --- question 3: which move fits ----------------------------------------------------------------

ChoiceQuestion(
    "choose a move for a returning user",
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
    statements=Statements(
        (
            Statement("A Store namespace is shared by every thread of the same user, so a new thread can recall "
                      "facts saved in an earlier one.", Kind.JUSTIFIES),
            Statement("Each call is sent the few recalled facts, not every earlier turn, so calls stay small as "
                      "conversations pile up.", Kind.JUSTIFIES),
            Statement("A checkpointer's thread is shared by every thread of the same user, so a new thread can "
                      "recall what an earlier one held.", Kind.SWAPPED),
            Statement("Each call is sent every earlier turn, so the calls grow with every conversation.",
                      Kind.REVERSED),
            Statement("trim_messages keeps the newest messages, so the plan said weeks ago stays in the window.",
                      Kind.REVERSED),
            Statement("InMemoryStore keeps its items in the Python process.", Kind.IRRELEVANT),
            Statement("A user's plan can be free or pro.", Kind.IRRELEVANT),
        ),
        model_answer="The plan and language are saved once under the user's own namespace in the store, which every "
                     "thread of that user can search, so a new conversation recalls them; each call is then sent a "
                     "few short facts instead of every earlier turn, so it stays small however many conversations "
                     "came before.",
        rubric="Full marks: says where the facts live (a store namespace per user, outside any one thread) and why "
               "a new thread reaches them, and that each call is sent a few facts rather than the whole past. "
               "Half: one of the two. None: says the history or a trim keeps the facts.",
    ),
).register(ex07)

# --- question 4: does a sub-agent pay, in money? (lesson 07b; the check lives in subagent_decision) ---

PAYS_FROM.register(ex07)


def __getattr__(name: str):
    """The module answers its exercise's names (``ex07.q1``, ``ex07.questions``), as the package's ``ex07`` does."""
    return getattr(ex07, name)
