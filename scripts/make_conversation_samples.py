"""Write the course's sample conversations in every shape ``course_utils.agentic.conversations`` reads.

The appendix "your own conversation" shows and loads these files, and the
tests check each loads to the messages expected. Deterministic (fixed ids,
times and seeds). Run after changing the sample ``course_utils/data/agent_tools.json``:

    python scripts/make_conversation_samples.py

Into ``course_utils/data/conversations/``:

- ``agent_tools.openai.jsonl``: OpenAI-style messages, one a line
  (``langchain_core.messages.convert_to_openai_messages``);
- ``agent_tools.anthropic.json``: an Anthropic-style request body with
  ``tool_use`` / ``tool_result`` blocks (``conversations.messages_to_anthropic``);
- ``agent_tools.langchain.json``: LangChain's own dump (``messages_to_dict``), ids included;
- ``request_log.openai.jsonl``: the agent's calls as an OpenAI request log,
  one whole Chat Completions request body a line (``model``, ``messages``, ``tools``);
- ``fine_tuning.openai.jsonl``: three short conversations, one a line, as
  OpenAI's fine-tuning format wants them;
- ``responses_items.json`` and ``responses_request.json``: the agent as
  Responses API items (``function_call``, ``function_call_output``,
  ``reasoning``), and as one request ``{"model", "instructions", "input", "tools"}``;
- ``gemini_contents.json``: a Gemini request (``systemInstruction``,
  ``contents`` with ``functionCall`` / ``functionResponse`` parts);
- ``sharegpt.json``: two ShareGPT conversations (``from`` / ``value``);
- ``chatgpt_export/conversations.json`` and ``chatgpt_export.zip``: a ChatGPT
  data export of two conversations, one with an edited message (two
  branches; ``current_node`` on the second), a hidden system message, a
  Python tool call and an uploaded image;
- ``claude_ai_export.json``: a Claude.ai export of two conversations, one with
  an attachment whose text the app extracted;
- ``image_message.openai.json``: a user message with a 30 KB PNG as base64.
"""

from __future__ import annotations

import base64
import io
import json
import random
import zipfile
from pathlib import Path

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage, convert_to_openai_messages
from langchain_core.messages import messages_to_dict

from course_utils.agentic.conversations import messages_to_anthropic
from course_utils.core.samples import load_conversation

FOLDER = Path(__file__).resolve().parents[1] / "course_utils" / "data" / "conversations"
SAMPLE = "agent_tools"
MODEL = "gpt-6.2-sol"
TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "description": "The forecast for a city on a day.",
                                      "parameters": {"type": "object", "properties": {"city": {"type": "string"},
                                                                                      "day": {"type": "string"}},
                                                     "required": ["city", "day"]}}},
    {"type": "function", "function": {"name": "web_search", "description": "Search the web.",
                                      "parameters": {"type": "object", "properties": {"query": {"type": "string"}},
                                                     "required": ["query"]}}},
    {"type": "function", "function": {"name": "currency_convert", "description": "Convert an amount between currencies.",
                                      "parameters": {"type": "object", "properties": {
                                          "amount": {"type": "number"}, "from_currency": {"type": "string"},
                                          "to_currency": {"type": "string"}},
                                          "required": ["amount", "from_currency", "to_currency"]}}},
]


def _dump(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, indent=1) + "\n"


def _lines(values: list) -> str:
    return "".join(json.dumps(v, ensure_ascii=False) + "\n" for v in values)


def request_log(messages: list) -> list[dict]:
    """One request body per model call: everything before each AI message, with the tools."""
    records = convert_to_openai_messages(messages)
    return [{"model": MODEL, "messages": records[:i], "tools": TOOLS, "temperature": 0}
            for i, m in enumerate(messages) if isinstance(m, AIMessage)]


