"""The reason statements of exercises 01-06: for each reason question, the statements a learner picks from.

Each list holds the true relations that justify the answer, their reversals,
the same relation said of the wrong subject, and true statements beside the
point (:class:`~course_utils.checks.questions.Kind`). The learner must pick
exactly the ones that justify it. The model answer is shown after an attempt
in the learner's own words; the rubric is the teacher's, in the gradebook's
review queue. Exercise 07's lists live with its questions.
"""

from __future__ import annotations

from course_utils.checks.questions import Kind, Statement, Statements

J, R, S, I = Kind.JUSTIFIES, Kind.REVERSED, Kind.SWAPPED, Kind.IRRELEVANT  # noqa: E741 - the four kinds, one letter each

EX01_Q4 = Statements(
    (
        Statement("Without trimming, each call re-sends the whole history, which is one turn longer than the last "
                  "call's.", J),
        Statement("With a cap, each call is sent at most the cap, so once the history reaches it every call adds "
                  "about the same number of tokens to the total.", J),
        Statement("Without trimming, each call costs a fixed multiple of the previous call's tokens.", R),
        Statement("With a cap, each call re-sends the whole history, which grows by a turn each call.", S),
        Statement("With a cap, the total stops growing once the history reaches the cap.", R),
        Statement("Persian and Chinese text takes more tokens than English in cl100k.", I),
    ),
    model_answer="Without a cap, call k re-sends k - 1 earlier turns plus the new question, so the total is a sum "
                 "of growing terms, about n^2 / 2 turns: quadratic. With a cap each call costs at most the cap, so "
                 "after the history fills it the total grows by about the cap per call: linear.",
    rubric="Full marks: the sum of growing per-call costs without a cap, and a per-call cost that stops growing "
           "with one. Half: one of the two. None: per-call growth called quadratic, or growth said to stop.",
)

EX02_Q4 = Statements(
    (
        Statement("S + U + R is already over the limit, so even an empty history does not fit.", J),
        Statement("Cutting the pasted document makes U smaller, which frees room in B = L - S - U - R.", J),
        Statement("A larger reply reserve R leaves more room for the history.", R),
        Statement("Trimming the history makes U smaller.", S),
        Statement("A safety margin M is added to the limit.", R),
        Statement("The system prompt is sent on every call.", I),
    ),
    model_answer="The fixed parts alone (system prompt, pasted input, reply reserve) are over the limit, so no "
                 "trim of the history can help; only a smaller U (the document cut or summarised) makes room.",
    rubric="Full marks: the fixed parts already exceed the limit, and shrinking U is what frees room. Half: one "
           "of the two. None: says trimming the history, a bigger R or a margin helps.",
)

EX03_Q4 = Statements(
    (
        Statement("strategy='first' keeps the oldest messages and drops the newest ones.", J),
        Statement("The user's latest question is among the newest messages, so the model never sees it.", J),
        Statement("strategy='first' keeps the newest messages and drops the oldest ones.", R),
        Statement("strategy='last' drops the user's latest question.", S),
        Statement("strategy='first' cannot be combined with a token counter.", R),
        Statement("trim_messages returns a new list and leaves its input unchanged.", I),
    ),
    model_answer="strategy='first' keeps the start of the conversation, so over budget it drops the newest "
                 "messages, the latest question among them; the chatbot answers an old turn. Keep strategy='last' "
                 "and fix the boundary with start_on='human'.",
    rubric="Full marks: 'first' keeps the oldest messages, and so the latest question is lost. Half: one of the "
           "two. None: says 'first' keeps the newest, or blames cost or the counter.",
)

EX04_Q3 = Statements(
    (
        Statement("The thread's stored state still holds \"hi! I'm bob\".", J),
        Statement("The model is sent only the trimmed list, which no longer holds \"hi! I'm bob\".", J),
        Statement("trim_messages removed \"hi! I'm bob\" from the stored state.", R),
        Statement("The stored state is what the model is sent, so it holds only the trimmed list.", S),
        Statement("The checkpointer keeps only the messages that fit the cap.", R),
        Statement("The offline model answers without an API key.", I),
    ),
    model_answer="There are two spaces: the state, which the checkpointer keeps whole (\"hi! I'm bob\" is still "
                 "there), and the trimmed list made for one call, which is all the model sees. Past the cap the "
                 "name is not in that list, so the model cannot answer from it.",
    rubric="Full marks: the state keeps everything, and the model is sent only the trimmed list. Half: one of the "
           "two. None: says the state or the checkpointer lost the message.",
)

EX05_Q4 = Statements(
    (
        Statement("The reply reserve must cover the longest reply, or long answers are cut off or refused.", J),
        Statement("The tool schemas are sent on every call outside state[\"messages\"], so trim_messages never "
                  "counts them: the cap must leave room for them.", J),
        Statement("start_on=\"human\" keeps a tool result from being sent without the call that asked for it.", J),
        Statement("trim_messages counts the tool schemas, because bind_tools puts them in state[\"messages\"].", R),
        Statement("A larger safety margin M raises the history ceiling.", R),
        Statement("start_on=\"human\" keeps a human message from being sent without the tool result that "
                  "answers it.", S),
        Statement("The approximate counter is faster than the exact one.", I),
    ),
    model_answer="R covers the longest reply and M the counter's error; the tool schemas are sent with every call "
                 "but are not in the messages trim_messages counts, so the cap subtracts them too; start_on=\"human\" "
                 "keeps the trimmed list from starting with an orphaned tool result.",
    rubric="Full marks: why R and M have their sizes, that the schemas come off the cap because the trim never "
           "sees them, and why start_on='human'. Half: two of the three. None: a cap of L - R - M or H_max with "
           "no word on the schemas.",
)

EX06_Q3 = Statements(
    (
        Statement("Old file reads can be read again, so clearing them from what is sent loses nothing that cannot "
                  "be fetched.", J),
        Statement("run_tests is excluded, so the test results the later steps need stay in what is sent.", J),
        Statement("ContextEditingMiddleware clears results only in what the model is sent; the stored history "
                  "stays whole for the review.", J),
        Statement("ContextEditingMiddleware rewrites the stored history, so the review sees only what was kept.",
                  R),
        Statement("The test results can be read again for free, so they may be cleared like the file reads.", S),
        Statement("A summary keeps the exact test output word for word.", R),
        Statement("The model's window is 200,000 tokens.", I),
    ),
    model_answer="Clearing old tool results shrinks what each call is sent; the file reads can be fetched again, "
                 "the test results are kept by excluding run_tests, and since only the request is edited, the "
                 "stored history stays whole for the review.",
    rubric="Full marks: what is cleared and why it is safe (re-readable files), what is kept (tests excluded), and "
           "that the stored history stays whole. Half: two of the three. None: prefers a summary or a trim that "
           "rewrites the state.",
)
