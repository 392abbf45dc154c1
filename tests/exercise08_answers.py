"""Right, wrong and hostile answers to exercise 08, as a learner would write them (tests/test_checks_table_08.py)."""

from __future__ import annotations

from langchain_anthropic import ChatAnthropic

from course_utils.checks.state_costs import STATED_PATTERN, reference_costs
from course_utils.window.costs import Call, bill
from course_utils.window.models import model_info


def _chat(trigger=None, *, betas=("compact-2026-01-12",), kind="input_tokens", edit="compact_20260112", **extra):
    edit_spec = {"type": edit}
    if trigger is not None:
        edit_spec["trigger"] = {"type": kind, "value": trigger}
    options = {"betas": list(betas)} if betas else {}
    return ChatAnthropic(model="claude-sonnet-5-5", api_key="offline", max_tokens=1024,
                         context_management={"edits": [edit_spec]}, **options, **extra)


# --- q1: right ------------------------------------------------------------------------------------

def compacting_model(budget, step):
    trigger = budget - step
    if trigger < 50_000:
        raise ValueError(f"budget: {budget:,} less one turn of {step:,} leaves a trigger of {trigger:,}, under the "
                         f"provider's minimum of 50,000 tokens; raise the budget")
    return _chat(trigger)


def compacting_model_checked_first(budget, step):
    """Right too: the refusal written before the sum, another message, another max_tokens."""
    if budget < 50_000 + step:
        raise ValueError(f"budget must be at least 50,000 + step ({50_000 + step:,}), got {budget:,}")
    return ChatAnthropic(model="claude-sonnet-5-5", api_key="offline", max_tokens=4096,
                         betas=["compact-2026-01-12"],
                         context_management={"edits": [{"type": "compact_20260112",
                                                        "trigger": {"type": "input_tokens",
                                                                    "value": budget - step}}]})


# --- q1: wrong and hostile ------------------------------------------------------------------------

def _refusing(make):
    def compacting_model(budget, step):
        if budget - step < 50_000:
            raise ValueError(f"budget {budget} is too small")
        return make(budget, step)
    return compacting_model


no_beta = _refusing(lambda budget, step: _chat(budget - step, betas=()))
too_late = _refusing(lambda budget, step: _chat(budget))
one_too_late = _refusing(lambda budget, step: _chat(budget - step + 1))
one_too_early = _refusing(lambda budget, step: _chat(budget - step - 1))
safety_margin = _refusing(lambda budget, step: _chat(int(0.9 * (budget - step))))
constant_minimum = _refusing(lambda budget, step: _chat(50_000))
no_trigger = _refusing(lambda budget, step: _chat(None))
clears_instead = _refusing(lambda budget, step: _chat(budget - step, edit="clear_tool_uses_20250919",
                                                      betas=("context-management-2025-06-27",)))
counts_tokens_type = _refusing(lambda budget, step: _chat(budget - step, kind="tokens"))
wrong_beta = _refusing(lambda budget, step: _chat(budget - step, betas=("context-management-2025-06-27",)))
other_model = _refusing(lambda budget, step: _chat(budget - step).model_copy(update={"model": "claude-haiku-4-5"}))
hard_coded = _refusing(lambda budget, step: _chat(60_000 - 8_000))
binds_instead = _refusing(lambda budget, step: ChatAnthropic(model="claude-sonnet-5-5", api_key="offline").bind(
    betas=["compact-2026-01-12"], context_management={"edits": [{"type": "compact_20260112", "trigger": {
        "type": "input_tokens", "value": budget - step}}]}))


def never_refuses(budget, step):
    return _chat(budget - step)


def refuses_without_the_name(budget, step):
    if budget - step < 50_000:
        raise ValueError("too small")
    return _chat(budget - step)


def refuses_the_minimum(budget, step):
    if budget - step <= 50_000:
        raise ValueError(f"budget {budget} leaves no trigger over 50,000")
    return _chat(budget - step)


def floors_at_the_minimum(budget, step):
    """Hostile: never refuses, and sends the provider's minimum when the budget is too small (over budget)."""
    return _chat(max(50_000, budget - step))


