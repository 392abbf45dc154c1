"""Choosing trimming thresholds (lesson 05): the ceiling, suggestions by task, an experiment.

Three tools, from rule of thumb to measurement:

1. The history ceiling, **H_max = L - S - U - R - M** (``budget.history_budget``
   with a margin), and :func:`suggest_thresholds`, which fills S, U, R and M
   with typical values for a task ("chat", "agent", "retrieval") so you can
   start from your model's limit L:

   >>> suggestion = suggest_thresholds(8192, "chat")
   >>> suggestion.h_max, suggestion.trim_max_tokens
   (5782, 6582)

2. :data:`MODEL_LIMITS`, the context windows of a few models from the data
   file ``models.json`` (``models.py``: each row dated and sourced; limits change).

3. :func:`run_experiment`, which replays a long scripted conversation through
   three strategies, "none" (send everything), "trim" (``trim_messages`` to
   the threshold) and "summarise" (summarise when over the threshold, as the
   LangGraph how-to does, then trim what is still too long), for each
   threshold; it measures the tokens sent and asks fact questions at the end
   to count what the model still remembers. Lesson 05 itself now compares
   five strategies by recall and by what a provider bills, with
   ``retention.compare_strategies`` and ``costs.bill``; this replay stays as
   the simpler, token-only version.

Computing only: :func:`limits_rows` and :func:`run_experiment` return rows;
the pictures of them live with the other pictures, ``render.limits_table``,
``render.experiment_table`` and ``plots.experiment_figure``. This module
never imports a presentation module.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage, trim_messages

from course_utils._args import check_instance, check_int
from course_utils.budget import BudgetWorking, budget_working
from course_utils.chat import OfflineChatModel
from course_utils.models import MODELS, MODELS_NOTE
from course_utils.graphs import CREATE_SUMMARY_PROMPT, EXTEND_SUMMARY_PROMPT, SUMMARY_PREFIX
from course_utils.samples import Conversation, load_sample
from course_utils.sequences import safe_trim_kwargs, valid_tail
from course_utils.tokens import check_messages, resolve_token_counter

# --- model limits -------------------------------------------------------------------


@dataclass(frozen=True)
class ModelLimit:
    """A model's context window (input and output together), as its provider documents it."""

    model: str
    provider: str
    context_window: int
    kind: str  #: "hosted" (an API) or "open weights" (you can run it yourself)


#: Context windows of a few models, from the data file ``models.json`` (see
#: ``models.py``: every row dated and sourced; limits change).
MODEL_LIMITS = tuple(ModelLimit(m.model, m.provider, m.context_window, m.kind) for m in MODELS)
LIMITS_NOTE = MODELS_NOTE


def model_limit(model: str) -> int:
    """The context window of a model in :data:`MODEL_LIMITS`, by name (case-insensitive).

    >>> model_limit("gpt-4 (original)")
    8192
    """
    if not isinstance(model, str):
        raise TypeError(f"model must be a str, got {type(model).__name__}: {model!r:.80}")
    for entry in MODEL_LIMITS:
        if entry.model.lower() == model.strip().lower():
            return entry.context_window
    raise ValueError(f"model must be one of {[m.model for m in MODEL_LIMITS]}, got {model!r}")


# --- suggestions by task -------------------------------------------------------------


@dataclass(frozen=True)
class TaskProfile:
    """Typical sizes of the fixed parts of a call for one kind of task (starting points, not laws)."""

    task: str
    description: str
    system: int  #: S: system prompt (and, for agents, the tools' JSON schemas)
    user: int  #: U: the new input (and, for retrieval, the retrieved documents)
    reserve: int  #: R: room kept for the reply
    margin_share: float  #: M as a share of L: room for counting error
    advice: str


TASK_PROFILES = {
    "chat": TaskProfile(
        "chat",
        "a friendly assistant with a long conversation",
        system=500,
        user=300,
        reserve=1200,
        margin_share=0.05,
        advice=(
            "Facts said early (a name, preferences) matter later: summarise rather than only trim, "
            "or keep them in the system prompt."
        ),
    ),
    "agent": TaskProfile(
        "agent",
        "a tool-using agent",
        system=2000,
        user=300,
        reserve=1000,
        margin_share=0.05,
        advice=(
            "Tool schemas are sent on every call, so they are part of S. Tool results come back as "
            "ToolMessages and live in the history: leave room for several, and trim with "
            "start_on='human' so a ToolMessage never loses the AIMessage that called it."
        ),
    ),
    "retrieval": TaskProfile(
        "retrieval",
        "question answering over retrieved documents",
        system=500,
        user=4000,
        reserve=1000,
        margin_share=0.05,
        advice=(
            "The retrieved passages are new input on every call, so they are part of U. The documents "
            "carry the facts, so the history can be short."
        ),
    ),
}
TASKS = tuple(TASK_PROFILES)


