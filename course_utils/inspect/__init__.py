"""Inspect your own conversation: ``python -m course_utils.inspect SOURCE --model NAME --budget N``.

What the course shows about its samples, for a thread of your own: the
growth per model call, where it crosses your model's context window, which
messages ``trim_messages`` keeps at your budget and why, and what each call
costs with and without prompt caching. SOURCE is a chat export (OpenAI- or
Anthropic-style JSON or JSONL, or a LangChain message dump) or a LangGraph
checkpointer database (a SQLite file or a ``postgresql://`` URL) with
``--thread ID``. Run it with ``--help`` for the options and exit codes.

- :mod:`course_utils.inspect.analysis` computes (:func:`inspect_messages`);
- :mod:`course_utils.inspect.media` counts images and files by each provider's published rule;
- :mod:`course_utils.inspect.report` writes the summary and the HTML report;
- :mod:`course_utils.inspect.cli` is the command.

In a notebook, load with :func:`course_utils.agentic.conversations.load_messages`
and pass the messages to ``TrimExplorer`` or ``GrowthExplorer``.
"""

from course_utils.inspect.analysis import CallCost, CostTotals, Inspection, inspect_messages

__all__ = ["CallCost", "CostTotals", "Inspection", "inspect_messages"]
