"""models.json as data (issue 34): the schema, the current line-up, retired models only as history,
price bands, cache lifetimes with pauses, reasoning billed as output, H_max under the input cap,
and no lesson, exercise, README or TEACHING example that calls a retired model."""

from __future__ import annotations

import copy
import json
import re
from importlib import resources
from pathlib import Path

import nbformat
import pytest

from course_utils.window.costs import Call, PriceBand, Prices, bill, relative_change
from course_utils.window.models import (
    CONTEXT_EDITS,
    CURRENT_MODELS,
    MODELS,
    RETIRED_MODELS,
    model_info,
    models_from_dict,
    priced_models,
)
from course_utils.window.thresholds import limits_rows, suggest_thresholds

ROOT = Path(__file__).resolve().parents[1]


def _raw() -> dict:
    return json.loads(resources.files("course_utils").joinpath("data", "models.json").read_text(encoding="utf-8"))


# --- the schema -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r.update(checked="late 2026"), r"models\[0\]\.checked \('Claude Opus 5\.5'\).*YYYY-MM-DD"),
        (lambda r: r.update(source="the provider's page"), r"models\[0\]\.source .*https://"),
        (lambda r: r.update(context_window=0), r"models\[0\]\.context_window .*greater than 0"),
        (lambda r: r.update(context_window=True), r"models\[0\]\.context_window"),
        (lambda r: r.update(price_input=None), "give both 'price_input' and 'price_output'"),
        (lambda r: r.update(price_output=-1), r"models\[0\]\.price_output"),
        (lambda r: r.update(colour="blue"), r"models\[0\]\.colour .*Extra inputs are not permitted"),
        (lambda r: r.pop("reasoning"), r"models\[0\]\.reasoning .*Field required"),
        (lambda r: r.update(status="retired"), "'retired' .* exactly when 'status' is 'retired'"),
        (lambda r: r.update(max_input_tokens=r["context_window"]), "'max_input_tokens' .* only when it is below"),
        (lambda r: r.update(context_management_edits=["compact_2099"]), r"context_management_edits\[0\]"),
        (lambda r: r["context_management"].update(basis="probably"), r"context_management\.basis"),
        (lambda r: r["context_management"].pop("basis"), r"context_management\.basis .*Field required"),
        (lambda r: r["caching"].update(min_prefix_tokens=-1), r"caching\.min_prefix_tokens"),
        (lambda r: r["caching"].update(breakpoint="magic"), r"caching\.breakpoint"),
        (lambda r: r["caching"].update(lifetime_minutes=None), "is null exactly when 'unstated' gives a reason"),
        (lambda r: r["reasoning"].update(share=None, share_basis="assumed"), "a share needs a basis"),
        (lambda r: r.update(price_bands=[{"above_input_tokens": 10, "price_input": -1, "price_output": 1}]),
         r"price_bands\[0\]\.price_input"),
    ],
)
def test_the_schema_refuses_a_bad_row_naming_the_row_and_the_field(change, message):
    raw = _raw()
    row = copy.deepcopy(raw["models"][0])
    change(row)
    with pytest.raises(ValueError, match=message):
        models_from_dict({**raw, "models": [row]})


def test_the_schema_refuses_repeated_models_and_accepts_the_file():
    raw = _raw()
    with pytest.raises(ValueError, match="models repeated"):
        models_from_dict({**raw, "models": [raw["models"][0], raw["models"][0]]})
    assert len(models_from_dict(raw)) == len(raw["models"]) == len(MODELS)


# --- the line-up --------------------------------------------------------------------------------


def test_claude_haiku_5_5_has_both_price_bands_and_its_limits():
    haiku = model_info("claude-haiku-5-5")
    assert haiku.model == "Claude Haiku 5.5" and haiku.status == "current"
    assert (haiku.context_window, haiku.max_output_tokens) == (1_000_000, 128_000)
    assert (haiku.price_input, haiku.price_output, haiku.price_cached_input, haiku.price_cache_write) == \
        (0.10, 0.50, 0.01, 0.125)
    (band,) = haiku.price_bands
    assert band.above_input_tokens == 100_000
    assert (band.price_input, band.price_output, band.price_cached_input, band.price_cache_write) == \
        (0.50, 2.50, 0.05, 0.625)
    assert "30%" in haiku.tokenizer_note and haiku.exact_tokenizer is False


def test_every_retired_model_is_history_with_a_shutdown_date_and_a_source():
    assert {m.model_id for m in RETIRED_MODELS} >= {"gpt-4", "gpt-3.5-turbo"}
    for m in RETIRED_MODELS:
        assert m.status == "retired" and not m.callable
        assert m.retired.shutdown == "2026-10-23" and m.retired.source.startswith("https://")
        assert m not in CURRENT_MODELS and m not in priced_models()
    assert all(m.callable for m in CURRENT_MODELS)
    assert {row.model for row in limits_rows(["chat"])} == {m.model for m in CURRENT_MODELS}