@dataclass(frozen=True)
class ThresholdSuggestion:
    """A worked-out threshold for one model limit and task."""

    task: str
    limit: int
    system: int
    user: int
    reserve: int
    margin: int
    working: BudgetWorking  #: the subtraction, step by step (``print(suggestion.working)``)
    advice: str

    @property
    def h_max(self) -> int:
        """The history ceiling H_max = L - S - U - R - M."""
        return self.working.budget

    @property
    def trim_max_tokens(self) -> int:
        """``max_tokens`` for a ``trim_messages`` call whose list also holds the system
        prompt and the new input (as in lesson 04's graph): H_max + S + U = L - R - M."""
        return self.h_max + self.system + self.user

    def trim_kwargs(self, token_counter: Any = "approximate") -> dict[str, Any]:
        """Arguments for ``trim_messages`` over [system, history..., new input] (see ``safe_trim_kwargs``)."""
        return safe_trim_kwargs(self.trim_max_tokens, token_counter)

    def __str__(self) -> str:
        return f"{self.task} on a {self.limit}-token model:\n{self.working}"


def suggest_thresholds(
    limit: int,
    task: str,
    *,
    system: int | None = None,
    user: int | None = None,
    reserve: int | None = None,
    margin: int | None = None,
) -> ThresholdSuggestion:
    """H_max for a model limit and a task, with the task's typical S, U, R and M.

    Any part you have measured yourself replaces the typical value. The margin
    defaults to the task's share of L (5%), rounded up.

    >>> print(suggest_thresholds(8192, "chat", margin=300).working)
    H_max = L - S - U - R - M
    8192 - 500 = 7692
    7692 - 300 = 7392
    7392 - 1200 = 6192
    6192 - 300 = 5892
    H_max = 5892

    Raises ValueError naming the task when the parts leave no room for history.
    """
    limit = check_int(limit, "limit", minimum=1)
    if not isinstance(task, str) or task not in TASK_PROFILES:
        raise ValueError(f"task must be one of {list(TASKS)}, got {task!r}")
    profile = TASK_PROFILES[task]
    parts = {
        "system": profile.system if system is None else check_int(system, "system"),
        "user": profile.user if user is None else check_int(user, "user"),
        "reserve": profile.reserve if reserve is None else check_int(reserve, "reserve"),
        "margin": math.ceil(profile.margin_share * limit) if margin is None else check_int(margin, "margin"),
    }
    try:
        working = budget_working(limit, **parts)
    except ValueError as exc:
        raise ValueError(f"limit {limit} is too small for the {task!r} task: {exc}") from None
    return ThresholdSuggestion(task, limit, **parts, working=working, advice=profile.advice)


@dataclass(frozen=True)
class LimitsRow:
    """One model of :data:`MODEL_LIMITS` and its history ceiling H_max for each task."""

    model: str
    provider: str
    context_window: int
    h_max: dict[str, int | None]  #: task -> H_max, None when the task's parts leave no room

    def to_row(self) -> dict[str, Any]:
        """A plain dict, for a table."""
        return {"model": self.model, "provider": self.provider, "context_window": self.context_window,
                **{f"h_max {task}": value for task, value in self.h_max.items()}}


def limits_rows(tasks: Sequence[str] | None = None) -> list[LimitsRow]:
    """For every model of :data:`MODEL_LIMITS`, H_max of each task (default: every task), in that order.

    ``render.limits_table`` prints these rows.

    >>> row = limits_rows(["chat"])[0]
    >>> row.h_max["chat"] == suggest_thresholds(row.context_window, "chat").h_max
    True
    """
    if tasks is None:
        tasks = TASKS
    if isinstance(tasks, str) or not isinstance(tasks, Sequence) or not tasks:
        raise TypeError(f"tasks must be a non-empty list of task names, got {tasks!r:.80}")
    for task in tasks:
        if task not in TASK_PROFILES:
            raise ValueError(f"tasks must name tasks of {list(TASKS)}, got {task!r}")
    rows = []
    for entry in MODEL_LIMITS:
        h_max: dict[str, int | None] = {}
        for task in tasks:
            try:
                h_max[task] = suggest_thresholds(entry.context_window, task).h_max
            except ValueError:  # the task's S + U + R + M do not fit in this window
                h_max[task] = None
        rows.append(LimitsRow(entry.model, entry.provider, entry.context_window, h_max))
    return rows


