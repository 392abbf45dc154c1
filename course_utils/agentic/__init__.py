"""Layer 3, graphs, agents and memory: LangGraph and LangChain running on the model.

- ``graphs``: LangGraph chatbots that trim (lesson 04) or summarise (lesson 04b);
- ``checkpoints``: a SQLite or PostgreSQL checkpointer from one setting, and erasing a thread for real;
- ``retention``: retention strategies replayed side by side, what each remembers and sends (lesson 05);
- ``agents``: running a task through an agent and measuring what each model call was sent (lesson 06);
- ``agent_tools``: lesson 06's offline tools (forecast, web search, file reader) over ``data/agent/``;
- ``agent_strategies``: lesson 06's strategies rebuilt and run in one call, for any chat model (lesson 06b);
- ``memory``: long-term memory in a LangGraph Store, facts that outlive a thread (lesson 07);
- ``offload``: a tool result too large for the window goes to the store, the window keeps a pointer (lesson 07);
- ``call_accounting``: every model call of a run counted, per agent (lesson 07b);
- ``subagents``: a research sub-agent called as a tool, in its own window (lesson 07b);
- ``tool_catalogue``: many offline tools for one agent, to measure what their schemas cost (lesson 07b);
- ``tool_selection``: sending each call only the tools it needs, measured (lesson 07b);
- ``conversations``: your own conversation, loaded from a chat export, an agent's run or a checkpointer thread (appendix A1);
  its parts: ``conversation_records`` (message records and the loader's error), ``conversation_files`` (which shape
  a file is), ``chat_exports`` (ChatGPT's and Claude.ai's exports), ``api_shapes`` (Responses items, Gemini, ShareGPT).
"""
