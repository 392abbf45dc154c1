"""An :class:`~course_utils.inspect.analysis.Inspection` in words: the terminal summary and the HTML report.

:func:`summary_lines` is what the command prints (and the report's summary);
:func:`report_html` renders the template ``templates/report.html.j2`` into one
self-contained page: the growth figure (downsampled past 500 calls, and its
text alternative says so), the trim decision table (every row, long runs
folded into ``<details>``) and the cost per call. ``text=False`` leaves
every message's text out, for a report to share.
"""

from __future__ import annotations

from course_utils.core.i18n import _
from course_utils.inspect.analysis import Inspection, index_ranges
from course_utils.inspect.media import RULES
from course_utils.window.costs import relative_change
from course_utils.window.models import MODELS_NOTE
from course_utils.window.tokens import counter_name

#: Said in the command's help and at the top of every report.
PRIVACY = (
    "Nothing is sent anywhere: the conversation is read on this machine (files and SQLite databases read-only, "
    "a PostgreSQL thread in a read-only session), counted and priced here, and written only to the report "
    "file you name. No model is called and no network service is used, apart from the database you point it to."
)
#: Rows drawn inside a folded run of the report's trim table (half from each end).
REPORT_RUN_ROWS = 200
NO_TEXT_NOTE = "Message text is left out of this report (--no-text): it shows ids, roles, token counts and decisions only."


def _money(value: float) -> str:
    return f"${value:,.4f}" if value < 100 else f"${value:,.2f}"


def counter_label(inspection: Inspection) -> str:
    """Which counter the figures use: "exact (cl100k_base)", or approximate and why.

    (Not ``CounterChoice.label``: its margin is measured by loading every
    tokenizer the course has, seconds the command does not need to spend.)
    """
    choice = inspection.counter
    if choice.exact:
        return _("exact ({tokenizer})").format(tokenizer=choice.tokenizer)
    return _("approximate, about 4 characters a token: the course cannot count the {tokenizer} tokenizer exactly").format(
        tokenizer=repr(choice.tokenizer))


def trim_call(inspection: Inspection) -> str:
    """The trim_messages call, as a learner would type it."""
    kwargs = dict(inspection.trim_kwargs)
    kwargs["token_counter"] = counter_name(inspection.counter.counter)
    return "trim_messages(messages, " + ", ".join(
        f"{k}={v}" if k == "token_counter" else f"{k}={v!r}" for k, v in kwargs.items()
    ) + ")"


def _calls_word(count: int) -> str:
    return _("1 call") if count == 1 else _("{count} calls").format(count=f"{count:,}")


def cost_sentence(inspection: Inspection) -> str:
    m = inspection.model
    impossible = len(inspection.impossible_calls)
    if inspection.with_caching is None or (not inspection.costs and impossible):
        if not m.has_prices:
            reason = _("the model has no prices in models.json (give --input-price and --output-price)")
        elif impossible:
            reason = _("every call is over the model's window, so none could have been sent")
        else:
            reason = _("there is no model call to price")
        return _("Cost: not computed ({reason}).").format(reason=reason)
    w, wo = inspection.with_caching, inspection.without_caching
    calls = _calls_word(len(inspection.costs))
    over = "" if not impossible else " " + _(
        "The other {count} are over the model's window: they could not have been sent as recorded, so they are "
        "not priced.").format(count=f"{impossible:,}")
    if not w.caching:
        return _("Cost of the {calls} as recorded: {cost} ({model} offers no prompt caching in models.json).").format(
            calls=calls, cost=_money(wo.cost), model=m.model) + over
    return _("Cost of the {calls} as recorded: {cost} without caching, {cached_cost} with caching ({share} of "
             "input tokens read from the cache; {saving}), at {model}'s prices of {checked}.").format(
        calls=calls, cost=_money(wo.cost), cached_cost=_money(w.cost), share=f"{w.cached_share:.1%}",
        saving=relative_change(w.cost, wo.cost), model=m.model, checked=m.checked) + over


def media_sentence(inspection: Inspection) -> str | None:
    """What the images and files cost, by which rule, and which could not be counted (None: there are none)."""
    media = inspection.media
    if not media:
        return None
    counted = [x for x in media if x.tokens is not None]
    text = _("{count} image(s) or file(s): {counted} counted by the provider's published rule ({tokens} tokens, "
             "never their base64 as text)").format(count=len(media), counted=len(counted),
                                                   tokens=f"{sum(x.tokens for x in counted):,}")
    reasons = sorted({x.reason for x in media if x.tokens is None})
    if reasons:
        text += "; " + _("{count} not counted: {reasons}").format(count=len(media) - len(counted), reasons="; ".join(reasons))
    text += "."
    rule = RULES.get(inspection.model.provider)
    if counted and rule:
        source, date, words = rule
        text += " " + _("The rule: {rule}; from {source}, read {date}.").format(rule=words, source=source, date=date)
    return text


def _model_calls(count: int) -> str:
    return _("1 model call") if count == 1 else _("{count} model calls").format(count=f"{count:,}")


