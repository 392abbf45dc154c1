"""Representative inputs for every HTML view: Persian, Chinese, and text with markup in it (``SPECIAL``).

``test_templates.py`` renders them all and checks that ``SPECIAL`` is shown
escaped wherever a case passes it in (``SPECIAL_CASES``). The bytes a view
gives are pinned by the lessons' stored outputs, which strict nbval compares,
so no copy of them is kept here.
"""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

PERSIAN = "سلام! پنجره‌ی زمینه چقدر است؟"
CHINESE = "你好，上下文窗口有多大？"
SPECIAL = "a <b> & \"quoted\" and 'single' </td>"

#: The cases whose input holds ``SPECIAL`` in text the view shows (a title, a label, a message, an error).
SPECIAL_CASES = (
    "error_exc", "error_hint", "growth_turn", "image", "token_bar_over",
    *(f"trim_report_{strategy}_{budget}" for strategy in ("last", "first") for budget in (0, 25, 45, 1000)),
    "trim_report_options", "trim_report_untrimmed_over", "trim_report_system_over", "messages_list_empty",
    "messages_list", "trim_region", "scroll_region",
    *(f"check_{status}" for status in ("correct", "wrong", "error", "not attempted", "for the teacher")),
    "check_details", "note_solution", "agent_call_wide_1", "agent_comparison", "agent_comparison_caption",
    "agent_explorer_1", "widget_trim", "widget_trim_conflict", "widget_trim_conflicts",
)


def _messages(n: int = 6) -> list:
    base = [
        SystemMessage("You are terse. <sys> & \"rules\"", id="sys"),
        HumanMessage(PERSIAN, id="h1"),
        AIMessage("", id="a1", tool_calls=[{"name": "weather", "args": {"city": "Tehran"}, "id": "c<1>"}]),
        ToolMessage("sunny & 'warm'", tool_call_id="c<1>", id="t1"),
        AIMessage(CHINESE, id="a2"),
        HumanMessage(SPECIAL + "\n  next line", id="h2"),
    ]
    return base[:n]


def _long(n: int = 400) -> list:
    out = [SystemMessage("sys")]
    for i in range(n):
        out.append(HumanMessage(f"question {i} <q> {PERSIAN if i % 7 == 0 else ''}", id=f"u{i}"))
        out.append(AIMessage(f"answer {i} & done", id=f"r{i}"))
    return out


