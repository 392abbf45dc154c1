"""Retention strategies side by side (lesson 05b): what each remembers, what each costs.

:func:`compare_strategies` replays one scripted conversation through several
ways of keeping the history under a threshold, and records for every model
call exactly what was sent (as :class:`~course_utils.window.costs.Call` records) and,
at the end, which facts the model can still answer. ``costs.bill`` then prices
the calls with or without prompt caching, at any model's prices.

The strategies (each sends at most ``threshold`` tokens per call):

- ``"trim"``: ``trim_messages(max_tokens=threshold, strategy="last",
  start_on="human", include_system=True)`` on every call, so the window slides
  by a turn or so on every call.
- ``"trim_chunked"``: trimming with a high and a low water mark. The kept
  history keeps the same first message until a call would pass the high mark
  (the threshold); then it is cut down to the low mark (``low_water`` of the
  threshold) in one go. Between cuts every call starts with the same messages,
  which a prompt cache can serve.
- ``"summarise"``: the LangGraph how-to's policy: when the next call would pass
  the threshold, the model writes (or extends) a summary, all but the last
  ``keep_last`` messages are removed, and the summary joins the system prompt.
  The request asks for a summary sized to the threshold ("Keep it to at most
  N words."), as an application with a token budget must: a smaller budget
  means a shorter summary, which keeps fewer facts.
- ``"summary_window"``: a summary plus a trimmed recent window: when over the
  threshold, only the messages that no longer fit a recent window of
  ``window`` of the threshold are summarised; the window stays verbatim.
- ``"pinned_facts"``: stable facts move to the system prompt. After each user
  message, the facts it states (name, city, pet, favourite food, job) are
  written into the system prompt, where trimming cannot reach them; the rest is
  trimmed as in "trim". Here a rule reads the facts for free; a real
  application pays for that step (an extraction call, or a tool the model calls).

Every strategy replays the same script: the assistant's scripted replies join
the history and are billed as the output of the turn's call, so strategies
differ only in what they send and in the summaries they ask for (billed as
output too). The offline model is called where its answer matters: to write
summaries, and to answer the fact questions at the end (probes, not billed).
The questions come from :func:`fact_questions` (one per fact a sample lists,
:class:`FactQuestion`); each reply is an :class:`Answer`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage, trim_messages

from course_utils.core.args import check_instance, check_int
from course_utils.model.chat import OfflineChatModel, get_chat_model
from course_utils.model.facts import read_facts, readable_text
from course_utils.window.costs import Bill, Call, Prices, pair_overhead, bill, call_record, message_key
from course_utils.agentic.graphs import CREATE_SUMMARY_PROMPT, EXTEND_SUMMARY_PROMPT, SUMMARY_PREFIX
from course_utils.core.i18n import _, pgettext
from course_utils.core.samples import Conversation, load_sample
from course_utils.window.tokens import TokenCounter, check_messages, resolve_token_counter
from course_utils.window.sequences import safe_trim_kwargs, valid_tail

#: The strategies :func:`compare_strategies` knows, in the order lessons show them.
STRATEGIES = ("trim", "trim_chunked", "summarise", "summary_window", "pinned_facts")
#: A short description of each strategy, for tables and figure legends.
STRATEGY_LABELS = {
    "trim": "trim (sliding window)",
    "trim_chunked": "trim in chunks (water marks)",
    "summarise": "summarise (how-to)",
    "summary_window": "summary + recent window",
    "pinned_facts": "facts in the system prompt",
}
#: Words a summary may take per token of the threshold: a summary sized to the budget it lives in
#: (1/64: 8 words at a 512-token threshold, 64 words at 4096). A real application picks its own share.
SUMMARY_WORDS_PER_TOKEN = 1 / 64
#: The heading under which pinned facts go into the system prompt.
PINNED_HEADING = "What the user has told you about themselves:"


# --- fact questions and turns: what every replay asks and walks through ----------------------


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


def _check_thresholds(thresholds: Any) -> tuple[int, ...]:
    if isinstance(thresholds, (str, bytes)) or not isinstance(thresholds, Sequence) or not thresholds:
        raise TypeError(f"thresholds must be a non-empty list of token counts, got {thresholds!r:.80}")
    return tuple(check_int(t, f"thresholds[{i}]", minimum=1) for i, t in enumerate(thresholds))


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


# --- what a call sends, as a Call record --------------------------------------------------------


def pinned_facts_text(texts: Sequence[str]) -> str:
    """The facts stated in ``texts`` as sentences, in a fixed order ("" when there are none).

    >>> pinned_facts_text(["I'm Sara.", "I live in Valencia, by the sea."])
    "The user's name is Sara. The user lives in Valencia."
    """
    facts = read_facts(list(texts))
    lines = []
    if facts.name:
        lines.append(f"The user's name is {facts.name}.")
    if facts.city:
        lines.append(f"The user lives in {facts.city}.")
    if facts.pet:
        lines.append(f"The user's {facts.pet[0]} is called {facts.pet[1]}.")
    if facts.food:
        lines.append(f"The user's favourite food is {facts.food}.")
    if facts.job:
        lines.append(f"The user works as a {facts.job}.")
    return " ".join(lines)


class _Replay:
    """One strategy at one threshold: the state it keeps, what it sends, and every call it made."""

    def __init__(self, strategy, threshold, system, model, counter, keep_last, window, low_water, summary_words):
        self.summary_words = summary_words
        self.strategy, self.threshold, self.system = strategy, threshold, system
        self.model, self.counter = model, counter
        self.keep_last, self.window, self.low_water = keep_last, window, low_water
        self.history: list[BaseMessage] = []
        self.summary = ""
        self.pinned = ""
        self.user_texts: list[str] = []
        self.chunk_start = 0  # trim_chunked: index in history where the kept part starts
        self.calls: list[Call] = []
        self.sent: list[tuple[BaseMessage, ...]] = []  # what each turn's call sent
        self.summaries = 0

    # -- what goes first: the system prompt, with the summary or the pinned facts
    def head(self) -> list[BaseMessage]:
        text = self.system.text if self.system is not None else ""
        extra = SUMMARY_PREFIX + self.summary if self.summary else (f"{PINNED_HEADING} {self.pinned}" if self.pinned else "")
        if extra:
            text = f"{text}\n\n{extra}" if text else extra
        return [SystemMessage(text, id="system")] if text else []

    def _trim(self, messages: list[BaseMessage], cap: int) -> list[BaseMessage]:
        return trim_messages(messages, **safe_trim_kwargs(cap, self.counter))

    def _fits(self, human: HumanMessage, history: list[BaseMessage]) -> bool:
        return self.counter([*self.head(), *history, human]) <= self.threshold

    def _chunk_cut(self, human: HumanMessage) -> int:
        """Where the kept history starts after cutting down to the low water mark."""
        low = max(1, int(self.threshold * self.low_water))
        kept = self._trim([*self.head(), *self.history, human], low)
        kept_ids = {id(m) for m in kept}
        for i, message in enumerate(self.history):
            if id(message) in kept_ids:
                return i
        return len(self.history)

    def _summarise(self, messages: list[BaseMessage]) -> None:
        prompt = EXTEND_SUMMARY_PROMPT.format(summary=self.summary) if self.summary else CREATE_SUMMARY_PROMPT
        if self.summary_words is not None:
            prompt += f" Keep it to at most {self.summary_words} words."
        request = [*messages, HumanMessage(prompt)]
        reply = self.model.invoke(request)
        usage = getattr(reply, "usage_metadata", None) or {}
        output = usage.get("output_tokens", self.counter([reply]) - pair_overhead(self.counter))
        self.calls.append(call_record("summary", request, max(0, output), self.counter))
        self.summary = reply.text
        self.summaries += 1

    def prepare(self, human: HumanMessage) -> None:
        """Change the kept state before a turn's call, as the strategy does when over the threshold."""
        if self.strategy == "pinned_facts":
            self.user_texts.append(readable_text(human))
            self.pinned = pinned_facts_text(self.user_texts)
        elif self.strategy == "trim_chunked":
            if not self._fits(human, self.history[self.chunk_start :]):
                self.chunk_start = self._chunk_cut(human)
        elif self.strategy == "summarise" and self.history and not self._fits(human, self.history):
            self._summarise(self.history)
            self.history = valid_tail(self.history, self.keep_last)
        elif self.strategy == "summary_window" and self.history and not self._fits(human, self.history):
            cap = max(1, int(self.threshold * self.window))
            recent = self._trim([*self.history, human], cap)[:-1]
            older = self.history[: len(self.history) - len(recent)]
            if older:
                self._summarise(older)
                self.history = self.history[len(older) :]

    def to_send(self, human: HumanMessage, where: str) -> list[BaseMessage]:
        """What this strategy sends with ``human`` last (the kept state is not changed)."""
        history = self.history[self.chunk_start :] if self.strategy == "trim_chunked" else self.history
        messages = [*self.head(), *history, human]
        if self.counter(messages) > self.threshold:
            messages = self._trim(messages, self.threshold)
        if not messages or messages[-1] is not human:
            raise ValueError(
                f"thresholds: {self.threshold} is too small for {where}: the system prompt and the new "
                f"message alone cost {self.counter([*self.head(), human])} tokens"
            )
        return messages

    def turn(self, number: int, human: HumanMessage, replies: list[BaseMessage]) -> None:
        self.prepare(human)
        sent = self.to_send(human, f"turn {number}")
        # The turn's reply comes from the script (the same for every strategy), so the
        # model is not asked for one; it is billed as this call's output.
        output = self.counter(replies) - pair_overhead(self.counter) if replies else 0
        self.calls.append(call_record("turn", sent, max(0, output), self.counter))
        self.sent.append(tuple(sent))
        self.history += [human, *replies]

    def ask(self, question: FactQuestion) -> Answer:
        message = HumanMessage(question.question, id=f"question-{question.fact}")
        sent = self.to_send(message, f"the question {question.question!r}")
        reply = self.model.invoke(sent)
        return Answer(question.fact, question.question, question.expected, reply.text)


