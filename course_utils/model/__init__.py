"""Layer 2, the offline chat model: how it reads a conversation and what it answers.

- ``chat``: the offline chat model (and ``get_chat_model`` for a real one);
- ``facts``: the facts a user tells the model, read from plain text;
- ``fact_replies``: answers to questions about those facts, in English, Chinese and Persian;
- ``choice_replies``: answers to a request to choose from a list (lesson 07b);
- ``summaries``: how the model writes and extends a summary, and what it loses (lesson 04b);
- ``summary_sentences``: the sentences a summary states facts in, English and Persian, and reading the Persian ones back;
- ``tool_calling``: how the model picks tools and answers from their results (lesson 06);
- ``tool_arguments``: how it reads a tool call's arguments from a request;
- ``provider_emulation``: the providers' servers emulated behind the real request shape: compaction, context editing, state held by id (lesson 08).
"""
