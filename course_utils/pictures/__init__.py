"""Layer 4, pictures: they take computed results and draw them, computing nothing themselves.

All HTML comes from the Jinja2 templates in ``course_utils/templates/``; all
colours and fonts from :mod:`course_utils.core.style`.

- ``templates``: the one Jinja2 environment (autoescape) every view uses;
- ``render``: HTML and text tables of budgets, growth, limits;
- ``trim_view``: the trim table, row by row, with its bars;
- ``plots``: matplotlib figures, each with its text alternative;
- ``widgets``: the ipywidgets explorers (they wire controls to computations);
- ``token_view``: lesson 01b's token visualiser;
- ``agent_views``: lesson 06's agent runs;
- ``memory_views``: lesson 07's figures;
- ``isolation_views``: lesson 07b's figures;
- ``fonts``: the Persian edition's printed text in a font with Persian letters;
- ``a11y``: what a screen reader needs (a text's language and direction, names for slider handles).
"""