def fine_tuning() -> list[dict]:
    chats = [
        ["What is the capital of Portugal?", "Lisbon."],
        ["Convert 100 EUR to USD at 1.08.", "100 EUR is 108 USD at that rate."],
        ["Is Sintra a day trip from Lisbon?", "Yes: about 40 minutes by train from Rossio station.",
         "And Cascais?", "Also yes: about 40 minutes by train from Cais do Sodré."],
    ]
    lines = []
    for chat in chats:
        messages = [{"role": "system", "content": "You are a concise travel assistant."}]
        messages += [{"role": "user" if i % 2 == 0 else "assistant", "content": text} for i, text in enumerate(chat)]
        lines.append({"messages": messages})
    return lines


def responses_items(messages: list) -> list[dict]:
    """The agent as Responses API items: user messages, reasoning, function calls and their outputs."""
    items: list[dict] = []
    for n, message in enumerate(messages):
        if isinstance(message, SystemMessage):
            continue
        if isinstance(message, HumanMessage):
            items.append({"type": "message", "role": "user", "content": [{"type": "input_text", "text": message.content}]})
        elif isinstance(message, AIMessage):
            items.append({"type": "reasoning", "id": f"rs_{n:03d}", "summary": [
                {"type": "summary_text", "text": "Look it up before answering."}]})
            if message.content:
                items.append({"type": "message", "role": "assistant", "id": f"msg_{n:03d}", "status": "completed",
                              "content": [{"type": "output_text", "text": message.content, "annotations": []}]})
            for call in message.tool_calls:
                items.append({"type": "function_call", "id": f"fc_{call['id']}", "call_id": call["id"],
                              "name": call["name"], "arguments": json.dumps(call["args"])})
        elif isinstance(message, ToolMessage):
            items.append({"type": "function_call_output", "call_id": message.tool_call_id, "output": message.content})
    return items


def gemini(messages: list) -> dict:
    contents: list[dict] = []
    system = None
    names = {c["id"]: c["name"] for m in messages if isinstance(m, AIMessage) for c in m.tool_calls}
    for message in messages:
        if isinstance(message, SystemMessage):
            system = {"parts": [{"text": message.content}]}
        elif isinstance(message, HumanMessage):
            contents.append({"role": "user", "parts": [{"text": message.content}]})
        elif isinstance(message, AIMessage):
            parts = ([{"text": message.content}] if message.content else [])
            parts += [{"functionCall": {"name": c["name"], "args": c["args"]}} for c in message.tool_calls]
            contents.append({"role": "model", "parts": parts})
        elif isinstance(message, ToolMessage):
            part = {"functionResponse": {"name": names[message.tool_call_id], "response": {"content": message.content}}}
            if contents and contents[-1]["role"] == "user" and "functionResponse" in contents[-1]["parts"][0]:
                contents[-1]["parts"].append(part)
            else:
                contents.append({"role": "user", "parts": [part]})
    declarations = [t["function"] for t in TOOLS]
    return {"systemInstruction": system, "contents": contents, "tools": [{"functionDeclarations": declarations}]}


def sharegpt() -> list[dict]:
    return [
        {"id": "travel-1", "conversations": [
            {"from": "system", "value": "You are a travel assistant with a weather tool."},
            {"from": "human", "value": "Will it rain in Porto on Sunday?"},
            {"from": "function_call", "value": json.dumps({"name": "get_weather", "arguments": {"city": "Porto", "day": "Sunday"}})},
            {"from": "observation", "value": json.dumps({"city": "Porto", "rain_chance": 0.7, "high_c": 17})},
            {"from": "gpt", "value": "Probably: a 70% chance of rain, with a high of 17 °C. Pack an umbrella."}]},
        {"id": "travel-2", "conversations": [
            {"from": "human", "value": "Best time to visit the Algarve?"},
            {"from": "gpt", "value": "May, June or September: warm, with fewer crowds than July and August."}]},
    ]


