"""The data exports of chat apps, read as LangChain messages: ChatGPT's and Claude.ai's.

- **ChatGPT** (Settings -> Data controls -> Export data): a zip holding
  ``conversations.json``, a list of conversations. Each has ``mapping``
  (node id -> ``{"message", "parent", "children"}``: a tree, because editing
  a message or regenerating a reply starts a branch) and ``current_node``,
  the last node of the branch the app shows. :func:`chatgpt_messages`
  walks from ``current_node`` up to the root, so it reads exactly the shown
  branch. Empty and hidden messages (``is_visually_hidden_from_conversation``)
  are left out; an assistant message to a tool (``recipient`` other than
  "all") becomes a tool call, and the tool's answer its ToolMessage. Images
  carry their width and height in the export, so they are counted by the
  model's image rule.
- **Claude.ai** (Settings -> Privacy -> Export data): ``conversations.json``,
  a list of conversations with ``chat_messages`` (``sender`` "human" or
  "assistant", ``text`` and ``content`` blocks, ``attachments`` whose
  ``extracted_content`` the app sent as text, ``files`` whose images the
  export does not include).

An export holds many conversations: :func:`choose` picks one by title or id
(``--conversation``), or the longest, and says which others there are.

>>> export = [{"id": "c1", "title": "Tea", "current_node": "b", "mapping": {
...     "a": {"message": {"author": {"role": "user"}, "content": {"content_type": "text", "parts": ["hi"]}}, "parent": None},
...     "b": {"message": {"author": {"role": "assistant"}, "content": {"content_type": "text", "parts": ["hello"]}}, "parent": "a"}}}]
>>> [m.content for m in chatgpt_messages(export[0], "conversations.json")]
['hi', 'hello']
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from course_utils.agentic.conversation_records import ConversationError
from course_utils.core.i18n import _

#: Names an export's conversation file has, inside the zip or the unzipped folder.
EXPORT_FILE = "conversations.json"
#: How many other conversations a note or an error lists by name.
LISTED = 20


def _error(source: str, problem: str, fix: str, index: int | None = None) -> Exception:
    return ConversationError(source, problem, fix, index)


@dataclass(frozen=True)
class Choice:
    """The conversation chosen from an export, and what the reader says about the choice."""

    index: int
    note: str  #: e.g. "conversation 'Tea' (c1), the longest of 3; others: ..."


def _label(title: Any, ident: Any) -> str:
    return f"{str(title or '(untitled)')!r} ({ident})"


def choose(labels: list[tuple[str, str]], sizes: list[int], wanted: str | None, source: str, what: str) -> Choice:
    """Which of several conversations to read: ``wanted`` by id, title or position (1-based), else the longest.

    ``labels`` are (title, id) pairs; ``sizes`` their message counts; ``what``
    names them in the note ("conversation", "line").
    """
    if not labels:
        raise _error(source, _("the export holds no conversations"), _("export your data again; this file lists none"))
    listing = "; ".join(f"{i + 1}. {_label(t, d)}, {n:,}" for i, ((t, d), n) in enumerate(zip(labels, sizes)))
    if len(labels) > LISTED:
        listing = "; ".join(listing.split("; ")[:LISTED]) + " …"
    if wanted is not None:
        text = str(wanted).strip()
        found = [i for i, (t, d) in enumerate(labels) if str(d) == text]
        if not found:
            found = [i for i, (t, d) in enumerate(labels) if str(t or "").strip().lower() == text.lower()]
        if not found and text.isdigit() and 1 <= int(text) <= len(labels):
            found = [int(text) - 1]
        if not found:
            raise _error(source, _("no {what} has the title, id or number {wanted}").format(what=what, wanted=repr(text)),
                         _("choose one with --conversation (title, id or number): {listing}").format(listing=listing))
        if len(found) > 1:
            raise _error(source, _("{count} conversations have the title {wanted}").format(count=len(found), wanted=repr(text)),
                         _("choose one by its id with --conversation: {ids}").format(
                             ids=", ".join(str(labels[i][1]) for i in found)))
        i = found[0]
        return Choice(i, _("{what} {number} of {count}: {label}").format(
            what=what, number=i + 1, count=len(labels), label=_label(*labels[i])))
    i = max(range(len(labels)), key=lambda k: (sizes[k], -k))
    if len(labels) == 1:
        return Choice(i, _("{what} {label}").format(what=what, label=_label(*labels[i])))
    return Choice(i, _("{what} {number} of {count}, the longest: {label}; choose another with --conversation "
                       "(title, id or number): {listing}").format(
        what=what, number=i + 1, count=len(labels), label=_label(*labels[i]), listing=listing))


# --- ChatGPT --------------------------------------------------------------------------------


def is_chatgpt(value: Any) -> bool:
    """A ChatGPT conversation (a dict with ``mapping``) or a list of them."""
    items = value if isinstance(value, list) else [value]
    return bool(items) and all(isinstance(c, dict) and isinstance(c.get("mapping"), dict) for c in items)


def _branch(conversation: dict, source: str, index: int) -> list[dict]:
    """The nodes from the root to ``current_node`` (the branch the app shows)."""
    mapping = conversation["mapping"]
    node_id = conversation.get("current_node")
    if node_id is None:  # older exports: the last leaf
        leaves = [k for k, v in mapping.items() if isinstance(v, dict) and not v.get("children")]
        node_id = leaves[-1] if leaves else None
    branch, seen = [], set()
    while node_id is not None:
        node = mapping.get(node_id)
        if not isinstance(node, dict) or node_id in seen:
            raise _error(source, _("node {node} of the conversation's mapping is missing or loops").format(node=repr(node_id)),
                         _("export your data again; this conversation's tree is broken"), index)
        seen.add(node_id)
        branch.append(node)
        node_id = node.get("parent")
    return branch[::-1]


def _chatgpt_content(message: dict) -> str | list:
    content = message.get("content") or {}
    kind = content.get("content_type")
    if kind in ("code", "execution_output", "tether_quote", "tether_browsing_display", "system_error"):
        return str(content.get("text") or content.get("result") or "")
    blocks = []
    for part in content.get("parts") or []:
        if isinstance(part, str):
            if part:
                blocks.append({"type": "text", "text": part})
        elif isinstance(part, dict) and part.get("content_type") == "image_asset_pointer":
            blocks.append({"type": "image", "url": part.get("asset_pointer"), "width": part.get("width"),
                           "height": part.get("height")})
        elif isinstance(part, dict):
            blocks.append({"type": "text", "text": str(part.get("text") or json.dumps(part, ensure_ascii=False))})
    if all(b["type"] == "text" for b in blocks):
        return "\n".join(b["text"] for b in blocks)
    return blocks


def chatgpt_messages(conversation: dict, source: str, index: int = 0) -> list[BaseMessage]:
    """The shown branch of one ChatGPT conversation as messages (see the module)."""
    messages: list[BaseMessage] = []
    open_call: str | None = None
    for node in _branch(conversation, source, index):
        message = node.get("message")
        if not isinstance(message, dict):
            continue
        metadata = message.get("metadata") or {}
        content = _chatgpt_content(message)
        if not content or metadata.get("is_visually_hidden_from_conversation"):
            continue
        role = (message.get("author") or {}).get("role")
        name = (message.get("author") or {}).get("name")
        recipient = message.get("recipient") or "all"
        if role == "user":
            messages.append(HumanMessage(content))
        elif role == "system":
            messages.append(SystemMessage(content))
        elif role == "assistant" and recipient != "all":
            open_call = str(message.get("id") or f"call-{len(messages)}")
            messages.append(AIMessage(content="", tool_calls=[{"name": recipient, "args": {"input": content},
                                                               "id": open_call, "type": "tool_call"}]))
        elif role == "assistant":
            messages.append(AIMessage(content))
        elif role == "tool" and open_call is not None:
            messages.append(ToolMessage(content=content, tool_call_id=open_call, name=name))
            open_call = None
        elif role == "tool":  # a tool's output the app shows without a call in the export (browsing, images)
            messages.append(AIMessage(content, name=name))
        else:
            raise _error(source, _("unknown role {role}: a message's role must be one of {allowed}").format(
                role=repr(role), allowed="system, user, assistant, tool"),
                _("export your data again; this message's author is unusual"), index)
    return messages


# --- Claude.ai --------------------------------------------------------------------------------


def is_claude_export(value: Any) -> bool:
    """A Claude.ai conversation (a dict with ``chat_messages``) or a list of them."""
    items = value if isinstance(value, list) else [value]
    return bool(items) and all(isinstance(c, dict) and isinstance(c.get("chat_messages"), list) for c in items)


def claude_messages(conversation: dict, source: str, index: int = 0) -> list[BaseMessage]:
    """One Claude.ai conversation as messages: its text, and the text the app extracted from attachments."""
    messages: list[BaseMessage] = []
    for position, turn in enumerate(conversation["chat_messages"]):
        if not isinstance(turn, dict) or turn.get("sender") not in ("human", "assistant"):
            raise _error(source, _("message {position}: its sender must be 'human' or 'assistant'").format(position=position),
                         _("export your data again; this message has no sender"), index)
        blocks = turn.get("content")
        if isinstance(blocks, list) and blocks:
            texts = [str(b.get("text", "")) for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
            others = [b for b in blocks if isinstance(b, dict) and b.get("type") not in ("text", None)]
            text = "\n\n".join(t for t in texts if t)
            text += "".join("\n\n" + json.dumps({k: v for k, v in b.items() if k in ("type", "name", "input", "content")},
                                                ensure_ascii=False) for b in others)
        else:
            text = str(turn.get("text") or "")
        for attachment in turn.get("attachments") or []:
            if isinstance(attachment, dict) and attachment.get("extracted_content"):
                text += "\n\n" + str(attachment["extracted_content"])
        files = [f for f in turn.get("files") or [] if isinstance(f, dict)]
        content: str | list = text
        if files:  # the export names the files but holds none of their bytes
            content = ([{"type": "text", "text": text}] if text else []) + [
                {"type": "file", "filename": f.get("file_name"), "not_in_export": True} for f in files]
        if not text and not files:
            continue
        messages.append(HumanMessage(content) if turn["sender"] == "human" else AIMessage(content))
    return messages


# --- one export, one conversation ----------------------------------------------------------------


def export_conversation(value: Any, kind: str, source: str, wanted: str | None) -> tuple[list[BaseMessage], str]:
    """The chosen conversation of a ChatGPT ("chatgpt") or Claude.ai ("claude-ai") export, and the choice's note."""
    conversations = value if isinstance(value, list) else [value]
    read = chatgpt_messages if kind == "chatgpt" else claude_messages
    labels = [(c.get("title") if kind == "chatgpt" else c.get("name"),
               c.get("id") or c.get("conversation_id") or c.get("uuid") or i + 1) for i, c in enumerate(conversations)]
    if kind == "chatgpt":
        sizes = [sum(1 for n in c["mapping"].values() if isinstance(n, dict) and n.get("message")) for c in conversations]
    else:
        sizes = [len(c["chat_messages"]) for c in conversations]
    choice = choose(labels, sizes, wanted, source, _("conversation"))
    return read(conversations[choice.index], source, choice.index), choice.note


__all__ = ["EXPORT_FILE", "Choice", "chatgpt_messages", "choose", "claude_messages", "export_conversation",
           "is_chatgpt", "is_claude_export"]