def summary_lines(inspection: Inspection) -> list[str]:
    """The short summary: counts, tokens by role, the crossing, the trim, the cost."""
    i = inspection
    roles = ", ".join(f"{role} {tokens:,}" for role, tokens in i.tokens_by_role.items())
    count = _("1 message") if len(i.messages) == 1 else _("{count} messages").format(count=f"{len(i.messages):,}")
    lines = [
        _("{count}; tokens ({counter}): {roles}; all {total}.").format(
            count=count, counter=counter_label(i), roles=roles, total=f"{i.total_tokens:,}"),
    ]
    if i.tool_tokens:
        lines.append(_("Tool schemas sent with every call: {tokens} tokens, counted as input of each call.").format(
            tokens=f"{i.tool_tokens:,}"))
    media = media_sentence(i)
    if media:
        lines.append(media)
    if i.growth is None:
        lines.append(_("No AI message: there is no model call to replay."))
    else:
        crossing = i.crossing
        window = _("{tokens}-token window of {model}").format(tokens=f"{i.model.context_window:,}", model=i.model.model)
        if crossing is None:
            largest = max(r.history_tokens for r in i.growth.rows)
            lines.append(_("{calls}; the history stays within the {window} (largest: {largest} tokens).").format(
                calls=_model_calls(i.calls), window=window, largest=f"{largest:,}"))
        else:
            lines.append(
                _("{calls}; the history crosses the {window} at call {call} (message index {index}): "
                  "{tokens} tokens, if every call sent it all. From there on ({impossible}) a call could not have "
                  "been sent as recorded: the provider refuses an input over the window.").format(
                    calls=_model_calls(i.calls), window=window, call=f"{crossing.call:,}", index=f"{crossing.ai_index:,}",
                    tokens=f"{crossing.history_tokens:,}", impossible=_calls_word(len(i.impossible_calls)))
            )
    kept = i.kept_indexes
    lines.append(
        _("A trim at {budget} tokens keeps {kept} of {count} messages ({tokens} tokens; indexes {indexes}) "
          "and drops {dropped}.").format(
            budget=f"{i.budget:,}", kept=f"{len(kept):,}", count=f"{len(i.messages):,}",
            tokens=f"{i.trim.result_tokens:,}", indexes=index_ranges(kept), dropped=f"{len(i.messages) - len(kept):,}")
    )
    lines.append(cost_sentence(i))
    return lines


#: Past this many calls, the cost table draws the first, the last and those around the crossing, and folds the rest.
COST_ROWS = 300
#: Calls drawn at each end and around the crossing, in a folded cost table.
COST_EDGE = 50


def cost_rows(inspection: Inspection) -> list[dict]:
    """The cost table's rows: ``{"kind": "call", "c": CallCost}`` or a folded stretch
    ``{"kind": "fold", "first", "last", "count", "cost", "plain", "input", "cached", "output"}`` (sums).
    Up to :data:`COST_ROWS` calls, one row each (tests/test_inspect.py checks the folds' sums).
    """
    costs = inspection.costs
    if len(costs) <= COST_ROWS:
        return [{"kind": "call", "c": c} for c in costs]
    shown = set(range(COST_EDGE)) | set(range(len(costs) - COST_EDGE, len(costs)))
    if inspection.crossing is not None:
        at = inspection.crossing.call - 1
        shown |= set(range(max(at - COST_EDGE // 2, 0), min(at + COST_EDGE // 2, len(costs))))
    rows: list[dict] = []
    i = 0
    while i < len(costs):
        if i in shown:
            rows.append({"kind": "call", "c": costs[i]})
            i += 1
            continue
        j = i
        while j < len(costs) and j not in shown:
            j += 1
        stretch = costs[i:j]
        rows.append({"kind": "fold", "first": stretch[0].call, "last": stretch[-1].call, "count": len(stretch),
                     "cost": sum(c.cost for c in stretch), "plain": sum(c.cost_without_caching for c in stretch),
                     "input": sum(c.input_tokens for c in stretch), "cached": sum(c.cached_tokens for c in stretch),
                     "output": sum(c.output_tokens for c in stretch)})
        i = j
    return rows


def report_html(inspection: Inspection, *, source: str, format: str, thread: str | None = None, text: bool = True,
                note: str | None = None) -> str:
    """The self-contained HTML report (see the module)."""
    import jinja2
    from markupsafe import Markup

    from course_utils.pictures.plots import figure_png, growth_figure, without_rtl_isolates
    from course_utils.pictures.render import image_html
    from course_utils.pictures.trim_view import trim_table_html

    i = inspection
    figure = alt = None
    if i.growth is not None:
        fig = growth_figure(i.growth, title=f"{i.model.model}: context window {i.model.context_window:,} tokens")
        alt = without_rtl_isolates(fig.alt_text)  # HTML: the page's element carries the direction
        figure = Markup(image_html(figure_png(fig), alt=alt, fit=True))
    counts: dict[str, int] = {}
    for m in i.messages:
        counts[m.type] = counts.get(m.type, 0) + 1
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("course_utils.inspect", "templates"), autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    privacy = PRIVACY + ("" if text else " " + NO_TEXT_NOTE)
    m = i.model
    rule = (f"cached input at ${m.price_cached_input:g} per million tokens, input at ${m.price_input:g}"
            if m.price_cached_input is not None and m.price_input is not None else "no prompt caching")
    return environment.get_template("report.html.j2").render(
        source=source, format=format, thread=thread, model=m, counter_label=counter_label(i), budget=i.budget,
        privacy=privacy, summary=([note] if note else []) + summary_lines(i),
        roles=[(role, counts.get(role, 0), tokens) for role, tokens in i.tokens_by_role.items()],
        messages=len(i.messages), total_tokens=i.total_tokens, figure=figure, figure_alt=alt,
        trim_call=trim_call(i), trim_table=Markup(trim_table_html(i.trim, text=text, run_rows=REPORT_RUN_ROWS)),
        costs=i.costs, cost_rows=cost_rows(i), cost_sentence=cost_sentence(i), caching_rule=rule, models_note=MODELS_NOTE,
    )


__all__ = ["NO_TEXT_NOTE", "PRIVACY", "cost_rows", "counter_label", "cost_sentence", "media_sentence", "report_html",
           "summary_lines", "trim_call"]
