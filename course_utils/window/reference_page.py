"""The trim_messages reference page's seven examples, as printed (lesson 03).

The trim_messages reference page (the course's source document 000, in
Chinese) trims five messages with a dummy counter in seven examples. The
calls and the outputs are kept here exactly as the page prints them, so a
lesson can run each call against the installed library and compare:
``REFERENCE_EXAMPLES`` holds the seven examples, :func:`reference_messages`
the page's five messages, and :func:`compare_reference_examples` runs every
call and lists where the page and the library disagree.

>>> [example.number for example in REFERENCE_EXAMPLES]
[1, 2, 3, 4, 5, 6, 7]
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, trim_messages

from course_utils.core.i18n import _, translate


#: The text of every string message on the reference page (10 tokens with dummy_token_counter).
REFERENCE_TEXT = "This is a 4 token text. The full message is 10 tokens."
#: The two content blocks of the page's AIMessage "second" (4 tokens each).
REFERENCE_BLOCKS = (
    {"type": "text", "text": "This is the FIRST 4 token block."},
    {"type": "text", "text": "This is the SECOND 4 token block."},
)


def reference_messages() -> list[BaseMessage]:
    """The page's five messages: system, human "first", ai "second" (two blocks), human "third", ai "fourth"."""
    return [
        SystemMessage(REFERENCE_TEXT),
        HumanMessage(REFERENCE_TEXT, id="first"),
        AIMessage([dict(block) for block in REFERENCE_BLOCKS], id="second"),
        HumanMessage(REFERENCE_TEXT, id="third"),
        AIMessage(REFERENCE_TEXT, id="fourth"),
    ]


def _parse_printed(text: str) -> tuple[tuple[str, str | None, Any], ...]:
    """The page's printed output (``[SystemMessage("..."), AIMessage([...], id="second"), ...]``) as data."""
    import ast

    items = []
    for node in ast.parse(text, mode="eval").body.elts:
        keywords = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
        items.append((node.func.id, keywords.get("id"), ast.literal_eval(node.args[0])))
    return tuple(items)


def as_printed(message: BaseMessage) -> tuple[str, str | None, Any]:
    """A message as the page prints one: (class name, id, content)."""
    return (type(message).__name__, message.id, message.content)


def page_style(message: BaseMessage | tuple[str, str | None, Any]) -> str:
    """A message (or its printed triple) written the way the page writes it: ``AIMessage([...], id="second")``.

    >>> page_style(HumanMessage("hi", id="first"))
    'HumanMessage("hi", id="first")'
    """
    name, id_, content = as_printed(message) if isinstance(message, BaseMessage) else message
    id_part = f", id={json.dumps(id_)}" if id_ is not None else ""
    return f"{name}({json.dumps(content, ensure_ascii=False)}{id_part})"


@dataclass(frozen=True)
class ReferenceExample:
    """One example of the page: its heading, its call and its output, as printed."""

    number: int
    heading: str  #: the page's heading (Chinese), as printed
    title: str  #: the heading in English (:attr:`caption` gives it in the course's language)
    call: str  #: the call, character for character as printed (it may not even compile)
    kwargs: dict[str, Any]  #: the call's arguments besides messages and token_counter=dummy_token_counter
    printed_text: str  #: the output, as printed

    @property
    def caption(self) -> str:
        """The title in the course's language (the package's catalogue has the Persian).

        >>> REFERENCE_EXAMPLES[0].caption
        'First 30 tokens, no partial messages'
        """
        return translate(self.title)

    @property
    def printed(self) -> tuple[tuple[str, str | None, Any], ...]:
        """The printed output as (class name, id, content) for each message."""
        return _parse_printed(self.printed_text)

    def run(self) -> list[BaseMessage]:
        """The call, made for real on the page's messages with the page's counter."""
        from course_utils.window.tokens import dummy_token_counter

        return trim_messages(reference_messages(), token_counter=dummy_token_counter, **self.kwargs)


_S = 'SystemMessage("This is a 4 token text. The full message is 10 tokens.")'
_H = 'HumanMessage("This is a 4 token text. The full message is 10 tokens.", id="{}")'
_A = 'AIMessage("This is a 4 token text. The full message is 10 tokens.", id="fourth")'
_FIRST = '    AIMessage(\n        [{"type": "text", "text": "This is the FIRST 4 token block."},],\n        id="second",\n    ),\n'