# --- the experiment --------------------------------------------------------------------

#: The strategies :func:`run_experiment` compares: send everything, trim, summarise.
EXPERIMENT_STRATEGIES = ("none", "trim", "summarise")


@dataclass(frozen=True)
class FactQuestion:
    """A question about a fact stated in the conversation, and the word a right answer contains."""

    fact: str
    question: str
    expected: str


#: How to ask about each kind of fact a sample conversation lists.
QUESTIONS_BY_FACT = {
    "name": "What's my name?",
    "city": "Where do I live?",
    "pet": "What is my cat called?",
    "favourite food": "What is my favourite food?",
    "job": "What do I do for work?",
}


def fact_questions(conversation: Conversation | str = "long_chat") -> tuple[FactQuestion, ...]:
    """One question per fact a sample lists ("name" -> "What's my name?", expecting "Sara")."""
    if isinstance(conversation, str):
        conversation = load_sample(conversation)
    if not isinstance(conversation, Conversation):
        raise TypeError(f"conversation must be a sample name or a Conversation, got {type(conversation).__name__}")
    questions = []
    for fact in conversation.facts:
        if fact["fact"] not in QUESTIONS_BY_FACT:
            raise ValueError(f"no question is known for the fact {fact['fact']!r}; pass questions=... yourself")
        questions.append(FactQuestion(fact["fact"], QUESTIONS_BY_FACT[fact["fact"]], fact["value"]))
    return tuple(questions)


@dataclass(frozen=True)
class Answer:
    """One fact question asked at the end of a replay, and whether the reply was right."""

    fact: str
    question: str
    expected: str
    reply: str

    @property
    def correct(self) -> bool:
        return self.expected.lower() in self.reply.lower()


@dataclass(frozen=True)
class ExperimentRow:
    """One strategy at one threshold: what the replay cost and what the model still knew."""

    strategy: str
    threshold: int  #: the most tokens a call may send (trim_messages' max_tokens)
    calls: int  #: model calls that answered the conversation's turns
    summary_calls: int  #: extra calls that wrote or extended a summary
    total_sent_tokens: int  #: input tokens of every call, summary calls included
    summary_sent_tokens: int  #: the part of total_sent_tokens sent to write summaries
    max_sent_tokens: int  #: the largest call that answered a turn
    calls_over_threshold: int  #: calls answering a turn that sent more than the threshold
    answers: tuple[Answer, ...] = field(repr=False)

    @property
    def facts_remembered(self) -> int:
        return sum(answer.correct for answer in self.answers)

    @property
    def facts_asked(self) -> int:
        return len(self.answers)

    @property
    def forgotten(self) -> list[str]:
        """The facts whose question the model could not answer."""
        return [answer.fact for answer in self.answers if not answer.correct]


def _turns(messages: list[BaseMessage]) -> tuple[SystemMessage | None, list[tuple[HumanMessage, list[BaseMessage]]]]:
    """Split a conversation into its system prompt and turns: (human message, the scripted replies after it)."""
    system = messages[0] if messages and isinstance(messages[0], SystemMessage) else None
    rest = messages[1:] if system is not None else messages
    turns: list[tuple[HumanMessage, list[BaseMessage]]] = []
    for message in rest:
        if isinstance(message, HumanMessage):
            turns.append((message, []))
        elif not turns:
            raise ValueError(
                f"conversation must start with a human message (after an optional system prompt), "
                f"got a {message.type} message first"
            )
        else:
            turns[-1][1].append(message)
    if not turns:
        raise ValueError("conversation has no human message, so there is no turn to replay")
    return system, turns


