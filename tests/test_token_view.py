"""The token visualiser (lesson 01): splitting into pieces, its HTML, and the widget's state, without a browser."""

import re

import pytest

from course_utils.pictures import render
from course_utils.window import tokens
from course_utils.window import vocab
from course_utils.pictures.render import token_comparison_html, token_split_html
from course_utils.pictures.token_view import MAX_CHARS, TokenView, guess_language, sample_text
from course_utils.window.tokens import count_text_tokens, split_tokens


@pytest.mark.parametrize("encoding", ["cl100k_base", "o200k_base", "llama3"])
@pytest.mark.parametrize("language", ["en", "fa", "zh"])
def test_pieces_rebuild_the_text_and_match_the_count(encoding, language):
    text = sample_text(language)
    split = split_tokens(text, encoding)
    assert split.exact and split.count == count_text_tokens(text, encoding) == len(split.pieces)
    assert b"".join(p.data for p in split.pieces).decode("utf-8") == text
    for piece in split.pieces:
        if piece.whole:
            assert piece.label == piece.text == piece.chars
        else:  # part of a character: the bytes in hex, and the whole character(s) they belong to
            assert piece.text is None
            assert bytes.fromhex(piece.label) == piece.data and piece.chars in text
            assert piece.data in piece.chars.encode("utf-8")


def test_cl100k_cuts_persian_and_chinese_characters_into_bytes_and_o200k_less():
    for language in ("fa", "zh"):
        text = sample_text(language)
        cl100k, o200k = split_tokens(text, "cl100k_base"), split_tokens(text, "o200k_base")
        assert o200k.count < cl100k.count, language
        assert cl100k.partial > o200k.partial >= 0, language
    chinese = split_tokens("天气", "cl100k_base")  # 气 is 3 bytes that cl100k has no single token for
    assert [p.chars for p in chinese.pieces if not p.whole] == ["气", "气"]


def test_unavailable_tokenizer_gives_a_note_and_the_approximate_count(monkeypatch):
    unavailable = tokens.TokenizerStatus(False, "approximate", "Exact llama3 counting unavailable (test).")
    monkeypatch.setattr(vocab, "_load_named_encoding", lambda encoding: (None, unavailable))
    split = split_tokens("hello world", "llama3")
    assert not split.exact and split.pieces == () and split.count == count_text_tokens("hello world", "approximate")
    html = token_split_html(split)
    assert "unavailable (test)" in html and "approximate" in html and 'role="listitem"' not in html
    view = TokenView(sample="en", left="o200k_base", right="llama3")
    assert "unavailable (test)" in view.output.value
    assert "(approximate)" in repr(view)


def test_html_names_every_token_and_lays_out_persian_right_to_left():
    split = split_tokens(sample_text("fa"), "cl100k_base")
    html = token_split_html(split, lang="fa")
    assert 'lang="fa" dir="rtl"' in html
    items = re.findall(r'<span class="cu-token" role="listitem" tabindex="0" data-id="(\d+)"[^>]*aria-label="([^"]+)"', html)
    assert [int(i) for i, _ in items] == split.ids
    assert all(f"id {i}" in label for i, label in items)
    assert f"{split.count} tokens" in html
    assert "of the character" in html  # a partial token is named as bytes of its character
    zh = token_split_html(split_tokens(sample_text("zh"), "o200k_base"), lang="zh")
    assert 'lang="zh"' in zh and "天" in zh  # real characters, not escapes
    escaped = token_split_html(split_tokens("<b>x</b>", "o200k_base"))
    assert "&lt;" in escaped and "<b>" not in escaped


def test_comparison_shows_both_and_explains_the_dashed_boxes():
    text = sample_text("zh")
    html = token_comparison_html([split_tokens(text, "cl100k_base"), split_tokens(text, "o200k_base")], lang="zh")
    assert html.count('class="cu-token-split"') == 2 and "UTF-8 bytes" in html and "<style>" in html
    with pytest.raises(ValueError, match="splits must hold"):
        token_comparison_html([])


def test_render_arguments_are_checked():
    with pytest.raises(TypeError, match="split must be"):
        token_split_html("hello")
    with pytest.raises(ValueError, match="lang must be one of"):
        token_split_html(split_tokens("a", "o200k_base"), lang="de")
    with pytest.raises(ValueError, match="encoding must be one of"):
        split_tokens("a", "gpt2")
    with pytest.raises(TypeError, match="text must be a str"):
        split_tokens(None)


