"""Build ``course_utils/data/spread_chat.json`` from ``long_chat.json``, deterministically.

Lesson 05's experiment needs facts spread over the conversation, not all in
the first five turns: then what a strategy remembers depends on the threshold
(a curve), not on whether the whole conversation fits (a step). This script
takes Sara's 40-turn chat, moves the five fact turns to turns 1, 10, 20, 28
and 35, restates two facts later (the name at turn 24, the city at turn 38),
and keeps the other turns in their order. Nothing is random: run it again and
the file is byte for byte the same.

    .venv/bin/python scripts/make_spread_chat.py
"""

from __future__ import annotations

import json
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "course_utils" / "data"

#: Turn (1-based) -> the long_chat human message id whose turn goes there.
FACT_TURNS = {1: "lc-02", 10: "lc-04", 20: "lc-06", 28: "lc-08", 35: "lc-10"}
#: Texts that read oddly once the turn moves ("First, a bit about me" at turn 10).
REWORDED = {
    "lc-04": "Something about me that matters for this one: I live in Valencia, close to the sea. I moved here two years ago and I still love it.",
    "lc-10": "Some background for this one: I work as a nurse on night shifts, so my sleep schedule is a bit of a mess.",
}
#: Turn -> (human, ai): later turns that state a fact again.
RESTATED = {
    24: (
        "Before the next question, a quick reminder in case you lost track: I'm Sara, the one with the ukulele and the balcony herbs.",
        "Of course, Sara: ukulele, herbs and a long list of questions. What's next?",
    ),
    38: (
        "It's warm again tonight. I live in Valencia, so summer nights stay humid. Any tips for sleeping in the heat?",
        "Humid heat is hard to sleep in. Keep the room dark during the day, open windows only when it is cooler outside, "
        "use a fan to move air across you, and keep a glass of water by the bed.",
    ),
}
TOTAL_TURNS = 40


def turns_of(messages: list[dict]) -> list[list[dict]]:
    """Group a conversation's messages (after the system prompt) into turns: a human message and the replies after it."""
    turns: list[list[dict]] = []
    for message in messages[1:]:
        if message["role"] == "human":
            turns.append([message])
        else:
            turns[-1].append(message)
    return turns


def build() -> dict:
    source = json.loads((DATA / "long_chat.json").read_text(encoding="utf-8"))
    system, turns = source["messages"][0], turns_of(source["messages"])
    by_first_id = {turn[0]["id"]: turn for turn in turns}
    fact_ids = set(FACT_TURNS.values())
    fillers = [turn for turn in turns if turn[0]["id"] not in fact_ids]
    needed = TOTAL_TURNS - len(FACT_TURNS) - len(RESTATED)
    fillers = fillers[:needed]

    ordered: list[list[dict]] = []
    filler_iter = iter(fillers)
    for number in range(1, TOTAL_TURNS + 1):
        if number in FACT_TURNS:
            turn = [dict(m) for m in by_first_id[FACT_TURNS[number]]]
            turn[0]["content"] = REWORDED.get(turn[0]["id"], turn[0]["content"])
        elif number in RESTATED:
            human, ai = RESTATED[number]
            turn = [{"role": "human", "content": human}, {"role": "ai", "content": ai}]
        else:
            turn = [dict(m) for m in next(filler_iter)]
        ordered.append(turn)

    messages = [{"role": "system", "content": system["content"], "id": "sc-01"}]
    old_to_new: dict[str, str] = {}
    for turn in ordered:
        for message in turn:
            new_id = f"sc-{len(messages) + 1:02d}"
            if "id" in message:
                old_to_new[message["id"]] = new_id
            messages.append({"role": message["role"], "content": message["content"], "id": new_id})

    facts = [{**fact, "id": old_to_new[fact["id"]]} for fact in source["facts"]]
    fact_turn = {v: k for k, v in FACT_TURNS.items()}
    stated = ", ".join(f"{f['fact']} at turn {fact_turn[[k for k, v in old_to_new.items() if v == f['id']][0]]}" for f in facts)
    return {
        "title": "Sara's evening chat, with facts spread out",
        "description": (
            "Lesson 05's experiment conversation, made by scripts/make_spread_chat.py from long_chat: the same "
            f"system prompt and {TOTAL_TURNS} turns ({2 * TOTAL_TURNS} messages, sc-02 ... sc-{2 * TOTAL_TURNS + 1:02d}), "
            f"but the user states her five facts spread over the chat ({stated}) and states two again later "
            "(her name at turn 24, her city at turn 38). 'facts' lists where each is first stated. Because the facts "
            "are spread out, how many a strategy still knows at the end changes with the threshold."
        ),
        "facts": facts,
        "messages": messages,
    }


def main() -> None:
    text = json.dumps(build(), ensure_ascii=False, indent=2) + "\n"
    (DATA / "spread_chat.json").write_text(text, encoding="utf-8")
    print(f"wrote {DATA / 'spread_chat.json'}")


if __name__ == "__main__":
    main()