@dataclass(frozen=True)
class StrategyRun:
    """One strategy at one threshold: every billed call, and the final answers."""

    strategy: str
    threshold: int
    calls: tuple[Call, ...] = field(repr=False)
    answers: tuple[Answer, ...] = field(repr=False)
    summaries: int  #: summary calls made
    sent: tuple[tuple[BaseMessage, ...], ...] = field(default=(), repr=False)  #: the messages each turn's call sent

    @property
    def facts_remembered(self) -> int:
        return sum(answer.correct for answer in self.answers)

    @property
    def facts_asked(self) -> int:
        return len(self.answers)

    @property
    def recall(self) -> float:
        """The share of fact questions answered right (0 to 1)."""
        return self.facts_remembered / self.facts_asked

    @property
    def forgotten(self) -> list[str]:
        return [answer.fact for answer in self.answers if not answer.correct]

    @property
    def input_tokens(self) -> int:
        return sum(call.input_tokens for call in self.calls)

    @property
    def output_tokens(self) -> int:
        return sum(call.output_tokens for call in self.calls)

    @property
    def max_input_tokens(self) -> int:
        return max(call.input_tokens for call in self.calls if call.kind == "turn")

    def bill(self, prices: Prices, *, caching: bool = True, min_cached_tokens: int = 0) -> Bill:
        """What the provider bills for this run's calls (see ``costs.bill``)."""
        return bill(self.calls, prices, caching=caching, min_cached_tokens=min_cached_tokens)