#: The page's seven examples, in its order.
REFERENCE_EXAMPLES: tuple[ReferenceExample, ...] = (
    ReferenceExample(
        1, "前 30 个标记，不允许部分消息", "First 30 tokens, no partial messages",
        'trim_messages(messages, max_tokens=30, token_counter=dummy_token_counter, strategy="first")',
        dict(max_tokens=30, strategy="first"),
        f'[\n    {_S},\n    {_H.format("first")},\n]',
    ),
    ReferenceExample(
        2, "前 30 个标记，允许部分消息", "First 30 tokens, partial messages allowed",
        'trim_messages(\n    messages,\n    max_tokens=30,\n    token_counter=dummy_token_counter,\n'
        '    strategy="first",\n    allow_partial=True,\n)',
        dict(max_tokens=30, strategy="first", allow_partial=True),
        f'[\n    {_S},\n    {_H.format("first")},\n'
        '    AIMessage( [{"type": "text", "text": "This is the FIRST 4 token block."}], id="second"),\n]',
    ),
    ReferenceExample(
        3, "前 30 个标记，允许部分消息，必须在 HumanMessage 上结束",
        "First 30 tokens, partial messages allowed, must end on a HumanMessage",
        'trim_messages(\n    messages,\n    max_tokens=30,\n    token_counter=dummy_token_counter,\n'
        '    strategy="first"\n    allow_partial=True,\n    end_on="human",\n)',
        dict(max_tokens=30, strategy="first", allow_partial=True, end_on="human"),
        f'[\n    {_S},\n    {_H.format("first")},\n]',
    ),
    ReferenceExample(
        4, "包括系统消息的最后 30 个标记，不允许部分消息",
        "Last 30 tokens, system message included, no partial messages",
        'trim_messages(messages, max_tokens=30, include_system=True, token_counter=dummy_token_counter, strategy="last")',
        dict(max_tokens=30, include_system=True, strategy="last"),
        f'[\n    {_S},\n    {_H.format("third")},\n    {_A},\n]',
    ),
    ReferenceExample(
        5, "包括系统消息的最后 40 个标记，允许部分消息",
        "Last 40 tokens, system message included, partial messages allowed",
        'trim_messages(\n    messages,\n    max_tokens=40,\n    token_counter=dummy_token_counter,\n'
        '    strategy="last",\n    allow_partial=True,\n    include_system=True\n)',
        dict(max_tokens=40, strategy="last", allow_partial=True, include_system=True),
        f'[\n    {_S},\n{_FIRST}    {_H.format("third")},\n    {_A},\n]',
    ),
    ReferenceExample(
        6, "包括系统消息的最后 30 个标记，允许部分消息，必须在 HumanMessage 上结束",
        "Last 30 tokens, system message included, partial messages allowed, must end on a HumanMessage",
        'trim_messages(\n    messages,\n    max_tokens=30,\n    token_counter=dummy_token_counter,\n'
        '    strategy="last",\n    end_on="human",\n    include_system=True,\n    allow_partial=True,\n)',
        dict(max_tokens=30, strategy="last", end_on="human", include_system=True, allow_partial=True),
        f'[\n    {_S},\n{_FIRST}    {_H.format("third")},\n]',
    ),
    ReferenceExample(
        7, "包括系统消息的最后 40 个标记，允许部分消息，从 HumanMessage 开始",
        "Last 40 tokens, system message included, partial messages allowed, starting on a HumanMessage",
        'trim_messages(\n    messages,\n    max_tokens=40,\n    token_counter=dummy_token_counter,\n'
        '    strategy="last",\n    include_system=True,\n    allow_partial=True,\n    start_on="human"\n)',
        dict(max_tokens=40, strategy="last", include_system=True, allow_partial=True, start_on="human"),
        f'[\n    {_S},\n    {_H.format("third")},\n    {_A},\n]',
    ),
)


@dataclass(frozen=True)
class ReferenceComparison:
    """One page example run against the installed library, compared with what the page prints."""

    example: ReferenceExample
    library: list[BaseMessage]  #: what trim_messages returns here

    @property
    def matches(self) -> bool:
        return [as_printed(m) for m in self.library] == list(self.example.printed)

    @property
    def differences(self) -> list[str]:
        """One line per position where the page and the library disagree ([] when they match)."""
        from itertools import zip_longest

        lines = []
        page = [(name, id_, content) for name, id_, content in self.example.printed]
        for i, (printed, message) in enumerate(zip_longest(page, self.library)):
            returned = None if message is None else as_printed(message)
            if printed != returned:
                page_text = _("nothing") if printed is None else page_style(printed)
                library_text = _("nothing") if message is None else page_style(message)
                lines.append(_("position {i}: the page prints {page}; the library returns {library}")
                             .format(i=i, page=page_text, library=library_text))
        return lines


def compare_reference_examples() -> list[ReferenceComparison]:
    """Run the page's seven calls against the installed ``trim_messages`` and compare each output.

    >>> [c.example.number for c in compare_reference_examples() if not c.matches]
    [5, 6]
    """
    return [ReferenceComparison(example, example.run()) for example in REFERENCE_EXAMPLES]