class _Replay:
    """One strategy at one threshold: the state it keeps and what it sends."""

    def __init__(self, strategy, threshold, system, model, counter, keep_last):
        self.strategy, self.threshold, self.system = strategy, threshold, system
        self.model, self.counter, self.keep_last = model, counter, keep_last
        self.history: list[BaseMessage] = []  # what the strategy keeps (no system prompt)
        self.summary = ""
        self.sent_tokens: list[int] = []  # one entry per conversation call
        self.summary_tokens: list[int] = []

    def _head(self) -> list[BaseMessage]:
        """The system prompt, with the summary added to it when there is one (as the how-to prepends it)."""
        if not self.summary:
            return [self.system] if self.system is not None else []
        text = SUMMARY_PREFIX + self.summary
        if self.system is not None:
            text = f"{self.system.text}\n\n{text}"
        return [SystemMessage(text, id="summary")]

    def _trim(self, messages: list[BaseMessage]) -> list[BaseMessage]:
        return trim_messages(messages, **safe_trim_kwargs(self.threshold, self.counter))

    def _summarise(self) -> None:
        prompt = EXTEND_SUMMARY_PROMPT.format(summary=self.summary) if self.summary else CREATE_SUMMARY_PROMPT
        reply = self.model.invoke([*self.history, HumanMessage(prompt)])
        self.summary_tokens.append(reply.usage_metadata["input_tokens"])
        self.summary = reply.text
        # At least the last keep_last messages, never a tool result without its call.
        self.history = valid_tail(self.history, self.keep_last)

    def to_send(self, human: HumanMessage, where: str) -> list[BaseMessage]:
        """What this strategy sends with ``human`` as the new message (the state is not changed)."""
        messages = [*self._head(), *self.history, human]
        if self.strategy == "none":
            return messages
        sent = self._trim(messages)
        if not sent or not isinstance(sent[-1], HumanMessage) or sent[-1].content != human.content:
            raise ValueError(
                f"thresholds: {self.threshold} is too small for {where}: the system prompt and the new "
                f"message alone cost {self.counter([*self._head(), human])} tokens"
            )
        return sent

    def turn(self, number: int, human: HumanMessage, replies: list[BaseMessage]) -> None:
        if self.strategy == "summarise" and self.history:
            if self.counter([*self._head(), *self.history, human]) > self.threshold:
                self._summarise()
        reply = self.model.invoke(self.to_send(human, f"turn {number}"))
        self.sent_tokens.append(reply.usage_metadata["input_tokens"])
        # The script's replies, not the model's, join the history: every strategy
        # sees the same conversation and only what is sent differs.
        self.history += [human, *replies]

    def ask(self, question: FactQuestion) -> Answer:
        message = HumanMessage(question.question, id=f"question-{question.fact}")
        reply = self.model.invoke(self.to_send(message, f"the question {question.question!r}"))
        return Answer(question.fact, question.question, question.expected, reply.text)


def _check_thresholds(thresholds: Any) -> tuple[int, ...]:
    if isinstance(thresholds, (str, bytes)) or not isinstance(thresholds, Sequence) or not thresholds:
        raise TypeError(f"thresholds must be a non-empty list of token counts, got {thresholds!r:.80}")
    return tuple(check_int(t, f"thresholds[{i}]", minimum=1) for i, t in enumerate(thresholds))


def _check_strategies(strategies: Any) -> tuple[str, ...]:
    if isinstance(strategies, str) or not isinstance(strategies, Sequence) or not strategies:
        raise TypeError(f"strategies must be a non-empty list drawn from {EXPERIMENT_STRATEGIES}, got {strategies!r:.80}")
    for strategy in strategies:
        if strategy not in EXPERIMENT_STRATEGIES:
            raise ValueError(f"strategies must be drawn from {EXPERIMENT_STRATEGIES}, got {strategy!r}")
    if len(set(strategies)) != len(strategies):
        raise ValueError(f"strategies must not repeat a strategy, got {list(strategies)}")
    return tuple(strategies)


def _check_questions(questions: Any) -> tuple[FactQuestion, ...]:
    if isinstance(questions, (str, bytes)) or not isinstance(questions, Sequence) or not questions:
        raise TypeError(f"questions must be a non-empty list of FactQuestion, got {questions!r:.80}")
    checked = []
    for i, question in enumerate(questions):
        if isinstance(question, FactQuestion):
            checked.append(question)
        elif isinstance(question, Sequence) and len(question) == 2 and all(isinstance(q, str) for q in question):
            checked.append(FactQuestion(question[1], question[0], question[1]))  # (question, expected)
        else:
            raise TypeError(f"questions[{i}] must be a FactQuestion or a (question, expected) pair, got {question!r:.80}")
        if not checked[-1].question.strip() or not checked[-1].expected.strip():
            raise ValueError(f"questions[{i}] must have a non-empty question and expected answer, got {question!r:.80}")
    return tuple(checked)


