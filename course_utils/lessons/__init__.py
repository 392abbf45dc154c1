"""Code saved from the lessons: the graphs, nodes, middleware and tools a lesson writes in its cells.

Layer 5 of ``course_utils`` (after ``agentic``, before ``pictures``). Nothing
here is written by hand: ``scripts/save_lessons.py`` copies each lesson's
cells marked ``#@save`` into ``lessonNN.py`` (d2l's ``#@save``), and
``tests/test_saved_lessons.py`` fails when a module differs from its lesson.
A later lesson, an exercise check or a widget imports the code from here,
so the lesson that teaches it stays its one source.

Modules: one ``lessonNN`` per lesson that saves code.

- ``lesson04``: the trimming chatbot (``build_trimming_chatbot``) and ``chat``, one turn on a thread (lesson 04);
- ``lesson04b``: the how-to's summarising chatbot (``State``, ``build_summarizing_chatbot``), and erasing a thread for real (``erase_thread``, ``restart_from_summary``) (lesson 04b).
- ``lesson07``: the memory tools (``UserContext``, ``save_memory``, ``recall_memory``,
  ``memory_agent``) and the offloading middleware (``offload_large_results``, ``read_result``).
- ``lesson07b``: the research sub-agent called as a tool (``research_agents``) and the single
  agent it is measured against (``single_agent``).
- ``lesson06``: lesson 06's travel agent: its ``@tool`` functions, prompts, ``new_model`` and
  ``trip_agent`` (``create_agent``), used by lesson 06b.
"""