def test_anthropic_rows_name_their_context_management_edits():
    """Lesson 08 reads this field: a list of the documented edit types, sourced."""
    for m in CURRENT_MODELS:
        if m.provider == "Anthropic":
            assert isinstance(m.context_management_edits, list)
            assert set(m.context_management_edits) <= set(CONTEXT_EDITS)
            assert m.context_management.source.startswith("https://")
        else:
            assert m.context_management_edits is None
    assert "compact_20260112" in model_info("Claude Haiku 5.5").context_management_edits


def test_context_management_edits_say_whether_a_page_lists_the_model():
    """The stored pages (read 2026-12-05) name no 5.5 model and not Haiku 4.5: those rows are assumptions, and say so."""
    rows = [m for m in CURRENT_MODELS if m.context_management is not None]
    assert {m.model for m in rows} == {m.model for m in CURRENT_MODELS if m.provider == "Anthropic"}
    for m in rows:
        assert m.context_management.checked >= "2026-12-05"
        assert "/v1/models/{model_id}" in m.context_management.note, "point to the Models API, which reports support"
        if m.context_management.basis == "assumed":
            assert "assumption" in m.context_management.note
    assert {m.context_management.basis for m in rows} == {"assumed"}
    assert "compact_20260112" not in model_info("Claude Haiku 4.5").context_management_edits


def test_models_that_always_reason_carry_a_share_with_its_basis_and_source():
    always = [m for m in CURRENT_MODELS if m.reasoning.always]
    assert {m.model for m in always} >= {"Claude Opus 5.5", "GPT-6.2 Sol"}
    for m in always:
        assert 0 < m.reasoning.share < 1 and m.reasoning.share_basis in ("assumed", "measured", "published")
        assert m.reasoning.source.startswith("https://")
    # Claude 5.x: adaptive thinking with effort; budget_tokens is rejected (lesson 02).
    for name in ("Claude Opus 5.5", "Claude Sonnet 5.5", "Claude Haiku 5.5"):
        assert "budget_tokens is rejected" in model_info(name).reasoning.control


# --- what bill() applies -------------------------------------------------------------------------


def _call(keys, tokens, out=0):
    return Call("turn", tuple(keys), tuple(tokens), out)


def test_bill_applies_the_higher_band_to_every_token_of_a_long_request():
    haiku = model_info("Claude Haiku 5.5").prices
    short, long = _call("a", (100_000,), 1_000), _call("b", (100_001,), 1_000)
    assert bill([short], haiku, caching=False).cost == pytest.approx((100_000 * 0.10 + 1_000 * 0.50) / 1e6)
    billed = bill([long], haiku, caching=False)
    assert billed.cost == pytest.approx((100_001 * 0.50 + 1_000 * 2.50) / 1e6)
    assert billed.banded_calls == 1
    # With caching, the band's cache prices apply: a long call that reads its prefix pays $0.05 per MTok read.
    first, second = _call(["p"], (150_000,)), _call(["p", "q"], (150_000, 10))
    cached = bill([first, second], haiku)
    assert cached.cached_cost == pytest.approx(150_000 * 0.05 / 1e6)
    assert cached.input_cost == pytest.approx((150_000 * 0.625 + 10 * 0.625) / 1e6)


def test_a_pause_longer_than_the_lifetime_expires_the_cache_and_a_read_refreshes_it():
    prices = Prices(1.0, 5.0, cached_input=0.1, cache_write=1.25, cache_lifetime_minutes=5)
    calls = [_call([f"m{j}" for j in range(i + 1)], (1000,) * (i + 1)) for i in range(4)]
    agent = bill(calls, prices, pauses=2)
    human = bill(calls, prices, pauses=301)
    assert agent.cached_tokens == 1000 + 2000 + 3000 and agent.expired_reads == 0
    assert human.cached_tokens == 0 and human.expired_reads == 3
    assert human.cost > bill(calls, prices, caching=False).cost  # expired caches pay the write premium again
    # Four 4-minute pauses: each read refreshes the entry, so it never expires.
    assert bill(calls, prices, pauses=[0, 240, 240, 240]).cached_tokens == agent.cached_tokens
    hour = model_info("Claude Haiku 5.5").prices_with(lifetime="longer")
    assert hour.cache_lifetime_minutes == 60 and hour.cache_write == 0.20
    with pytest.raises(ValueError, match="one number of seconds per call"):
        bill(calls, prices, pauses=[1, 2])
    with pytest.raises(ValueError, match=r"pauses\[1\]"):
        bill(calls, prices, pauses=[0, -1, 0, 0])


def test_reasoning_is_billed_as_output_at_the_rows_share():
    opus = model_info("Claude Opus 5.5")
    calls = [_call("a", (1000,), 300)]
    plain, thinking = bill(calls, opus.prices), bill(calls, opus.prices_with(reasoning=True))
    share = opus.reasoning.share
    hidden = round(300 * share / (1 - share))
    assert thinking.reasoning_tokens == hidden and thinking.output_tokens == 300 + hidden
    assert thinking.output_cost - plain.output_cost == pytest.approx(hidden * opus.price_output / 1e6)
    with pytest.raises(ValueError, match="reasoning_share"):
        Prices(1.0, 1.0, reasoning_share=1.0)
    with pytest.raises(ValueError, match="increasing"):
        Prices(1.0, 1.0, bands=(PriceBand(10, 2, 2), PriceBand(5, 3, 3)))


