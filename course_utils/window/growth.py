"""Measuring history growth (lesson 01): replay a conversation call by call.

A chat model is called once for every AIMessage in a conversation, and each
call is sent everything before that message (or, with a trimming policy,
what the policy keeps of it). Replaying a stored conversation that way
shows four numbers per call: messages in the history, history tokens, tokens
sent, and cumulative tokens sent. Without trimming the tokens sent per call
grow with the history, so the cumulative total grows quadratically; with a
trim the per-call cost stays under the cap and the total grows linearly.

>>> from langchain_core.messages import AIMessage, HumanMessage
>>> chat = [HumanMessage("hi"), AIMessage("hello"), HumanMessage("how are you?"), AIMessage("fine")]
>>> report = replay_growth(chat, "dummy")
>>> [(row.call, row.history_messages, row.sent_tokens, row.cumulative_sent_tokens) for row in report.rows]
[(1, 1, 10, 10), (2, 3, 30, 40)]

Computing only: tables and plots take ``report.to_rows()``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from numbers import Integral
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, trim_messages

from course_utils.core.args import check_choice, check_int
from course_utils.core.i18n import _
from course_utils.window.sequences import safe_trim_kwargs
from course_utils.window.tokens import (
    COUNTER_NAMES,
    TokenCounter,
    check_messages,
    counter_name,
    get_token_counter,
    resolve_token_counter,
)

Policy = Callable[[list[BaseMessage]], list[BaseMessage]]


@dataclass(frozen=True)
class GrowthRow:
    """One model call of a replayed conversation."""

    call: int  #: 1 for the first model call
    ai_index: int  #: index in the conversation of the AIMessage this call produced
    history_messages: int  #: messages before that AIMessage (the stored history)
    history_tokens: int  #: their tokens, counted as one list
    sent_messages: int  #: messages the policy actually sent
    sent_tokens: int  #: tokens sent on this call
    cumulative_sent_tokens: int  #: tokens sent on this and every earlier call
    over_limit: bool | None  #: sent_tokens > limit (None when no limit was given)


@dataclass(frozen=True)
class GrowthReport:
    """Every model call of a replay, plus what was measured with what."""

    rows: list[GrowthRow]
    token_counter: str  #: the counter's name, for a table caption or legend
    limit: int | None = None
    policy: str | None = None  #: the policy's name, None when everything is sent

    @property
    def calls(self) -> int:
        return len(self.rows)

    @property
    def total_sent_tokens(self) -> int:
        return self.rows[-1].cumulative_sent_tokens if self.rows else 0

    @property
    def first_over_limit(self) -> GrowthRow | None:
        """The first call whose input is over the limit (None if none is, or no limit)."""
        return next((row for row in self.rows if row.over_limit), None)

    def conclusion(self, limit_name: str = "limit") -> str:
        """Where the replay first goes over its limit, and what it sends in all: two sentences.

        ``limit_name`` is how the sentence names the limit, e.g. ``"L - R"``
        (the window less the reply reserve, as lesson 01 writes it).

        >>> from langchain_core.messages import AIMessage, HumanMessage
        >>> chat = [HumanMessage("hi"), AIMessage("hello"), HumanMessage("how are you?"), AIMessage("fine")]
        >>> print(replay_growth(chat, "dummy", limit=20).conclusion())
        The first call whose input is over limit = 20 tokens is call 2: 3 messages, 30 tokens.
        The last call sends 30 tokens; all 2 calls together send 40 tokens.
        """
        if not isinstance(limit_name, str):
            raise TypeError(f"limit_name must be a string such as 'L - R', got {type(limit_name).__name__}: "
                            f"{limit_name!r:.80}")
        if not limit_name.strip():
            raise ValueError(f"limit_name must name the limit, e.g. 'L - R', got {limit_name!r}")
        if not self.rows:
            raise ValueError("the report has no rows: replay a conversation with at least one reply")
        sentences = []
        first = self.first_over_limit
        if first is not None:
            sentences.append(_(
                "The first call whose input is over {limit_name} = {limit} tokens is call {call}: "
                "{messages} messages, {tokens} tokens."
            ).format(limit_name=limit_name, limit=self.limit, call=first.call,
                     messages=first.history_messages, tokens=first.sent_tokens))
        elif self.limit is not None:
            sentences.append(_("No call's input is over {limit_name} = {limit} tokens.").format(
                limit_name=limit_name, limit=self.limit))
        sentences.append(_("The last call sends {last} tokens; all {calls} calls together send {total} tokens.").format(
            last=self.rows[-1].sent_tokens, calls=self.calls, total=self.total_sent_tokens))
        return "\n".join(sentences)

    def column(self, name: str) -> list:
        """One column of the table, e.g. ``report.column("sent_tokens")``."""
        if name not in GrowthRow.__dataclass_fields__:
            raise ValueError(f"name must be one of {list(GrowthRow.__dataclass_fields__)}, got {name!r}")
        return [getattr(row, name) for row in self.rows]

    def to_rows(self) -> list[dict]:
        """The rows as plain dicts, ready for a table or a DataFrame."""
        return [asdict(row) for row in self.rows]


def _check_count(value: Any, what: str) -> int:
    """A counter's result: a whole number (TypeError otherwise) that is not negative (ValueError)."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(
            f"token_counter must return a whole number of tokens, got {type(value).__name__}: {value!r:.80} for {what}"
        )
    if value < 0:
        raise ValueError(f"token_counter must return a whole number of tokens >= 0, got {value} for {what}")
    return int(value)


