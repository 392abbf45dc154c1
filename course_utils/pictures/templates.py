"""The course's HTML templates: one Jinja2 environment, one function, every view module uses it.

The pictures of the lessons (trim tables, budget bars, feedback boxes, ...)
are Jinja2 templates in ``course_utils/templates/*.html.j2``; the Python
view functions decide *what* to show and pass plain values, the templates
hold the markup. Two conventions keep the stored notebook outputs exactly as
they were when the HTML was built with f-strings:

- **Escaping.** Autoescape is on (MarkupSafe's fast escape); the rendered
  text then spells the two quote references the way :func:`html.escape` does
  (``&#34;`` becomes ``&quot;``, ``&#39;`` becomes ``&#x27;``: the same
  characters, so a browser reads no difference), and a message with ``"`` or
  ``'`` gives the same bytes as before. A fragment another view already
  rendered is passed as :class:`markupsafe.Markup` and is inserted as it is.
- **Language.** Words in a template are written ``{{ _("kept") }}`` (Jinja2's
  i18n extension, bound to :func:`course_utils.core.i18n.translate`): English
  unless another language is chosen. ``{{ LANG() }}`` gives a picture's outer
  element its ``lang`` and ``dir`` then (nothing in English, so English
  outputs are unchanged); inside such an element ``{{ LTR() }}`` keeps code
  left to right and ``{{ AUTO() }}`` lets a caller's own text (a title)
  find its direction.
- **One line.** The HTML the course stores is one line per picture. In a
  ``.html.j2`` template a line break and the indentation after it are
  dropped, so a template can be laid out on many readable lines. A space
  that must stay between two lines is written ``{{ " " }}``; a Jinja tag
  must not be broken across lines.

>>> render_template("error.html.j2", text="a < b", hint=None, accent="#b00", background="#fee")[:38]
'<div class="course-error" role="alert"'
"""

from __future__ import annotations

import functools
import html
import re
from typing import Any

import jinja2
from jinja2.ext import Extension
from markupsafe import Markup

from course_utils.core import i18n, style

__all__ = ["Markup", "environment", "escape", "render_template"]

_LINE_BREAK = re.compile(r"\n[ \t]*")


def escape(value: Any) -> Markup:
    """``html.escape`` (quotes too), marked safe so Jinja2 does not escape it again; Markup passes through.

    >>> str(escape("\\"<b>'")), str(escape(Markup("<b>")))
    ('&quot;&lt;b&gt;&#x27;', '<b>')
    """
    if isinstance(value, Markup) or hasattr(value, "__html__"):
        return Markup(value.__html__())
    return Markup(html.escape(str(value)))


class JoinLines(Extension):
    """Drop each line break of a ``.html.j2`` template and the indentation after it (see the module doc)."""

    def preprocess(self, source: str, name: str | None, filename: str | None = None) -> str:
        if name is not None and name.endswith(".html.j2"):
            return _LINE_BREAK.sub("", source)
        return source


@functools.lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The one Jinja2 environment of the view modules (templates from ``course_utils/templates``)."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("course_utils", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        extensions=[JoinLines, "jinja2.ext.i18n"],
    )
    # Looked up when a template renders, so a language chosen later is the one used.
    env.install_gettext_callables(gettext=i18n.translate, ngettext=i18n.ngettext, newstyle=True,
                                  pgettext=lambda context, message: i18n.translate(message, context))
    env.globals["LANG"] = lambda: Markup(i18n.html_language())
    # Inside a right-to-left picture: code keeps left to right, a caller's own text finds its direction.
    env.globals["LTR"] = lambda: Markup(' dir="ltr"' if i18n.direction() == "rtl" else "")
    env.globals["AUTO"] = lambda: Markup(' dir="auto"' if i18n.direction() == "rtl" else "")
    env.filters["h"] = escape
    # The course's style constants are trusted CSS (FONT holds quotes): inserted as they are.
    env.globals.update(FONT=Markup(style.FONT), MONO=Markup(style.MONO), NEUTRAL=Markup(style.NEUTRAL),
                       MUTED_TEXT=Markup(style.MUTED_TEXT))
    return env


@functools.lru_cache(maxsize=None)
def _template(name: str) -> jinja2.Template:
    return environment().get_template(name)


def render_template(template: str, /, **values: Any) -> str:
    """Render ``course_utils/templates/<template>`` with ``values`` into a plain ``str``.

    A plain ``str``, not ``Markup``: a caller may concatenate it with other
    HTML (``Markup + str`` would escape the str). To put one rendered
    fragment inside another template, pass it as ``Markup(fragment)``.

    >>> "a &lt; b" in render_template("error.html.j2", text="a < b", hint=None, accent="#b00", background="#fee")
    True
    """
    text = _template(template).render(**values)
    # MarkupSafe writes a quote as &#34; / &#39;, html.escape (the course's stored outputs) as &quot; / &#x27;.
    # Neither reference can come from escaped text (its "&" became "&amp;"), nor from a template.
    return text.replace("&#34;", "&quot;").replace("&#39;", "&#x27;")
