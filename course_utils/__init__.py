"""Helper package for the course *Context Window Management with LangChain and LangGraph*.

One module per concept, named after the lesson that uses it, in layers.
Each layer is a package; a module may import from its own layer and the
layers before it, never from a later one (``tests/test_architecture.py``
reads the imports and fails on an upward one, on a circle, and on a module
over 700 lines):

1. ``core``: argument checks, the language switch, the palette, the sample data, the network guard;
2. ``window``: the window's arithmetic: tokens, budgets, growth, trimming, models' limits and prices;
3. ``model``: the offline chat model: facts, summaries, tool calls;
4. ``agentic``: LangGraph graphs, checkpointers, agents, memory, sub-agents;
5. ``lessons``: code a lesson writes in its cells and marks ``#@save``, copied by ``scripts/save_lessons.py``;
6. ``pictures``: HTML tables, figures and widgets (they draw results, computing nothing);
7. ``checks``: exercise feedback; ``inspect``: ``python -m course_utils.inspect``, your own conversation;
   ``grade``: grading a folder of submissions (``python -m course_utils.grade``).

Each layer's ``__init__`` lists its modules. A lesson imports a name from its
module, e.g. ``from course_utils.window.tokens import count_tokens``.

The word "check" has one meaning per place:

- an *argument check* is a ``check_*`` function (``core.args.check_int``,
  ``window.tokens.check_messages``, ...): it returns a valid argument or raises
  TypeError / ValueError naming the parameter;
- an *exercise check* is a question's ``qN.check(answer)`` in ``checks``,
  which returns a ``CheckResult`` (correct, wrong, not attempted, error);
- a *check cell* is the notebook cell that calls ``qN.check(...)``; when
  grading, ``grade`` puts the teacher's own call in its place and counts only
  what its grading cells report;
- *Check yourself* is a lesson's closing questions, answered in prose.
"""

__version__ = "0.1.0"

#: The layers, lowest first: a module never imports from a layer after its own.
LAYERS = ("core", "window", "model", "agentic", "lessons", "pictures", "checks", "inspect", "grade")
