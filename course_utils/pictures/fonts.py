"""The Persian edition's printed text in a font that has Persian letters.

JupyterLab shows what a cell prints in a ``<pre>`` in its code font. Where
that font is DejaVu Sans Mono (Menlo and Consolas missing, as on Debian), it
has Persian letters but draws each one a cell wide: Persian words come out
stretched, and the half-space is lost. The Persian edition's first code cell
(``scripts/make_persian_edition.py`` writes it) shows :func:`persian_output_style`,
a ``<style>`` giving that notebook's printed text
:data:`course_utils.core.style.PERSIAN_MONO`: Vazir Code where it is
installed, else a Persian text font the machine has for the Persian letters
only (:data:`~course_utils.core.style.PERSIAN_FACE`, scaled so a letter takes
about a code-font cell and the text tables' Persian headers stay over their
columns), and the usual code font for everything else. Nothing is downloaded.

JupyterLab keeps a ``<style>`` only in an output it trusts: one made in this
session. So the font applies once that first cell has run (Run All, or
running the lesson from the top); a notebook just opened shows its stored
outputs in the code font until then. ``tests/test_browser_persian.py`` checks
the computed font and the font Chromium draws the letters with.

>>> html = persian_output_style()
>>> html.startswith('<div class="course-persian-output-font"'), "unicode-range:U+0600-06FF" in html
(True, True)
>>> "&#x27;" in html  # a <style> is raw text: its quotes must stay quotes
False
"""

from __future__ import annotations

from markupsafe import Markup

from course_utils.core import style
from course_utils.pictures.templates import render_template

__all__ = ["persian_output_style", "show_persian_output_font"]


def persian_output_style() -> str:
    """The HTML (a hidden ``<div>`` holding a ``<style>``) that sets the notebook's printed text in PERSIAN_MONO."""
    return render_template("persian_output_font.html.j2", face=Markup(style.PERSIAN_FACE),
                           family=Markup(style.PERSIAN_MONO))


def show_persian_output_font() -> None:
    """Display :func:`persian_output_style` in the running notebook (the Persian edition's first code cell)."""
    from IPython.display import HTML, display

    display(HTML(persian_output_style()))
