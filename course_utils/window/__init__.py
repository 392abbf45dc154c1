"""Layer 1, the window's arithmetic: counting tokens, budgets, trimming, limits and prices.

Everything here is a pure computation on messages and numbers; it knows
nothing of the offline model, of graphs or of pictures.

- ``tokens``: counting tokens (approximate, exact offline tokenizers, the reference page's dummy);
- ``vocab``: the exact tokenizers' vocabularies offline, each verified against its publisher's SHA-256;
- ``calibration``: the approximate counter's error per language and the safety margin M (lesson 01b);
- ``budget``: token budgets, H = L - S - U - R, worked step by step (lesson 02);
- ``growth``: replaying a conversation call by call, with or without a trim (lesson 01);
- ``sequences``: which message sequences a chat API accepts (a tool result needs its call);
- ``trimming``: ``explain_trim``, the real ``trim_messages`` explained row by row (lesson 03);
- ``reference_page``: the trim_messages reference page's seven examples, run against the library;
- ``models``: models' limits, tokenizer families and prices from ``data/models.json``, dated and sourced;
- ``costs``: what a provider bills: input, output and prompt caching (lesson 05b);
- ``thresholds``: model limits and suggested thresholds by task (lesson 05);
- ``memory_costs``: what remembering costs per call, in the history or in a store (lesson 07).
"""