def replay_growth(
    messages: Sequence[BaseMessage],
    token_counter: str | TokenCounter = "approximate",
    *,
    limit: int | None = None,
    policy: Policy | None = None,
) -> GrowthReport:
    """Replay ``messages`` call by call and measure what each model call is sent.

    - ``token_counter``: ``"approximate"``, ``"exact"``, ``"dummy"`` or a
      function over a list of messages.
    - ``limit``: a context limit; each row then says whether its input is over.
    - ``policy``: a function from the history to the messages actually sent,
      e.g. ``lambda h: trim_messages(h, max_tokens=500, token_counter="approximate",
      start_on="human")``. By default everything is sent.

    The history passed to the policy is a fresh list, so a policy cannot
    change the stored conversation (the two-spaces rule of lesson 04).
    """
    messages = check_messages(messages)
    counter = resolve_token_counter(token_counter)
    limit = check_int(limit, "limit", minimum=None, none_ok=True)
    if limit is not None and limit <= 0:
        raise ValueError(f"limit must be a positive number of tokens, got {limit}")
    if policy is not None and not callable(policy):
        raise TypeError(f"policy must be a function from messages to messages, or None, got {type(policy).__name__}")
    ai_indexes = [i for i, message in enumerate(messages) if isinstance(message, AIMessage)]
    if not ai_indexes:
        raise ValueError(f"messages has no AIMessage, so there is no model call to replay ({len(messages)} messages)")

    rows = []
    cumulative = 0
    for call, ai_index in enumerate(ai_indexes, start=1):
        history = messages[:ai_index]
        sent = history if policy is None else check_messages(policy(list(history)), f"policy(messages[:{ai_index}])")
        history_tokens = _check_count(counter(history), f"the history of call {call}")
        sent_tokens = history_tokens if policy is None else _check_count(counter(sent), f"what call {call} sent")
        cumulative += sent_tokens
        rows.append(
            GrowthRow(
                call=call,
                ai_index=ai_index,
                history_messages=len(history),
                history_tokens=history_tokens,
                sent_messages=len(sent),
                sent_tokens=sent_tokens,
                cumulative_sent_tokens=cumulative,
                over_limit=None if limit is None else sent_tokens > limit,
            )
        )
    policy_name = None if policy is None else getattr(policy, "__name__", type(policy).__name__)
    return GrowthReport(rows, counter_name(token_counter), limit, policy_name)


def trim_policy(trim_kwargs: Mapping[str, Any]) -> Callable[[list[BaseMessage]], list[BaseMessage]]:
    """A replay policy that sends what ``trim_messages(history, **trim_kwargs)`` keeps.

    ``trim_kwargs`` is copied, so changing the dict later does not change the
    policy. Without a ``"strategy"`` the policy is named for trim_messages'
    default, ``"last"``.

    >>> policy = trim_policy({"max_tokens": 500, "token_counter": "approximate", "strategy": "last"})
    >>> policy.__name__
    "trim_messages(strategy='last')"
    """
    if not isinstance(trim_kwargs, Mapping):
        raise TypeError(
            f"trim_kwargs must be a dict of trim_messages arguments, e.g. {{'max_tokens': 500, "
            f"'token_counter': 'approximate'}}, got {type(trim_kwargs).__name__}: {trim_kwargs!r:.80}"
        )
    trim_kwargs = dict(trim_kwargs)

    def policy(history: list[BaseMessage]) -> list[BaseMessage]:
        return trim_messages(history, **trim_kwargs)

    policy.__name__ = f"trim_messages(strategy={trim_kwargs.get('strategy', 'last')!r})"
    return policy


#: Trimming policies the growth explorer offers: (label, value).
GROWTH_STRATEGIES = (("send everything", "none"), ("trim, keep the last", "last"), ("trim, keep the first", "first"))


def growth_trim_kwargs(limit: int, strategy: str, token_counter: str) -> dict[str, Any] | None:
    """The ``trim_messages`` arguments the growth explorer uses for a strategy (None: no trimming).

    "last" keeps a valid tail: it starts on a human message (so no tool
    answer is kept without its call, langchain issue #33245) and keeps the
    system message. "first" keeps a prefix that ends on a human message.
    Used by ``widgets.GrowthExplorer``; computing only.

    >>> growth_trim_kwargs(500, "last", "dummy")["start_on"]
    'human'
    """
    limit = check_int(limit, "limit", minimum=1)
    strategy = check_choice(strategy, "strategy", [value for _, value in GROWTH_STRATEGIES])
    counter = get_token_counter(check_choice(token_counter, "token_counter", COUNTER_NAMES))
    if strategy == "none":
        return None
    if strategy == "last":
        return safe_trim_kwargs(limit, counter)
    return {"max_tokens": limit, "token_counter": counter, "strategy": "first", "end_on": "human"}
