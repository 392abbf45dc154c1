"""Helper package for the course *Context Window Management with LangChain and LangGraph*.

One module per concept, named after the lesson that uses it:
``tokens`` (counting), ``budget`` (token budgets), ``growth`` (history growth),
``trimming`` (``explain_trim``), ``chat`` (the offline chat model),
``graphs`` (LangGraph chatbots), ``render`` / ``plots`` / ``widgets`` (pictures),
``checks`` (exercise feedback), ``samples`` (the sample conversations),
``a11y`` (a text's language, names for slider handles: for screen readers).
"""

__version__ = "0.1.0"