# --- the widget ---------------------------------------------------------------------------


def test_widget_starts_on_persian_with_both_counts():
    view = TokenView()
    text = sample_text("fa")
    assert view.text == text and view.language == "fa"
    assert view.counts == {"cl100k_base": count_text_tokens(text, "cl100k_base"), "o200k_base": count_text_tokens(text, "o200k_base")}
    assert 'lang="fa" dir="rtl"' in view.output.value
    assert view.static_html().count('role="listitem"') == sum(view.counts.values())
    assert repr(view).startswith("TokenView(sample='fa'")


def test_widget_follows_its_controls():
    view = TokenView(sample="en")
    view.sample.value = "zh"
    assert view.text == sample_text("zh") and view.language == "zh"
    view.right.value = "llama3"
    assert set(view.counts) == {"cl100k_base", "llama3"}
    assert view.counts["llama3"] == count_text_tokens(sample_text("zh"), "llama3")
    view.text_box.value = "سلام دنیا"  # typing switches the sample to "your own text" and the layout to Persian
    assert view.sample.value == "own" and view.language == "fa" and view.text == "سلام دنیا"
    view.text_box.value = sample_text("en")  # typing a sample's text selects that sample
    assert view.sample.value == "en" and view.language == "en"


def test_widget_refuses_a_huge_text_in_place_and_recovers():
    view = TokenView(sample="en")
    view.text_box.value = "x" * (MAX_CHARS + 1)
    assert "at most" in view.error and "course-error" in view.output.value and view.counts == {}
    view.sample.value = "fa"
    assert view.error == "" and view.counts


def test_widget_arguments_are_checked():
    with pytest.raises(ValueError, match="sample must be one of"):
        TokenView(sample="de")
    with pytest.raises(ValueError, match="left must be one of"):
        TokenView(left="gpt2")
    with pytest.raises(ValueError, match="text must be given"):
        TokenView(sample="own")
    with pytest.raises(TypeError, match="text must be a str"):
        TokenView(text=5)
    view = TokenView(sample="own", text="你好")
    assert view.language == "zh" and view.sample.value == "own"


def test_guess_language():
    assert guess_language(sample_text("fa")) == "fa"
    assert guess_language(sample_text("zh")) == "zh"
    assert guess_language(sample_text("en")) == "en"
    assert render.TEXT_DIRECTION["fa"] == ' lang="fa" dir="rtl"'


# --- exercise 01, question 5: a prediction checked against the real counts --------------------


def test_exercise_prediction_question_checks_against_real_counts(monkeypatch):
    from course_utils import checks
    from course_utils.checks import ex01

    monkeypatch.setattr(checks.settings, "strict", False)  # wrong answers are results here, not errors

    q5 = ex01.questions[4]
    real = count_text_tokens(sample_text("zh"), "o200k_base")
    assert q5.check("o200k_base", "zh", real).correct
    assert q5.check("o200k_base", "zh", round(real * 1.2)).correct  # a prediction within 25 % counts
    too_high = q5.check("o200k_base", "zh", real * 2)
    assert not too_high.correct and f"{real} o200k_base tokens" in str(too_high)
    wrong_tokenizer = q5.check("cl100k_base", "zh", real)
    assert not wrong_tokenizer.correct and "twice as large" in str(wrong_tokenizer)
    wrong_language = q5.check("o200k_base", "fa", real)
    assert not wrong_language.correct and "per character" in str(wrong_language)
    assert "should be one of" in str(q5.check("gpt2", "zh", real))
    assert "still" in str(q5.check(..., "zh", real))


def test_static_copy_has_inline_styles_only_and_every_id():
    view = TokenView(sample="zh")
    static = view.static_html()
    assert "<style" not in static and "<style" in view.output.value
    for split in view.splits:
        for token_id in split.ids:
            assert f'title="id {token_id}' in static
    assert 'listed under "token ids"' in static or "listed under &quot;token ids&quot;" in static
    with pytest.raises(TypeError, match="live must be True or False"):
        token_comparison_html(view.splits, live="no")