def _check_strategies(strategies: Any) -> tuple[str, ...]:
    if isinstance(strategies, str) or not isinstance(strategies, Sequence) or not strategies:
        raise TypeError(f"strategies must be a non-empty list drawn from {STRATEGIES}, got {strategies!r:.80}")
    for strategy in strategies:
        if strategy not in STRATEGIES:
            raise ValueError(f"strategies must be drawn from {STRATEGIES}, got {strategy!r}")
    if len(set(strategies)) != len(strategies):
        raise ValueError(f"strategies must not repeat a strategy, got {list(strategies)}")
    return tuple(strategies)


def _check_share(value: Any, parameter: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
        raise ValueError(f"{parameter} must be a number between 0 and 1 (a share of the threshold), got {value!r}")
    return float(value)


def compare_strategies(
    conversation: Sequence[BaseMessage] | Conversation | str = "spread_chat",
    thresholds: Sequence[int] = (512, 1024, 1536, 2048, 3072, 4096),
    strategies: Sequence[str] = STRATEGIES,
    questions: Sequence[FactQuestion] | None = None,
    *,
    token_counter: Any = "exact",
    keep_last: int = 2,
    window: float = 0.5,
    low_water: float = 0.5,
    summary_questions: int | None = 3,
    summary_words_per_token: float | None = SUMMARY_WORDS_PER_TOKEN,
    model: BaseChatModel | None = None,
) -> list[StrategyRun]:
    """Replay ``conversation`` through each strategy at each threshold; one run per pair, strategies first.

    ``token_counter`` counts what is sent (use your model's tokenizer: see
    ``models.counter_for_tokenizer``); ``keep_last`` is the how-to's "keep
    the last 2 messages"; ``window`` the share of the threshold the
    summary_window strategy keeps verbatim; ``low_water`` the share chunked
    trimming cuts down to; ``summary_words_per_token`` sizes the summary to
    the threshold: each summary request asks for at most ``threshold *
    summary_words_per_token`` words (None asks for no length, and the
    model's own default applies).

    ``model`` writes the summaries and answers the fact questions: any
    LangChain chat model (a ``BaseChatModel``). By default it is the course's
    model: ``chat.get_chat_model()``, a real provider's model when the
    environment variable ``COURSE_CHAT_MODEL`` names one (e.g.
    ``"anthropic:claude-haiku-5-5"``), otherwise a fresh ``OfflineChatModel``
    per run (keeping ``summary_questions`` of the user's questions in a
    summary). So the same call, and the same table, measure a real model.
    Token counts, and so the bill, always come from ``token_counter``.
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
    window = _check_share(window, "window")
    low_water = _check_share(low_water, "low_water")
    if summary_words_per_token is not None:
        summary_words_per_token = _check_share(summary_words_per_token, "summary_words_per_token")
    counter = resolve_token_counter(token_counter)
    system, turns = _turns(messages)
    model_for_run = _model_source(model, counter, summary_questions)

    runs = []
    for strategy in strategies:
        for threshold in thresholds:
            model = model_for_run()
            words = None if summary_words_per_token is None else max(1, int(threshold * summary_words_per_token))
            replay = _Replay(strategy, threshold, system, model, counter, keep_last, window, low_water, words)
            for number, (human, replies) in enumerate(turns, start=1):
                replay.turn(number, human, replies)
            answers = tuple(replay.ask(question) for question in questions)
            runs.append(StrategyRun(strategy, threshold, tuple(replay.calls), answers, replay.summaries, tuple(replay.sent)))
    return runs


def _model_source(model: Any, counter: TokenCounter, summary_questions: int | None):
    """A function giving the model for each run: ``model`` itself, the one ``COURSE_CHAT_MODEL`` names, or a fresh offline model."""
    if model is not None:
        check_instance(model, "model", BaseChatModel, "chat.get_chat_model")
        return lambda: model
    spec = os.environ.get("COURSE_CHAT_MODEL", "").strip()
    if spec and spec != "offline":
        real = get_chat_model(spec)
        return lambda: real
    return lambda: OfflineChatModel(context_window=10_000_000, token_counter=counter, summary_questions=summary_questions)


@dataclass(frozen=True)
class CostPoint:
    """One run priced: what a figure or table shows for it."""

    strategy: str
    threshold: int
    recall: float
    facts_remembered: int
    facts_asked: int
    cost: float  #: dollars for the whole conversation, with caching as asked
    cost_without_caching: float
    cached_share: float
    summaries: int
    input_tokens: int
    output_tokens: int


def price_runs(runs: Sequence[StrategyRun], prices: Prices, *, caching: bool = True, min_cached_tokens: int = 0) -> list[CostPoint]:
    """One :class:`CostPoint` per run, priced with and without caching."""
    if isinstance(runs, (str, bytes)) or not isinstance(runs, Sequence) or not runs:
        raise TypeError(f"runs must be a non-empty list of StrategyRun (from compare_strategies), got {runs!r:.80}")
    points = []
    for i, run in enumerate(runs):
        check_instance(run, f"runs[{i}]", StrategyRun, "compare_strategies")
        with_cache = run.bill(prices, caching=caching, min_cached_tokens=min_cached_tokens)
        without = run.bill(prices, caching=False)
        points.append(
            CostPoint(
                run.strategy, run.threshold, run.recall, run.facts_remembered, run.facts_asked,
                with_cache.cost, without.cost, with_cache.cached_share, run.summaries,
                run.input_tokens, run.output_tokens,
            )
        )
    return points


def cheap_and_good(points: Sequence[CostPoint]) -> list[CostPoint]:
    """The points no other point beats on both recall and cost (the cheap-and-good frontier), cheapest first."""
    points = list(points)
    frontier = [
        p for p in points
        if not any(q.recall >= p.recall and q.cost <= p.cost and (q.recall > p.recall or q.cost < p.cost) for q in points)
    ]
    return sorted(frontier, key=lambda p: (p.cost, -p.recall))


def best_point(points: Sequence[CostPoint]) -> CostPoint:
    """The cheapest point with the highest recall any point reaches."""
    points = list(points)
    if not points:
        raise ValueError("points must not be empty")
    top = max(p.recall for p in points)
    return min((p for p in points if p.recall == top), key=lambda p: p.cost)


__all__ = [
    "PINNED_HEADING",
    "QUESTIONS_BY_FACT",
    "STRATEGIES",
    "STRATEGY_LABELS",
    "Answer",
    "CostPoint",
    "FactQuestion",
    "StrategyRun",
    "best_point",
    "call_record",
    "cheap_and_good",
    "compare_strategies",
    "fact_questions",
    "message_key",
    "pinned_facts_text",
    "price_runs",
]


def describe_cost_recall(points: Sequence[CostPoint], points_without_caching: Sequence[CostPoint] | None = None) -> str:
    """The point of the recall-against-cost figure in words, computed from the same numbers (its text alternative)."""
    points = list(points)
    if not points:
        raise ValueError("points must not be empty")
    best = best_point(points)
    worst = max(points, key=lambda p: p.cost)
    asked = best.facts_asked
    label = lambda p: _(STRATEGY_LABELS[p.strategy])  # noqa: E731
    dollars = lambda cost: f"{cost * 1000:.2f}"  # noqa: E731
    lines = [
        _("Recall against cost, one point per strategy and threshold ({count} points, prompt caching on).").format(
            count=len(points)),
        _("The cheapest way to remember all {kept} of {asked} facts is {label} at {threshold} tokens: "
          "${cost} per 1,000 conversations.").format(kept=best.facts_remembered, asked=asked, label=label(best),
                                                     threshold=best.threshold, cost=dollars(best.cost)),
    ]
    low = [p for p in points if p.recall < 1]
    if low:
        forgetful = min(low, key=lambda p: p.recall)
        lines.append(_("The most forgetful is {label} at {threshold} tokens ({kept} of {asked} facts, ${cost}).").format(
            label=label(forgetful), threshold=forgetful.threshold, kept=forgetful.facts_remembered, asked=asked,
            cost=dollars(forgetful.cost)))
    lines.append(_("The most expensive is {label} at {threshold} tokens (${cost}).").format(
        label=label(worst), threshold=worst.threshold, cost=dollars(worst.cost)))
    if points_without_caching:
        plain = best_point(list(points_without_caching))
        lines.append(_("Without caching the cheapest full-recall point is {label} at {threshold} tokens (${cost}).").format(
            label=label(plain), threshold=plain.threshold, cost=dollars(plain.cost_without_caching)))
    return " ".join(lines)



def compare_pair(points: Sequence[CostPoint], first: str, second: str, threshold: int) -> str:
    """Two strategies at one threshold in one sentence: facts, extra tokens, and which costs more, with and without caching.

    The lesson prints this rather than typing the comparison into its prose,
    so the words ("costs more", "costs less") cannot drift from the numbers:
    which strategy is cheaper can flip when caching is switched on.
    """
    points = list(points)
    for name, value in (("first", first), ("second", second)):
        if value not in STRATEGIES:
            raise ValueError(f"{name} must be one of {', '.join(STRATEGIES)}, got {value!r}")
    a, b = _point(points, first, threshold), _point(points, second, threshold)

    def verdict(x: float, y: float) -> str:
        x, y = round(x * 1000, 2), round(y * 1000, 2)
        return pgettext("costs", "more") if x > y else pgettext("costs", "less") if x < y else pgettext("costs", "the same")

    def more_or_fewer(n: int, kind: str) -> str:
        if not n:
            return pgettext(kind, "as many")
        return (pgettext(kind, "{n} more") if n > 0 else pgettext(kind, "{n} fewer")).format(n=f"{abs(n):,}")

    dollars = lambda cost: f"{cost * 1000:.2f}"  # noqa: E731
    return _(
        "at {threshold} tokens {la} remembers {a_kept}/{a_asked} facts, {lb} {b_kept}/{b_asked}; "
        "{la} sends {inputs} input tokens and receives {outputs} output tokens ({summaries} summaries); "
        "without caching it costs {plain} (${a_plain} against ${b_plain}), with caching {cached} (${a_cost} against ${b_cost})"
    ).format(
        threshold=threshold, la=_(STRATEGY_LABELS[first]), lb=_(STRATEGY_LABELS[second]),
        a_kept=a.facts_remembered, a_asked=a.facts_asked, b_kept=b.facts_remembered, b_asked=b.facts_asked,
        inputs=more_or_fewer(a.input_tokens - b.input_tokens, "input tokens"),
        outputs=more_or_fewer(a.output_tokens - b.output_tokens, "output tokens"), summaries=a.summaries,
        plain=verdict(a.cost_without_caching, b.cost_without_caching),
        a_plain=dollars(a.cost_without_caching), b_plain=dollars(b.cost_without_caching),
        cached=verdict(a.cost, b.cost), a_cost=dollars(a.cost), b_cost=dollars(b.cost),
    )


def _point(points: Sequence[CostPoint], strategy: str, threshold: int) -> CostPoint:
    found = next((p for p in points if p.strategy == strategy and p.threshold == threshold), None)
    if found is None:
        raise ValueError(f"threshold {threshold!r} has no point for strategy {strategy!r} in points")
    return found


def compare_trims(points: Sequence[CostPoint], threshold: int) -> str:
    """Sliding and chunked trimming at one threshold: the share each reads from the cache, and its price.

    Lesson 05b prints it: "at 2048: sliding trim caches 25%, chunked trim 67%; with caching $153.01 and $77.34".
    """
    slid, chunked = _point(points, "trim", threshold), _point(points, "trim_chunked", threshold)
    return _("at {threshold}: sliding trim caches {slid}, chunked trim {chunked}; with caching ${a} and ${b}").format(
        threshold=threshold, slid=f"{slid.cached_share:.0%}", chunked=f"{chunked.cached_share:.0%}",
        a=f"{slid.cost * 1000:.2f}", b=f"{chunked.cost * 1000:.2f}")


def describe_best(name: str, points: Sequence[CostPoint]) -> str:
    """The cheapest point with the most facts (:func:`best_point`) for the model called ``name``, in one line."""
    best = best_point(points)
    return _("cheapest with the most facts, {name}: {label} at {threshold} (${cost})").format(
        name=name, label=_(STRATEGY_LABELS[best.strategy]), threshold=best.threshold, cost=f"{best.cost * 1000:.2f}")


__all__ += ["compare_pair", "compare_trims", "describe_best", "describe_cost_recall"]


def fact_turns(conversation: Conversation | str = "spread_chat") -> dict[str, list[int]]:
    """For each fact a sample lists, the turns (1 = the first) whose user message states its value.

    >>> fact_turns("spread_chat")["name"]
    [1, 24]
    """
    if isinstance(conversation, str):
        conversation = load_sample(conversation)
    check_instance(conversation, "conversation", Conversation, "samples.load_sample")
    _, turns = _turns(conversation.messages)
    return {
        fact["fact"]: [n for n, (human, _) in enumerate(turns, start=1) if fact["value"].lower() in readable_text(human).lower()]
        for fact in conversation.facts
    }


__all__ += ["fact_turns"]


@dataclass(frozen=True)
class CacheReach:
    """How a replay's calls compare with a model's minimum cacheable prefix (``Prices.min_cached_tokens``)."""

    min_cached_tokens: int
    calls: int  #: every billed call of the runs
    reaching: int  #: calls at least as long as the minimum (only these can be written to the cache)
    largest: int  #: the longest call's input tokens

    def __str__(self) -> str:
        if not self.min_cached_tokens:
            return _("no minimum: every call can be cached (the longest sends {largest} tokens)").format(
                largest=f"{self.largest:,}")
        return _("{reaching} of {calls} calls reach the {minimum}-token minimum (the longest sends {largest} tokens)").format(
            reaching=f"{self.reaching:,}", calls=f"{self.calls:,}", minimum=f"{self.min_cached_tokens:,}",
            largest=f"{self.largest:,}")


def cache_reach(runs: Sequence[StrategyRun], prices: Prices) -> CacheReach:
    """How many of the runs' calls are long enough for ``prices``' caching minimum to let them be cached.

    Below the minimum a provider neither reads nor writes the cache, so a
    replay whose calls all stay below it gets no caching at all.
    """
    check_instance(prices, "prices", Prices)
    if isinstance(runs, (str, bytes)) or not isinstance(runs, Sequence) or not runs:
        raise TypeError(f"runs must be a non-empty list of StrategyRun (from compare_strategies), got {runs!r:.80}")
    calls = [c for i, run in enumerate(runs) for c in check_instance(run, f"runs[{i}]", StrategyRun).calls]
    minimum = prices.min_cached_tokens
    return CacheReach(minimum, len(calls), sum(c.input_tokens >= max(minimum, 1) for c in calls),
                      max(c.input_tokens for c in calls))


def cache_use(minimum: int, details: Sequence[dict]) -> str:
    """What replies read from and wrote to the cache (each reply's ``usage_metadata["input_token_details"]``), one line.

    >>> cache_use(1024, [{"cache_read": 0, "cache_creation": 2840}, {"cache_read": 2840, "cache_creation": 148}])
    'minimum 1,024: read 0/wrote 2,840; read 2,840/wrote 148'
    """
    uses = pgettext("cache use", "; ").join(
        _("read {read}/wrote {wrote}").format(read=f"{d['cache_read']:,}", wrote=f"{d['cache_creation']:,}") for d in details)
    return _("minimum {minimum}: {uses}").format(minimum=f"{minimum:,}", uses=uses)


def rerun_requests(runs: Sequence[StrategyRun]) -> str:
    """What rerunning lesson 05b's replay (its section 2) on a real model asks of it: summary calls and fact questions."""
    return _("a rerun of section 2's replay: {summaries} summary calls and {questions} questions").format(
        summaries=sum(run.summaries for run in runs), questions=sum(run.facts_asked for run in runs))


__all__ += ["CacheReach", "cache_reach", "cache_use", "rerun_requests"]