def run_experiment(
    conversation: Sequence[BaseMessage] | Conversation | str = "long_chat",
    thresholds: Sequence[int] = (256, 512, 1024, 2048, 4096, 8192),
    strategies: Sequence[str] = EXPERIMENT_STRATEGIES,
    questions: Sequence[FactQuestion] | None = None,
    *,
    token_counter: Any = "exact",
    keep_last: int = 2,
    summary_questions: int | None = 3,
    context_window: int = 128_000,
) -> list[ExperimentRow]:
    """Replay a scripted conversation through each strategy at each threshold.

    For every human turn the :class:`~course_utils.chat.OfflineChatModel` is
    called with what the strategy sends, and its ``usage_metadata`` input
    tokens are added up; the script's own replies then join the history, so
    every strategy replays the same conversation. At the end each fact
    question is asked with what the strategy would send (without adding it to
    the history), and a reply that contains the expected word counts as
    remembered.

    - ``"none"``: the whole history is sent (the threshold is only compared).
    - ``"trim"``: ``trim_messages(max_tokens=threshold, strategy="last",
      start_on="human", include_system=True)``.
    - ``"summarise"``: when the next call would be over the threshold, the
      model writes (or extends) a summary with the how-to's prompts, all but
      the last ``keep_last`` messages are removed, and the summary is added to
      the system prompt; what is still over is trimmed as above.

    ``conversation`` is a sample name, a ``Conversation`` or a list of
    messages; ``questions`` defaults to :func:`fact_questions` of a sample.
    ``summary_questions`` caps the user questions a summary repeats (see
    ``OfflineChatModel``). One row per (strategy, threshold), strategies first.
    """
    if isinstance(conversation, str):
        conversation = load_sample(conversation)
    if isinstance(conversation, Conversation):
        if questions is None:
            questions = fact_questions(conversation)
        conversation = conversation.messages
    messages = check_messages(conversation, "conversation")
    if questions is None:
        raise ValueError("questions must be given when conversation is a list of messages (it lists no facts)")
    questions = _check_questions(questions)
    thresholds = _check_thresholds(thresholds)
    strategies = _check_strategies(strategies)
    keep_last = check_int(keep_last, "keep_last")
    context_window = check_int(context_window, "context_window", minimum=1)
    if summary_questions is not None:
        summary_questions = check_int(summary_questions, "summary_questions")
    counter = resolve_token_counter(token_counter)
    system, turns = _turns(messages)

    rows = []
    for strategy in strategies:
        for threshold in thresholds:
            model = OfflineChatModel(
                context_window=context_window, token_counter=counter, summary_questions=summary_questions
            )
            replay = _Replay(strategy, threshold, system, model, counter, keep_last)
            for number, (human, replies) in enumerate(turns, start=1):
                replay.turn(number, human, replies)
            answers = tuple(replay.ask(question) for question in questions)
            rows.append(
                ExperimentRow(
                    strategy=strategy,
                    threshold=threshold,
                    calls=len(replay.sent_tokens),
                    summary_calls=len(replay.summary_tokens),
                    total_sent_tokens=sum(replay.sent_tokens) + sum(replay.summary_tokens),
                    summary_sent_tokens=sum(replay.summary_tokens),
                    max_sent_tokens=max(replay.sent_tokens),
                    calls_over_threshold=sum(tokens > threshold for tokens in replay.sent_tokens),
                    answers=answers,
                )
            )
    return rows


# --- checking results for the pictures -------------------------------------------------------


def check_experiment_rows(rows: Any) -> list[ExperimentRow]:
    """``rows`` as a list, if it is a non-empty list of :class:`ExperimentRow` (from run_experiment)."""
    if isinstance(rows, (str, bytes)) or not isinstance(rows, Sequence) or not rows:
        raise TypeError(f"rows must be a non-empty list of ExperimentRow (from run_experiment), got {rows!r:.80}")
    for i, row in enumerate(rows):
        check_instance(row, f"rows[{i}]", ExperimentRow, "run_experiment")
    return list(rows)



__all__ = [
    "LIMITS_NOTE",
    "MODEL_LIMITS",
    "QUESTIONS_BY_FACT",
    "EXPERIMENT_STRATEGIES",
    "TASKS",
    "TASK_PROFILES",
    "Answer",
    "ExperimentRow",
    "FactQuestion",
    "LimitsRow",
    "ModelLimit",
    "TaskProfile",
    "ThresholdSuggestion",
    "check_experiment_rows",
    "fact_questions",
    "limits_rows",
    "model_limit",
    "run_experiment",
    "suggest_thresholds",
]
