"""The token visualiser of lesson 01: a text cut into tokens by two tokenizers, side by side.

:class:`TokenView` is an ``ipywidgets.VBox``: pick a sample (the English,
Persian and Chinese versions of the course's travel dialogue) or type your
own text, choose a tokenizer for each side, and see the text cut into
tokens in alternating colours with the count. Each token is focusable and
shows its id on hover or keyboard focus; a token that holds only part of a
character's UTF-8 bytes is drawn dashed, as the bytes it is.

Results live in traitlets (``text``, ``language``, ``splits``, ``counts``,
``error``) and in ``output.value``, so a test can drive it without a
browser::

    view = TokenView(sample="fa")
    view.right.value = "llama3"
    view.counts            # {'cl100k_base': ..., 'llama3': ...}

The splitting is :func:`course_utils.window.tokens.split_tokens`; the HTML is
:func:`course_utils.pictures.render.token_comparison_html`.
"""

from __future__ import annotations

import unicodedata

import ipywidgets as widgets
import traitlets

from course_utils.pictures import render
from course_utils.core.args import check_choice, check_text
from course_utils.core.i18n import translate
from course_utils.core.samples import load_conversation
from course_utils.pictures.templates import Markup, render_template
from course_utils.window.tokens import ENCODING_NAMES, split_tokens
from course_utils.pictures.widgets import LABEL_STYLE, WIDE, StaticHtmlMixin

#: The sample texts: the first question of the travel dialogue in each language.
SAMPLE_LANGUAGES = (("English", "en"), ("Persian", "fa"), ("Chinese", "zh"))
OWN_TEXT = "own"
#: Longer texts are refused in place (thousands of focusable tokens help nobody).
MAX_CHARS = 4000


def sample_text(language: str) -> str:
    """The sample sentence of ``language`` ("en", "fa" or "zh"): the dialogue's first question.

    >>> sample_text("en").startswith("Hi!")
    True
    """
    check_choice(language, "language", [code for _, code in SAMPLE_LANGUAGES])
    return load_conversation(f"dialogue_{language}")[1].text


def guess_language(text: str) -> str:
    """"fa" if the text has Arabic-script letters, "zh" if it has CJK ideographs, else "en".

    Only used to lay out the text (direction, ``lang``), never to count.

    >>> guess_language("سلام"), guess_language("你好"), guess_language("hello")
    ('fa', 'zh', 'en')
    """
    check_text(text, "text")
    for char in text:
        name = unicodedata.name(char, "")
        if name.startswith(("ARABIC", "PERSIAN")):
            return "fa"
        if name.startswith("CJK"):
            return "zh"
    return "en"


class TokenView(StaticHtmlMixin, widgets.VBox):
    """Type or pick a text, choose two tokenizers, and see the text cut into tokens by each.

    >>> view = TokenView(sample="en", left="cl100k_base", right="o200k_base")
    >>> view.language, sorted(view.counts) == ["cl100k_base", "o200k_base"]
    ('en', True)
    """

    text = traitlets.Unicode("")
    language = traitlets.Unicode("en")
    splits = traitlets.List()
    counts = traitlets.Dict()
    error = traitlets.Unicode("")

    def __init__(self, sample: str = "fa", left: str = "cl100k_base", right: str = "o200k_base", *, text: str | None = None):
        sample = check_choice(sample, "sample", [code for _, code in SAMPLE_LANGUAGES] + [OWN_TEXT])
        left = check_choice(left, "left", ENCODING_NAMES)
        right = check_choice(right, "right", ENCODING_NAMES)
        check_text(text, "text", none_ok=True)
        if sample == OWN_TEXT and text is None:
            raise ValueError("text must be given when sample='own', got None")
        initial = text if text is not None else sample_text(sample)

        self.sample = widgets.Dropdown(
            options=[*((translate(label, "sample language"), code) for label, code in SAMPLE_LANGUAGES),
                     (translate("your own text"), OWN_TEXT)],
            value=sample if text is None else OWN_TEXT,
            description=translate("sample", "token view"),
            style=LABEL_STYLE,
        )
        self.sample.add_class("token-sample")
        self.text_box = widgets.Textarea(
            value=initial, description=translate("text", "token view"), style=LABEL_STYLE, layout=widgets.Layout(width="98%", height="5em"),
            continuous_update=False,
        )
        self.text_box.add_class("token-text")
        self.left = widgets.Dropdown(options=list(ENCODING_NAMES), value=left, description=translate("left tokenizer"), style=LABEL_STYLE)
        self.left.add_class("token-left")
        self.right = widgets.Dropdown(options=list(ENCODING_NAMES), value=right, description=translate("right tokenizer"), style=LABEL_STYLE)
        self.right.add_class("token-right")
        self.output = widgets.HTML(layout=WIDE)
        self.output.add_class("token-output")
        controls = widgets.HBox([self.sample, self.left, self.right], layout=widgets.Layout(flex_flow="row wrap"))
        super().__init__(children=[controls, self.text_box, self.output])
        self.add_class("token-view")
        self.sample.observe(self._on_sample, names="value")
        self.text_box.observe(self._on_text, names="value")
        for control in (self.left, self.right):
            control.observe(self._on_tokenizer, names="value")
        self.update()

    def _on_sample(self, change: dict) -> None:
        if change["new"] == OWN_TEXT:
            return
        text = sample_text(change["new"])
        if self.text_box.value == text:
            self.update()  # same text, new layout language
        else:
            self.text_box.value = text  # updates through _on_text

    def _on_text(self, change: dict) -> None:
        samples = {sample_text(code): code for _, code in SAMPLE_LANGUAGES}
        self.sample.value = samples.get(change["new"], OWN_TEXT)
        self.update()

    def _on_tokenizer(self, change: dict) -> None:
        self.update()

    def update(self) -> None:
        """Cut the text again with both tokenizers and redraw."""
        text = self.text_box.value
        if len(text) > MAX_CHARS:
            self.error = translate("text is {length:,} characters long; the visualiser shows at most {most:,}").format(
                length=len(text), most=MAX_CHARS)
            self.splits, self.counts = [], {}
            self.output.value = render.error_html(self.error, hint=translate("Shorten the text, or pick a sample."))
            return
        self.error = ""
        self.text = text
        self.language = self.sample.value if self.sample.value != OWN_TEXT else guess_language(text)
        if self.language == "fa":  # the text box too is written right to left (render's CSS)
            self.text_box.add_class("token-text-rtl")
        else:
            self.text_box.remove_class("token-text-rtl")
        splits = [split_tokens(text, self.left.value), split_tokens(text, self.right.value)]
        self.splits = splits
        self.counts = {split.encoding: split.count for split in splits}
        self.output.value = render.token_comparison_html(splits, lang=self.language)

    def static_html(self) -> str:
        """The same picture with inline styles only (no ``<style>``), for GitHub and nbconvert."""
        if self.error or not self.splits:
            shown = self.output.value
        else:
            shown = render.token_comparison_html(self.splits, lang=self.language, live=False)
        return render_template("widget_static.html.j2", css_class="token-view-static", title=None, parts=[Markup(shown)])

    def __repr__(self) -> str:
        counts = ", ".join(
            f"{split.encoding}: {split.count} tokens" + ("" if split.exact else " (approximate)") for split in self.splits
        )
        return f"TokenView(sample={self.sample.value!r}, {len(self.text)} characters): {counts or self.error}"