def returns_text(budget, step):
    return "compact_20260112"


# --- q3 -------------------------------------------------------------------------------------------

def _calls(pattern, *, replies=True):
    calls, keys, tokens = [], ["instructions"], [pattern.instructions]
    for k, turn in enumerate(pattern.turns, start=1):
        keys.append(f"user-{k}")
        tokens.append(turn.user)
        calls.append(Call("turn", tuple(keys), tuple(tokens), turn.reply))
        if replies:
            keys.append(f"reply-{k}")
            tokens.append(turn.reply)
    return calls


def _pauses(pattern):
    return [turn.pause for turn in pattern.turns]


def state_costs(pattern, prices):
    cost = bill(_calls(pattern), prices, caching=True, pauses=_pauses(pattern)).cost
    return {"server_held": cost, "resent": cost}


def state_costs_two_ways(pattern, prices):
    """Right too: each side built on its own (the server's stored items keyed by response)."""
    resent = bill(_calls(pattern), prices, caching=True, pauses=_pauses(pattern)).cost
    server, items, sizes = [], ["system"], [pattern.instructions]
    for k, turn in enumerate(pattern.turns):
        server.append(Call("turn", (*items, f"in-{k}"), (*sizes, turn.user), turn.reply))
        items += [f"in-{k}", f"out-{k}"]
        sizes += [turn.user, turn.reply]
    return {"resent": resent, "server_held": bill(server, prices, pauses=_pauses(pattern)).cost}


def new_only(pattern, prices):
    calls = [Call("turn", ("instructions", f"user-{k}"), (pattern.instructions, t.user), t.reply)
             for k, t in enumerate(pattern.turns)]
    return {"server_held": bill(calls, prices, caching=True, pauses=_pauses(pattern)).cost,
            "resent": state_costs(pattern, prices)["resent"]}


def server_not_cached(pattern, prices):
    return {"server_held": bill(_calls(pattern), prices, caching=False).cost,
            "resent": state_costs(pattern, prices)["resent"]}


def resent_not_cached(pattern, prices):
    return {"server_held": state_costs(pattern, prices)["server_held"],
            "resent": bill(_calls(pattern), prices, caching=False).cost}


def no_pauses(pattern, prices):
    cost = bill(_calls(pattern), prices, caching=True).cost
    return {"server_held": cost, "resent": cost}


def no_replies(pattern, prices):
    cost = bill(_calls(pattern, replies=False), prices, caching=True, pauses=_pauses(pattern)).cost
    return {"server_held": cost, "resent": cost}


def in_tokens(pattern, prices):
    tokens = bill(_calls(pattern), prices, caching=True, pauses=_pauses(pattern)).input_tokens
    return {"server_held": tokens, "resent": tokens}


_STATED = reference_costs(STATED_PATTERN, model_info("GPT-6.2 Sol").prices)


def typed(pattern, prices):
    return dict(_STATED)


def remembered(pattern, prices):
    """Hostile: the stated pattern's answer looked up, anything else a guess."""
    return dict(_STATED) if pattern == STATED_PATTERN else {"server_held": 0.05, "resent": 0.05}


def as_tuple(pattern, prices):
    cost = state_costs(pattern, prices)["resent"]
    return cost, cost


def half_server(pattern, prices):
    """Hostile: "the server keeps state, so it costs less": half the resent bill."""
    cost = state_costs(pattern, prices)["resent"]
    return {"server_held": cost / 2, "resent": cost}


def drifting(budget, step):
    """Hostile: the first request carries compaction, later ones do not (a model whose settings change after one call)."""
    if budget - step < 50_000:
        raise ValueError(f"budget {budget} is too small")
    chat = _chat(budget - step)
    calls = {"n": 0}
    original = chat._get_request_payload

    def payload(*args, **kwargs):
        calls["n"] += 1
        body = original(*args, **kwargs)
        if calls["n"] > 1:
            body.pop("context_management", None)
            body.pop("betas", None)
        return body

    object.__setattr__(chat, "_get_request_payload", payload)
    return chat