def _node(node_id: str, role: str, text: str, parent: str | None, children: list[str], t: float, **extra: object) -> dict:
    message = {"id": node_id, "author": {"role": role, "name": extra.pop("name", None), "metadata": {}},
               "create_time": t, "content": {"content_type": extra.pop("content_type", "text"), "parts": [text]},
               "status": "finished_successfully", "weight": 1.0, "metadata": extra.pop("metadata", {}),
               "recipient": extra.pop("recipient", "all")}
    if message["content"]["content_type"] == "code":
        message["content"] = {"content_type": "code", "language": "python", "text": text}
    if message["content"]["content_type"] == "execution_output":
        message["content"] = {"content_type": "execution_output", "text": text}
    message.update(extra)
    return {"id": node_id, "message": message, "parent": parent, "children": children}


def chatgpt_export(image: dict) -> list[dict]:
    t = 1764840000.0
    first = {
        "title": "Lisbon weekend budget", "id": "6750a1b2-0000-4000-8000-000000000001", "conversation_id": "6750a1b2-0000-4000-8000-000000000001",
        "create_time": t, "update_time": t + 600, "current_node": "n7", "default_model_slug": "gpt-6-2-sol",
        "mapping": {
            "root": {"id": "root", "message": None, "parent": None, "children": ["n0"]},
            "n0": _node("n0", "system", "", "root", ["n1"], t, metadata={"is_visually_hidden_from_conversation": True}),
            "n1": _node("n1", "user", "I have 400 EUR for two days in Lisbon. How much is that in dollars?", "n0", ["n2", "n4"], t + 10),
            # the first reply was regenerated: n2 -> n3 is the abandoned branch, n4 ... n7 the shown one
            "n2": _node("n2", "assistant", "About 430 dollars.", "n1", ["n3"], t + 20),
            "n3": _node("n3", "user", "Thanks!", "n2", [], t + 30),
            "n4": _node("n4", "assistant", "amount_eur = 400\nrate = 1.08\nprint(amount_eur * rate)", "n1", ["n5"], t + 40,
                        content_type="code", recipient="python"),
            "n5": _node("n5", "tool", "432.0", "n4", ["n6"], t + 50, content_type="execution_output", name="python"),
            "n6": _node("n6", "assistant", "400 EUR is about 432 USD at 1.08 per euro: roughly 216 USD a day.", "n5", ["n7"], t + 60),
            "n7": _node("n7", "user", "", "n6", ["n8"], t + 70),
            "n8": _node("n8", "assistant", "That receipt shows 18.50 EUR for lunch: within a 216-a-day budget.", "n7", [], t + 80),
        },
    }
    first["mapping"]["n7"]["message"]["content"] = {"content_type": "multimodal_text", "parts": [
        {"content_type": "image_asset_pointer", "asset_pointer": "file-service://file-Receipt01", "size_bytes": 30720,
         "width": image["width"], "height": image["height"], "fovea": None, "metadata": None},
        "Is this lunch receipt within my budget?"]}
    first["current_node"] = "n8"
    second = {
        "title": "Packing list", "id": "6750a1b2-0000-4000-8000-000000000002", "create_time": t + 1000,
        "update_time": t + 1100, "current_node": "m2",
        "mapping": {
            "m0": {"id": "m0", "message": None, "parent": None, "children": ["m1"]},
            "m1": _node("m1", "user", "What should I pack for Lisbon in April?", "m0", ["m2"], t + 1000),
            "m2": _node("m2", "assistant", "Layers, a light rain jacket and comfortable shoes for the hills.", "m1", [], t + 1010),
        },
    }
    return [first, second]