def cases() -> dict[str, str]:
    """Every case's name and the HTML it renders now."""
    from course_utils.pictures import render
    from course_utils.pictures import trim_view
    from course_utils.pictures.a11y import scroll_region_html, with_word
    from course_utils.window.budget import budget_working
    from course_utils.checks.machinery import CheckResult, Note
    from course_utils.window.growth import replay_growth
    from course_utils.window.tokens import dummy_token_counter, split_tokens
    from course_utils.window.trimming import explain_trim, untrimmed_report

    out: dict[str, str] = {}
    msgs = _messages()
    # --- render.py
    out["error_exc"] = render.error_html(ValueError(SPECIAL))
    out["error_hint"] = render.error_html("plain <error>", hint=f"try {SPECIAL}")
    out["error_fa"] = render.error_html(PERSIAN, hint=CHINESE)
    out["budget_working"] = render.budget_working_html(budget_working(4096, 350, 180, 700))
    out["budget_working_margin"] = render.budget_working_html(budget_working(8000, 1000, 200, 500, 300))
    out["budget_bar"] = render.budget_bar_html(budget_working(4096, 350, 180, 700))
    out["budget_bar_margin"] = render.budget_bar_html(budget_working(8000, 1000, 200, 500, 300))
    growth = replay_growth(_long(6), "approximate", limit=60)
    out["growth_table"] = render.growth_table_html(growth)
    out["growth_table_upto"] = render.growth_table_html(growth, upto=2)
    nolimit = replay_growth(msgs, "dummy")
    out["growth_table_nolimit"] = render.growth_table_html(nolimit)
    report = explain_trim(msgs, max_tokens=30, token_counter=dummy_token_counter, strategy="last")
    out["growth_turn"] = render.growth_turn_html(growth, 3, report)
    out["growth_turn_untrimmed"] = render.growth_turn_html(nolimit, 2, untrimmed_report(msgs[:3], 20, dummy_token_counter))
    out["image"] = render.image_html(b"\x89PNG fake", alt=f"a figure {SPECIAL}")
    out["image_fit"] = render.image_html(b"png", alt="x", width=300, fit=True)
    for name, text, lang in (("en", "hello world\nnew <line>", "en"), ("fa", PERSIAN, "fa"), ("zh", CHINESE, "zh"),
                             ("none", "x & y", None)):
        split = split_tokens(text, "o200k_base")
        out[f"token_split_{name}"] = render.token_split_html(split, lang=lang)
        out[f"token_comparison_{name}"] = render.token_comparison_html(
            [split_tokens(text, "cl100k_base"), split], lang=lang)
        out[f"token_comparison_static_{name}"] = render.token_comparison_html([split], lang=lang, live=False)
    out["token_split_approx"] = render.token_split_html(split_tokens("hello", "llama3"))
    # --- trim_view.py
    out["token_bar"] = trim_view.token_bar_html(60, 100, 200)
    out["token_bar_over"] = trim_view.token_bar_html(160, 100, label=f"sent {SPECIAL}")
    for strategy in ("last", "first"):
        for budget in (0, 25, 45, 1000):
            r = explain_trim(msgs, max_tokens=budget, token_counter=dummy_token_counter, strategy=strategy)
            out[f"trim_report_{strategy}_{budget}"] = trim_view.trim_report_html(r)
    r = explain_trim(msgs, max_tokens=30, token_counter=dummy_token_counter, strategy="last", include_system=True,
                     start_on="human")
    out["trim_report_options"] = trim_view.trim_report_html(r, title=f"A title {SPECIAL}", preview_chars=12,
                                                           result_chars=None)
    out["trim_report_notext"] = trim_view.trim_report_html(r, text=False)
    out["trim_report_untrimmed_over"] = trim_view.trim_report_html(untrimmed_report(msgs, 20, dummy_token_counter))
    out["trim_report_system_over"] = trim_view.trim_report_html(
        explain_trim(msgs, max_tokens=5, token_counter=dummy_token_counter, include_system=True, strategy="last"))
    long = _long(120)
    lr = explain_trim(long, max_tokens=300, token_counter=dummy_token_counter, strategy="last")
    out["trim_report_long"] = trim_view.trim_report_html(lr)
    out["trim_report_long_runrows"] = trim_view.trim_report_html(lr, run_rows=10, preview_chars=20)
    out["trim_report_long_notext"] = trim_view.trim_report_html(lr, run_rows=40, text=False, full_rows=50)
    out["trim_table_long_cache"] = trim_view.trim_table_html(lr, run_rows=6, cache={})
    out["messages_list_empty"] = trim_view.messages_list_html([], heading=f"h {SPECIAL}")
    out["messages_list"] = trim_view.messages_list_html(msgs, preview_chars=None)
    out["messages_list_one"] = trim_view.messages_list_html(msgs[:1])
    out["messages_list_max"] = trim_view.messages_list_html(long[:30], max_items=4, text=False)
    out["trim_region"] = trim_view.trim_region_html("<p>inner</p>", label=f"label {SPECIAL}")
    # --- a11y.py
    out["scroll_region"] = scroll_region_html("<p>x</p>", label=f"messages {SPECIAL}")
    out["scroll_region_class"] = scroll_region_html("<p>x</p>", label="l", max_height="10em", css_class="c")
    out["with_word"] = with_word("<div>bar</div>", "over", "#b71c1c")
    out["with_word_hidden"] = with_word("<div>bar</div>", "over", "#b71c1c", shown=False, slot="3em")
    # --- checks/machinery.py (the feedback boxes)
    for status in ("correct", "wrong", "error", "not attempted", "for the teacher"):
        out[f"check_{status}"] = CheckResult(f"q1 (keep {SPECIAL})", status,
                                             "Use `trim_messages(x < 3)` & see\nline two 'q' \"dq\"")._repr_html_()
    out["check_fa"] = CheckResult("q3 (why)", "wrong", PERSIAN + " `کد`", lang="fa")._repr_html_()
    out["check_zh"] = CheckResult("q3 (why)", "for the teacher", CHINESE, lang="zh")._repr_html_()
    out["check_details"] = CheckResult("q2", "wrong", "short…", details=f"the whole {SPECIAL}\nmessage")._repr_html_()
    out["note_hint"] = Note("hint", "q1", "Look at `max_tokens` <here>")._repr_html_()
    out["note_solution"] = Note("solution", "q1", "The master's lines:", code=f"x = 1 < 2\nprint({SPECIAL!r})")._repr_html_()
    out.update(_agent_cases())
    out.update(_widget_cases())
    return out


