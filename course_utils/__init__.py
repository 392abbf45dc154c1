"""Helper package for the course *Context Window Management with LangChain and LangGraph*.

One module per concept, named after the lesson that uses it.

Computing (results as dataclasses and plain values; never imports a picture module):

- ``tokens``: counting tokens (approximate, exact offline tokenizers, the reference page's dummy);
- ``vocab``: the exact tokenizers' vocabularies offline, each verified against its publisher's SHA-256;
- ``calibration``: the approximate counter's error per language and the safety margin M (lesson 01b);
- ``budget``: token budgets, H = L - S - U - R, worked step by step (lesson 02);
- ``growth``: replaying a conversation call by call, with or without a trim (lesson 01);
- ``sequences``: which message sequences a chat API accepts (a tool result needs its call);
- ``trimming``: ``explain_trim``, the real ``trim_messages`` explained row by row (lesson 03);
- ``reference_page``: the trim_messages reference page's seven examples, run against the library;
- ``chat``: the offline chat model (and ``get_chat_model`` for a real one);
- ``facts``: the facts a user tells the offline model, read from plain text;
- ``summaries``: how the offline model writes and extends a summary, and what it loses (lesson 04b);
- ``graphs``: LangGraph chatbots that trim (lesson 04) or summarise (lesson 04b);
- ``checkpoints``: a SQLite or PostgreSQL checkpointer from one setting, and erasing a thread for real;
- ``thresholds``: model limits and suggested thresholds by task (lesson 05);
- ``models``: models' limits, tokenizer families and prices from ``data/models.json``, dated and sourced;
- ``costs``: what a provider bills: input, output and prompt caching (lesson 05);
- ``retention``: retention strategies replayed side by side (with the fact questions asked at the end), what each remembers and sends (lesson 05);
- ``samples``: the sample conversations in ``data/``;
- ``tool_calling``: how the offline model picks tools, reads their arguments and answers from results (lesson 06);
- ``agent_tools``: lesson 06's offline tools (forecast, web search, file reader) over ``data/agent/``;
- ``agents``: running a task through an agent and measuring what each model call was sent (lesson 06);
- ``agent_strategies``: lesson 06's strategies rebuilt and run in one call, for any chat model (lesson 06b).

Pictures (take computed results, compute nothing): ``render`` (HTML and text
tables), ``plots`` (matplotlib figures), ``widgets`` (ipywidgets), all in the
colours and fonts of ``style``; ``agent_views`` draws lesson 06's agent runs;
``token_view`` is lesson 01b's token visualiser;
``a11y`` gives them what a screen reader needs (a text's language and direction,
names for slider handles).

Exercises and tools: ``checks`` (exercise feedback), ``grade`` (grading a
folder of submissions: ``python -m course_utils.grade``), ``netguard`` (the one
network guard used by the tests, the scripts and graded kernels).

``tests/test_architecture.py`` keeps this shape: no import circles, computing
never imports pictures, no module over about 700 lines.

The word "check" has one meaning per place:

- an *argument check* is a ``check_*`` function (``_args.check_int``,
  ``tokens.check_messages``, ...): it returns a valid argument or raises
  TypeError / ValueError naming the parameter;
- an *exercise check* is a question's ``qN.check(answer)`` in ``checks``,
  which returns a ``CheckResult`` (correct, wrong, not attempted, error);
- a *check cell* is the notebook cell that calls ``qN.check(...)``; when
  grading, ``grade`` puts the teacher's own call in its place and counts only
  what its grading cells report;
- *Check yourself* is a lesson's closing questions, answered in prose.
"""

__version__ = "0.1.0"