def claude_export() -> list[dict]:
    def turn(uuid: str, sender: str, text: str, **extra: object) -> dict:
        return {"uuid": uuid, "text": text, "content": [{"type": "text", "text": text}], "sender": sender,
                "created_at": "2026-11-20T10:00:00Z", "updated_at": "2026-11-20T10:00:00Z",
                "attachments": extra.get("attachments", []), "files": extra.get("files", [])}
    return [
        {"uuid": "c0a1e7a0-0000-4000-8000-00000000000a", "name": "Itinerary check", "created_at": "2026-11-20T10:00:00Z",
         "updated_at": "2026-11-20T10:05:00Z", "account": {"uuid": "acc-0001"}, "chat_messages": [
             turn("t1", "human", "Here is my itinerary. Is Saturday too packed?", attachments=[{
                 "file_name": "itinerary.txt", "file_type": "text/plain", "file_size": 120,
                 "extracted_content": "Sat 09:00 Belém tower; 11:00 Jerónimos; 13:00 lunch; 15:00 Sintra; 19:00 Fado show"}]),
             turn("t2", "assistant", "Sintra at 15:00 is tight: the train takes 40 minutes each way. Move Sintra to Sunday."),
             turn("t3", "human", "OK, and where should I eat lunch in Belém?"),
             turn("t4", "assistant", "Near the monastery: try the pastry shop for a quick lunch, then walk to the river."),
         ]},
        {"uuid": "c0a1e7a0-0000-4000-8000-00000000000b", "name": "Photo spots", "created_at": "2026-11-21T09:00:00Z",
         "updated_at": "2026-11-21T09:01:00Z", "account": {"uuid": "acc-0001"}, "chat_messages": [
             turn("u1", "human", "Which viewpoint is in this photo?", files=[{"file_name": "view.jpg"}]),
             turn("u2", "assistant", "It looks like Miradouro da Senhora do Monte, the highest viewpoint in Lisbon."),
         ]},
    ]


def image_png(size_bytes: int = 30_000) -> tuple[bytes, int, int]:
    """A PNG of noise (which does not compress) of about ``size_bytes``, and its width and height."""
    from PIL import Image

    rng = random.Random(36)
    side = int((size_bytes / 3) ** 0.5)
    image = Image.frombytes("RGB", (side, side), bytes(rng.randrange(256) for _ in range(side * side * 3)))
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue(), side, side


def sample_files() -> dict[str, bytes]:
    """File name (under the folder) -> bytes, for every sample."""
    messages = load_conversation(SAMPLE)
    png, width, height = image_png()
    data = base64.b64encode(png).decode()
    text = {
        f"{SAMPLE}.openai.jsonl": _lines(convert_to_openai_messages(messages)),
        f"{SAMPLE}.anthropic.json": _dump(messages_to_anthropic(messages)),
        f"{SAMPLE}.langchain.json": _dump(messages_to_dict(messages)),
        "request_log.openai.jsonl": _lines(request_log(messages)),
        "fine_tuning.openai.jsonl": _lines(fine_tuning()),
        "responses_items.json": _dump(responses_items(messages)),
        "responses_request.json": _dump({"model": MODEL, "instructions": messages[0].content,
                                         "input": responses_items(messages),
                                         "tools": [{"type": "function", **t["function"]} for t in TOOLS]}),
        "gemini_contents.json": _dump(gemini(messages)),
        "sharegpt.json": _dump(sharegpt()),
        "chatgpt_export/conversations.json": _dump(chatgpt_export({"width": 1024, "height": 768})),
        "claude_ai_export.json": _dump(claude_export()),
        "image_message.openai.json": _dump([
            {"role": "user", "content": [{"type": "text", "text": "What does this picture show?"},
                                         {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{data}"}}]},
            {"role": "assistant", "content": "Coloured noise: random pixels, no subject."}]),
    }
    files = {name: value.encode("utf-8") for name, value in text.items()}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in ("conversations.json", "chat.html", "user.json"):
            info = zipfile.ZipInfo(name, date_time=(2026, 12, 4, 12, 0, 0))
            body = {"conversations.json": files["chatgpt_export/conversations.json"],
                    "chat.html": b"<!DOCTYPE html><title>ChatGPT export</title>",
                    "user.json": b'{"id": "user-0001"}\n'}[name]
            archive.writestr(info, body, zipfile.ZIP_DEFLATED)
    files["chatgpt_export.zip"] = buffer.getvalue()
    return files


def main() -> None:
    for name, data in sample_files().items():
        path = FOLDER / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        print(f"wrote {path} ({len(data):,} bytes)")


if __name__ == "__main__":
    main()
