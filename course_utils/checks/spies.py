"""Which library functions a learner's function calls while a check runs it: rules a question states.

A question may say *how* to do it: "without calling ``trim_messages``"
(exercise 03 q2), "count with ``exact_counter``" (exercise 06 q2). A check
enforces that by running the learner's function inside :func:`watching`,
which, for that call only, puts recording stand-ins in place of
``trim_messages`` and the token counters: under every name the learner's
module binds them to (``from ... import trim_messages as tm`` included) and
in the modules they come from. Each stand-in notes the call and calls the
real function, so the answer is computed as usual. Everything is put back
when the call ends, whatever happens.

:func:`names_called` reads the source instead, for calls the test inputs
never reach.

>>> from langchain_core.messages import HumanMessage, trim_messages
>>> def keep_all(messages):
...     return trim_messages(messages, max_tokens=100, token_counter=len)
>>> with watching(keep_all) as seen:
...     _ = keep_all([HumanMessage("hi")])
>>> seen.trim_calls, sorted(names_called(keep_all))
(1, ['trim_messages'])
"""

from __future__ import annotations

import ast
import contextlib
import functools
import inspect
import sys
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Seen:
    """What the watched function called: ``trim_messages`` calls and the counters it counted with."""

    trim_calls: int = 0
    counters: list[str] = field(default_factory=list)  #: "exact", "approximate" or "other", in call order

    @property
    def approximate(self) -> bool:
        return "approximate" in self.counters


def _originals() -> dict[str, Any]:
    from langchain_core.messages import trim_messages
    from langchain_core.messages.utils import count_tokens_approximately

    from course_utils.window import tokens

    return {"trim_messages": trim_messages, "count_tokens_approximately": count_tokens_approximately,
            "approximate_counter": tokens.approximate_counter, "exact_counter": tokens.exact_counter}


def _kind(counter: Any, spies: dict[str, Any], originals: dict[str, Any]) -> str:
    counter = getattr(counter, "func", counter)  # functools.partial
    if counter == "approximate" or any(counter is x for x in (
            originals["count_tokens_approximately"], originals["approximate_counter"],
            spies["count_tokens_approximately"], spies["approximate_counter"])):
        return "approximate"
    if counter == "exact" or counter is originals["exact_counter"] or counter is spies["exact_counter"]:
        return "exact"
    return "other"


@contextlib.contextmanager
def watching(fn: Callable) -> Iterator[Seen]:
    """Record, while the block runs, the calls ``fn`` makes to ``trim_messages`` and the token counters."""
    seen = Seen()
    originals = _originals()
    spies: dict[str, Any] = {}

    def counter_spy(name: str, kind: str) -> Callable:
        real = originals[name]

        @functools.wraps(real)
        def spy(*args: Any, **kwargs: Any) -> Any:
            seen.counters.append(kind)
            return real(*args, **kwargs)

        return spy

    spies["count_tokens_approximately"] = counter_spy("count_tokens_approximately", "approximate")
    spies["approximate_counter"] = counter_spy("approximate_counter", "approximate")
    spies["exact_counter"] = counter_spy("exact_counter", "exact")

    @functools.wraps(originals["trim_messages"])
    def trim_spy(*args: Any, **kwargs: Any) -> Any:
        seen.trim_calls += 1
        if "token_counter" in kwargs:
            seen.counters.append(_kind(kwargs["token_counter"], spies, originals))
        return originals["trim_messages"](*args, **kwargs)

    spies["trim_messages"] = trim_spy
    by_identity = {id(originals[name]): spies[name] for name in originals}
    namespaces = [getattr(fn, "__globals__", None)]
    for module_name, attribute in (("langchain_core.messages", "trim_messages"),
                                   ("langchain_core.messages.utils", "trim_messages"),
                                   ("langchain_core.messages.utils", "count_tokens_approximately"),
                                   ("course_utils.window.tokens", "approximate_counter"),
                                   ("course_utils.window.tokens", "exact_counter")):
        module = sys.modules.get(module_name)
        if module is not None:
            namespaces.append(vars(module))
    saved: list[tuple[dict, str, Any]] = []
    try:
        for namespace in namespaces:
            if not isinstance(namespace, dict):
                continue
            for name, value in list(namespace.items()):
                spy = by_identity.get(id(value))
                if spy is not None:
                    saved.append((namespace, name, value))
                    namespace[name] = spy
        yield seen
    finally:
        for namespace, name, value in reversed(saved):
            namespace[name] = value


def names_called(fn: Callable) -> set[str]:
    """The names a function's source calls (``f(...)`` and ``x.f(...)`` both give "f"); empty without source."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError, IndentationError):
        return set()
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name):
                names.add(node.func.id)
            elif isinstance(node.func, ast.Attribute):
                names.add(node.func.attr)
    return names