def _widget_cases() -> dict[str, str]:
    """The widgets' HTML: their static copies (what a stored notebook keeps), error states, named controls."""
    from course_utils.pictures.token_view import TokenView
    from course_utils.pictures.widgets import BudgetCalculator, GrowthExplorer, TrimExplorer

    out = {}
    msgs = _messages()
    trim = TrimExplorer(msgs, max_tokens=30, token_counter="exact", title=f"Explore {SPECIAL}")
    out["widget_trim"] = trim.static_html()
    out["widget_trim_descriptions"] = " | ".join(
        str(getattr(trim, name).description) for name in ("strategy", "include_system", "token_counter"))
    trim.strategy.value = "first"
    trim.start_on.value = trim.start_on.options[-1][1]
    out["widget_trim_conflict"] = trim.static_html()
    trim.include_system.value = True
    out["widget_trim_conflicts"] = trim.static_html()
    out["widget_trim_untitled"] = TrimExplorer(_long(80), max_tokens=200).static_html()
    budget = BudgetCalculator(show_plot=True)
    out["widget_budget"] = budget.static_html()
    out["widget_budget_figure"] = budget.figure.value
    budget.reserve.value = 4000
    out["widget_budget_error"] = budget.static_html()
    growth = GrowthExplorer(_long(5), limit=60, strategy="last", show_plot=False)
    out["widget_growth"] = growth.static_html()
    out["widget_growth_no_table"] = growth.static_html(with_table=False)
    for sample in ("fa", "zh", "en"):
        out[f"widget_tokens_{sample}"] = TokenView(sample).static_html()
    out["widget_tokens_text"] = TokenView(text=SPECIAL).static_html()
    return out


def _agent_cases() -> dict[str, str]:
    """Lesson 06's views: real agent runs with the offline model (a short task, and one whose window refuses a call)."""
    from langchain.agents import create_agent

    from course_utils.agentic.agent_tools import TRIP_TOOLS
    from course_utils.pictures.agent_views import agent_step_explorer, call_html, comparison_html
    from course_utils.agentic.agents import TRIP_SYSTEM_PROMPT, TRIP_TASK, compare_runs, run_task
    from course_utils.model.chat import OfflineChatModel

    def run(window, name, task=TRIP_TASK[:3]):
        agent = create_agent(OfflineChatModel(context_window=window), tools=TRIP_TOOLS, system_prompt=TRIP_SYSTEM_PROMPT)
        return run_task(agent, task, probes=(), name=name)

    wide = run(4096, f"wide {SPECIAL}")
    tight = run(700, "tight", TRIP_TASK[:4])
    out = {}
    for i in range(1, len(wide.agent_calls) + 1):
        out[f"agent_call_wide_{i}"] = call_html(wide, i, preview_chars=40)
    for i in range(1, len(tight.agent_calls) + 1):
        out[f"agent_call_tight_{i}"] = call_html(tight, i, token_counter="approximate")
    out["agent_comparison"] = comparison_html(compare_runs([wide, tight]))
    out["agent_comparison_caption"] = comparison_html(compare_runs([tight]), caption=f"caption {SPECIAL}")
    explorer = agent_step_explorer([wide, tight])
    out["agent_explorer_1"] = explorer.static_html()
    explorer.strategy.value = "tight"
    explorer.call.value = len(tight.agent_calls)
    out["agent_explorer_2"] = explorer.static_html()
    return out