def test_relative_change_calls_a_rise_a_rise_and_never_prints_minus_zero():
    assert relative_change(85, 100) == "15% less"
    assert relative_change(115, 100) == "15% more"
    for new in (100, 100.4, 99.6):
        assert relative_change(new, 100) == "about the same"
    for new, old in ((0.0109, 0.0109), (0.01091, 0.0109), (1.15, 1.0), (0.5, 1.0)):
        text = relative_change(new, old)
        assert "-" not in text
    assert relative_change(0, 0) == "about the same"
    with pytest.raises(TypeError, match="new"):
        relative_change("more", 1)


# --- caps --------------------------------------------------------------------------------------


def test_h_max_never_exceeds_what_the_input_cap_allows():
    for row in limits_rows():
        model = model_info(row.model)
        for task, h_max in row.h_max.items():
            if h_max is None:
                continue
            suggestion = suggest_thresholds(model.context_window, task, max_input=model.max_input_tokens)
            assert h_max + suggestion.system + suggestion.user + suggestion.margin <= model.input_cap
    sol = model_info("GPT-6.2 Sol")
    assert sol.max_input_tokens == 922_000
    capped = suggest_thresholds(sol.context_window, "chat", max_input=sol.max_input_tokens)
    assert capped.capped and capped.h_max == 922_000 - 500 - 300 - capped.margin < capped.working.budget


def test_lesson_05_prints_no_h_max_above_a_models_input_cap():
    nb = nbformat.read(ROOT / "notebooks" / "05_threshold_selection.ipynb", as_version=4)
    text = "\n".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    found = [int(n.replace(",", "")) for n in re.findall(r"H_max(?: chat)? = +([\d,]+)", text)]
    assert found and max(found) <= max(m.input_cap for m in CURRENT_MODELS)
    assert "995,500" not in text and "H_max chat =   868,700" in text


# --- no retired model used as a callable one ------------------------------------------------------


def _callable_patterns() -> list[tuple[str, re.Pattern]]:
    patterns = []
    for m in RETIRED_MODELS:
        name, ident = re.escape(m.model), re.escape(m.model_id)
        end = r"(?![\w.-])"
        patterns += [
            (m.model, re.compile(rf"--model[\s=]+[\"']?{name}", re.I)),                    # inspect --model NAME
            (m.model, re.compile(rf"[\"']--model[\"']\s*,\s*[\"']{name}[\"']", re.I)),     # inspect_command([...])
            (m.model, re.compile(rf"(?:model_info|model_limit)\(\s*[\"']{name}[\"']", re.I)),
            (m.model_id, re.compile(rf"\b\w+:{ident}{end}", re.I)),                         # openai:gpt-4 specs
            (m.model_id, re.compile(rf"model(?:_name)?\s*=\s*[\"']{ident}[\"']", re.I)),    # ChatOpenAI(model="gpt-4")
            (m.model_id, re.compile(rf"init_chat_model\(\s*[\"'](?:\w+:)?{ident}[\"']", re.I)),
        ]
    return patterns


def _documents() -> list[Path]:
    paths = sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted((ROOT / "notebooks" / "fa").glob("*.ipynb"))
    paths += sorted((ROOT / "exercises").rglob("*.ipynb"))
    paths += [p for p in (ROOT / n for n in ("README.md", "README.fa.md", "TEACHING.md", "TEACHING.fa.md")) if p.exists()]
    return [p for p in paths if ".ipynb_checkpoints" not in p.parts]


def _sources(path: Path) -> str:
    if path.suffix == ".ipynb":
        return "\n".join(cell.source for cell in nbformat.read(path, as_version=4).cells)
    return path.read_text(encoding="utf-8")


def test_the_patterns_catch_a_callable_use_and_pass_history():
    patterns = _callable_patterns()
    used = ['inspect chat.jsonl --model "GPT-4 (original)"', 'model_info("GPT-4 (original)")',
            "COURSE_CHAT_MODEL=openai:gpt-4", 'ChatOpenAI(model="gpt-3.5-turbo")',
            'inspect_command([db, "--model", "GPT-4 (original)"])']
    history = ["cl100k_base (GPT-4 and GPT-3.5)", "openai:gpt-4o-mini", "openai:gpt-4.1", "GPT-4-1106-preview",
               "GPT-4 was shut down on 2026-10-23"]
    for text in used:
        assert any(p.search(text) for _, p in patterns), text
    for text in history:
        assert not any(p.search(text) for _, p in patterns), text


def test_no_lesson_exercise_readme_or_teaching_example_calls_a_retired_model():
    found = []
    for path in _documents():
        text = _sources(path)
        for model, pattern in _callable_patterns():
            for match in pattern.finditer(text):
                found.append(f"{path.relative_to(ROOT)}: {match.group(0)!r} ({model} is retired)")
    assert not found, "retired models used as callable ones:\n" + "\n".join(found)
