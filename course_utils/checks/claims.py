"""What the reason of each "why" question must assert: one :class:`~course_utils.checks.reasons.Claim` each.

The judge (:mod:`course_utils.checks.reasons`) reads a learner's sentence
for these relations in English, Persian and Chinese. Each relation is a
(predicate, thing) pair or a single term, never a list of words that may
appear anywhere: "keeps the oldest" is not "keeps the newest".

- :data:`EX01_Q4`: without a cap the total grows with the square (each call
  re-sends the growing history); with a cap each call costs about the cap.
- :data:`EX02_Q4`: the fixed parts (the pasted document) are over the limit,
  so only shrinking the document makes room.
- :data:`EX03_Q4`: strategy='first' keeps the oldest messages and loses the
  newest, the user's latest question among them.
- :data:`EX04_Q3`: the stored state keeps the name; the model is sent only
  the trimmed list.
- :data:`EX05_Q4`: which list the cap is for (what it holds besides the
  history), and why start_on="human" keeps tool results with their calls.
- :data:`EX06_Q3`: the old file reads are big and can be read again; the test
  results and the stored history are kept.

>>> from course_utils.checks.reasons import judge
>>> judge(EX03_Q4, "It keeps the newest messages and drops the oldest ones, "
...       "so the latest question is never dropped").status
'wrong'
"""

from __future__ import annotations

from course_utils.checks.reasons import DROP, KEEP, NEWEST, OLDEST, Claim, Relation, Reversal, Term

# --- exercise 01 q4: how the total grows, without and with a cap ------------------------------

NO_CAP = Term("no_cap",
              en=("without", "untrimmed", "no trim", "no cap", "no limit", "nothing is trimmed", "nothing trimmed",
                  "not trimmed", "uncapped", "never trimmed", "if you do not trim", "if we do not trim",
                  "if nothing"),
              fa=("بدون", "بی سقف", "برش نخورد", "اگر برش ندهیم", "اگر کوتاه نکنیم"),
              zh=("不裁剪", "不截断", "不修剪", "没有上限", "无上限", "没有裁剪", "没有截断", "不限制", "不做裁剪", "如果不"))
CAP = Term("cap",
           en=("cap", "limit", "trim", "budget", "max_tokens", "bound on"),
           fa=("سقف", "برش", "محدود", "بودجه", "کوتاه کردن"),
           zh=("上限", "裁剪", "截断", "修剪", "限制", "预算"))
GROWING = Term("growing",
               en=("re-send", "resend", "sends again", "send again", "sent again", "sends the whole", "sends the entire",
                   "sends the full", "send the whole", "whole history", "entire history", "full history",
                   "all previous", "all earlier", "all the previous", "all the earlier", "every previous",
                   "every earlier", "history grows", "growing history", "longer history", "grows each",
                   "grows with every", "grows by a turn", "one more turn", "bigger each", "larger each",
                   "more each call", "more every call", "keeps growing", "keep growing"),
               fa=("دوباره", "کل تاریخچه", "تمام تاریخچه", "همه پیام", "بزرگ تر می شود", "بزرگتر می شود", "بلندتر",
                   "رشد می کند", "رشد می‌کند", "هر بار بیشتر"),
               zh=("重新发送", "再次发送", "又发送", "再发送", "整个历史", "全部历史", "所有历史", "越来越长", "越来越大",
                   "不断增长", "不断变长"))
QUADRATIC = Term("quadratic",
                 en=("square", "quadratic", "n^2", "n²", "n*n", "n squared", "sum of growing", "growing terms",
                     "triangular", "1 + 2 +", "1+2+", "n(n+1)", "n (n + 1)", "n(n + 1)"),
                 fa=("مربع", "درجه دو", "توان دو", "درجه ۲", "n^2", "n²"),
                 zh=("平方", "二次", "n²", "n^2"))
EXPONENTIAL = Term("exponential", en=("exponential", "doubles", "doubling"), fa=("نمایی",), zh=("指数", "翻倍"))
BOUNDED = Term("bounded", predicate=True, opposite="growing",
               en=("at most", "no more than", "bounded", "bound", "constant", "fixed", "same amount", "same size",
                   "about the cap", "about the same", "roughly the cap", "the cap per call", "the cap each call",
                   "stops growing", "stop growing", "no longer grows", "no longer grow", "doesn't grow",
                   "does not grow", "flat", "ceiling", "never more than", "never exceeds", "under the cap",
                   "below the cap", "limited to", "plateau", "capped at"),
               fa=("حداکثر", "ثابت", "دیگر رشد نمی", "دیگر بزرگ", "بیشتر از سقف نمی", "بیش از سقف نمی", "به اندازه سقف",
                   "حدود سقف", "محدود می ماند", "سقف مشخص"),
               zh=("最多", "不超过", "固定", "恒定", "不再增长", "不再变大", "大约是上限", "上限左右", "有界", "封顶", "不会超过"))
LINEAR = Term("linear", en=("linear", "straight line", "same amount per call", "by about the cap", "by the cap"),
              fa=("خطی",), zh=("线性", "直线"))

EX01_Q4 = Claim(
    "01 q4",
    relations=(
        Relation("unbounded", ((GROWING,), (QUADRATIC,)), {
            "en": "say why the total grows faster without trimming (what does each call send again?)",
            "fa": "بگویید چرا بدون برش، مجموع سریع‌تر رشد می‌کند (هر فراخوانی چه چیزی را دوباره می‌فرستد؟)",
            "zh": "说明为什么不裁剪时总量增长得更快（每次调用又重新发送了什么？）",
        }, conditions=("no_cap", None)),
        Relation("bounded", ((BOUNDED,), (LINEAR,)), {
            "en": "say what the cap does to the cost of each call once the history reaches it",
            "fa": "بگویید وقتی تاریخچه به سقف می‌رسد، سقف با هزینه هر فراخوانی چه می‌کند",
            "zh": "说明当历史达到上限后，上限对每次调用的开销有什么作用",
        }, conditions=("cap",)),
    ),
    reversed=(
        Reversal(((BOUNDED,),), {"en": "that without trimming each call costs a bounded amount",
                                 "fa": "که بدون برش هزینه هر فراخوانی محدود می‌ماند",
                                 "zh": "不裁剪时每次调用的开销是有界的"}, conditions=("no_cap",)),
        Reversal(((QUADRATIC,), (GROWING,)), {"en": "that with a cap the total still grows with the square",
                                              "fa": "که با سقف هم مجموع با مربع تعداد رشد می‌کند",
                                              "zh": "有上限时总量仍按平方增长"}, conditions=("cap",)),
        Reversal(((EXPONENTIAL,),), {"en": "that it grows exponentially", "fa": "که رشد نمایی است",
                                     "zh": "它按指数增长"}),
    ),
    conditions=(NO_CAP, CAP),
)

# --- exercise 02 q4: which part to shrink --------------------------------------------------------

DOCUMENT = Term("document",
                en=("document", "pasted", "paste", "=u", "user input", "user's input", "the input", "input"),
                fa=("سند", "متن چسبانده", "ورودی", "متن کاربر", "سندی"),
                zh=("文档", "文件", "粘贴", "输入"))
FIXED = Term("fixed",
             en=("fixed part", "s + u + r", "s+u+r", "s, u and r", "the parts", "fixed cost", "fixed ones",
                 "system prompt, the document"),
             fa=("بخش های ثابت", "بخش‌های ثابت", "قسمت های ثابت", "ثابت", "s + u + r", "s+u+r"),
             zh=("固定部分", "固定的部分", "固定", "s + u + r", "s+u+r"))
TRIMMING = Term("trimming",
                en=("trimming", "trim_messages", "trim the history", "history trimming", "trimming the history",
                    "trimming harder", "trim harder"),
                fa=("برش تاریخچه", "کوتاه کردن تاریخچه", "برش دادن تاریخچه"),
                zh=("裁剪历史", "截断历史", "修剪历史", "裁剪对话"))
OVER = Term("over", predicate=True, after_thing=True, opposite="fits",
            en=("exceed", "over the limit", "over the window", "over l", "more than the limit", "more than l",
                "too big", "too large", "too long", "larger than", "bigger than", "above the limit", "go over",
                "goes over", "already over", "is over", "are over", "do not fit", "don't fit", "does not fit",
                "no room", "too much"),
            fa=("بیشتر از", "بیش از", "فراتر", "از حد", "بزرگ", "زیاد", "جا نمی", "طولانی"),
            zh=("超过", "超出", "大于", "太长", "太大", "太多", "放不下", "装不下"))
FITS = Term("fits", predicate=True, opposite="over",
            en=("fit", "leaves room", "leave room", "room for", "make room", "makes room", "frees", "free up",
                "enough room", "leaves", "left for"),
            fa=("جا می شود", "جا باز", "فضا", "جا داد", "باقی می ماند"),
            zh=("放得下", "腾出", "留出", "空间", "剩下"))
SHRINK = Term("shrink", predicate=True,
              en=("shrink", "shorten", "smaller", "reduc", "cut", "summar", "cutting", "lower", "fewer tokens",
                  "down to", "trim the document", "trim it", "trimming it", "condense"),
              fa=("کوتاه", "کوچک", "خلاصه", "کم کن", "کم کردن", "کاهش", "برش"),
              zh=("缩短", "减少", "删减", "摘要", "总结", "压缩", "截取", "缩小", "变小", "精简", "删掉"))
HELPS = Term("helps", predicate=True, opposite="useless",
             en=("help", "=fix", "=fixes", "fixing", "solve", "=work", "=works", "make room"),
             fa=("کمک", "حل", "درست می"),
             zh=("帮助", "有用", "解决", "有帮助"))
USELESS = Term("useless", predicate=True, after_thing=True, opposite="helps",
               en=("useless", "pointless", "in vain", "no use", "no good", "is not enough", "cannot help"),
               fa=("بی فایده", "فایده ای ندارد", "کافی نیست"),
               zh=("没用", "无用", "无济于事", "不够"))

EX02_Q4 = Claim(
    "02 q4",
    relations=(
        Relation("over", ((OVER, FIXED), (OVER, DOCUMENT), (USELESS, TRIMMING)), {
            "en": "say which term of B = L - S - U - R is too big here, and why trimming the history cannot fix it",
            "fa": "بگویید کدام جزء از B = L - S - U - R این‌جا بیش از حد بزرگ است و چرا برش تاریخچه آن را درست نمی‌کند",
            "zh": "说明在 B = L - S - U - R 中哪一项太大了，以及为什么裁剪历史解决不了",
        }),
        Relation("shrink", ((SHRINK, DOCUMENT), (FITS, DOCUMENT)), {
            "en": "say what making that part smaller does for the history",
            "fa": "بگویید کوچک کردن آن جزء برای تاریخچه چه می‌کند",
            "zh": "说明把那一部分变小对历史有什么作用",
        }),
    ),
    reversed=(
        Reversal(((HELPS, TRIMMING),), {"en": "that trimming the history would fix it",
                                        "fa": "که برش تاریخچه مشکل را حل می‌کند",
                                        "zh": "裁剪历史就能解决问题"}),
    ),
)

# --- exercise 03 q4: what strategy='first' keeps -----------------------------------------------

OTHER_STRATEGY = Term("other_strategy",
                      en=("strategy='last'", 'strategy="last"', "'last'", '"last"', "last strategy", "strategy last"),
                      fa=("strategy='last'", 'strategy="last"', "'last'", '"last"'),
                      zh=("strategy='last'", 'strategy="last"', "'last'", '"last"'))

EX03_Q4 = Claim(
    "03 q4",
    relations=(
        Relation("ends", ((DROP, NEWEST), (KEEP, OLDEST)), {
            "en": "say which messages strategy='first' keeps, and which it loses once the history is over the budget",
            "fa": "بگویید strategy='first' کدام پیام‌ها را نگه می‌دارد و وقتی تاریخچه از بودجه بیشتر شود کدام‌ها را "
                  "از دست می‌دهد",
            "zh": "说明当历史超过预算时，strategy='first' 保留哪些消息、丢掉哪些消息",
        }),
    ),
    reversed=(
        Reversal(((KEEP, NEWEST), (DROP, OLDEST)), {
            "en": "that strategy='first' keeps the newest messages (or drops the oldest)",
            "fa": "که strategy='first' جدیدترین پیام‌ها را نگه می‌دارد (یا قدیمی‌ترین‌ها را حذف می‌کند)",
            "zh": "strategy='first' 保留最新的消息（或丢掉最早的消息）",
        }),
    ),
    ignore=(OTHER_STRATEGY,),
    subject=Term("first_strategy", en=("strategy='first'", 'strategy="first"', "'first'", '"first"', "first strategy"),
                 fa=("strategy='first'", 'strategy="first"', "'first'", '"first"'),
                 zh=("strategy='first'", 'strategy="first"', "'first'", '"first"')),
)

# --- exercise 04 q3: two spaces, the state and what is sent --------------------------------------

STATE = Term("state",
             en=("state", "stored", "store", "checkpoint", "thread", "saved", "memory", "database"),
             fa=("حالت", "وضعیت", "ذخیره", "چک پوینت", "رشته گفتگو", "حافظه"),
             zh=("状态", "存储", "保存的", "检查点", "线程", "数据库", "记忆"))
SENT = Term("sent",
            en=("trimmed list", "trimmed messages", "trimmed copy", "the trimmed", "what is sent", "what was sent",
                "what the model", "the list sent", "sent list", "the copy", "the model", "the prompt", "its input",
                "the call"),
            fa=("فهرست برش", "لیست برش", "برش خورده", "مدل", "فهرست کوتاه"),
            zh=("裁剪后的", "截断后的", "修剪后的", "模型", "发送的"))
SEND = Term("send", predicate=True,
            en=("send", "sent", "passe", "given", "goes to the model", "fed", "trimmed"),
            fa=("ارسال", "فرستاد", "می فرست", "داده می", "برش"),
            zh=("发送", "发给", "传给", "送给", "输入给", "交给", "裁剪"))
WINDOW_FULL = Term("window_full",
                   en=("window was exceeded", "window is exceeded", "exceeded the window", "exceeded the context",
                       "window overflow", "too long for the window", "window was full", "window is full"),
                   fa=("پنجره پر", "از پنجره بیشتر"),
                   zh=("窗口超出", "超出了窗口", "超过了窗口", "窗口满了", "超出上下文"))

EX04_Q3 = Claim(
    "04 q3",
    relations=(
        Relation("stored", ((KEEP, STATE),), {
            "en": "say where \"hi! I'm bob\" still is",
            "fa": "بگویید \"hi! I'm bob\" هنوز کجاست",
            "zh": "说明 \"hi! I'm bob\" 仍然在哪里",
        }),
        Relation("sent", ((SEND, SENT), (DROP, SENT), (KEEP, SENT)), {
            "en": "say what the model was sent in that call",
            "fa": "بگویید در آن فراخوانی چه چیزی به مدل فرستاده شد",
            "zh": "说明那次调用发送给模型的是什么",
        }),
    ),
    reversed=(
        Reversal(((DROP, STATE),), {"en": "that the name was removed from the stored state",
                                    "fa": "که نام از حالت ذخیره‌شده حذف شده است",
                                    "zh": "名字已经从存储的状态中删除了"}),
        Reversal(((WINDOW_FULL,),), {"en": "that the model's context window was exceeded",
                                     "fa": "که پنجره زمینه مدل پر شده است",
                                     "zh": "模型的上下文窗口被超出了"}),
    ),
)

# --- exercise 05 q4: which list the cap is for, and the tool results ----------------------------

SYSTEM_NEW = Term("system_new",
                  en=("system prompt", "system message", "the system", "new message", "new input", "user message",
                      "user input", "user's message", "new question", "s and u", "s + u", "s+u"),
                  fa=("سیستم", "پیام جدید", "ورودی", "پرسش جدید", "سوال جدید", "s و u"),
                  zh=("系统", "新消息", "新的消息", "用户输入", "输入", "新问题", "s 和 u"))
HISTORY_ALONE = Term("history_alone",
                     en=("history alone", "history only", "only the history", "just the history", "h_max", "h max",
                         "only trim the history", "trims only the history", "trim the history alone"),
                     fa=("فقط تاریخچه", "تنها تاریخچه", "خود تاریخچه"),
                     zh=("只有历史", "仅历史", "只是历史", "只裁剪历史", "仅裁剪历史", "h_max"))
TOOL = Term("tool", en=("tool", "function result", "function call"), fa=("ابزار",), zh=("工具",))
PAIRED = Term("paired", predicate=True, after_thing=True, opposite="orphaned",
              en=("with their call", "with its call", "with the call", "with their tool call", "with its tool call",
                  "with the tool call", "paired", "together", "next to their call", "after their call",
                  "follow their call", "follows its call", "with the aimessage", "with their aimessage",
                  "with the ai message", "with their request", "whole", "intact", "in one piece"),
              fa=("با فراخوانی", "کنار فراخوانی", "همراه فراخوانی", "با هم", "جفت"),
              zh=("和它的调用在一起", "和调用在一起", "在一起", "配对", "跟着", "紧跟", "和调用一起"))
ORPHANED = Term("orphaned", predicate=True, opposite="paired",
                en=("orphan", "without its call", "without their call", "without the call", "separat",
                    "split from", "cut off from", "lose their call", "loses its call", "alone at the start"),
                fa=("یتیم", "جدا", "بدون فراخوانی"),
                zh=("孤立", "孤儿", "分开", "分离", "脱离", "没有调用"))

HOLDS = Term("keep", predicate=True, opposite="drop",
             en=(*KEEP.en, "includ", "room for", "leaves room", "leave room", "makes room", "accounts for",
                 "account for", "counts", "covers"),
             fa=(*KEEP.fa, "شامل", "جا برای", "جای"), zh=(*KEEP.zh, "包括", "留出", "留给", "算上"))

EX05_Q4 = Claim(
    "05 q4",
    relations=(
        Relation("list", ((HOLDS, SYSTEM_NEW), (HISTORY_ALONE,)), {
            "en": "say which list your cap is for: what it holds besides the history (the system prompt, the new "
                  "message), or that it is the history alone",
            "fa": "بگویید سقف شما برای کدام فهرست است: جز تاریخچه چه چیزی در آن است (پرامپت سیستم، پیام جدید)، یا "
                  "این‌که فقط تاریخچه است",
            "zh": "说明你的上限是针对哪个列表的：除了历史它还包含什么（系统提示、新消息），或者它只是历史",
        }),
        Relation("tools", ((PAIRED, TOOL),), {
            "en": "say why an agent's kept history must start on a human turn: what happens to tool results",
            "fa": "بگویید چرا تاریخچه نگه‌داشته‌شده یک عامل باید با نوبت انسان شروع شود: چه بر سر نتیجه ابزارها می‌آید",
            "zh": "说明为什么智能体保留的历史必须从人类的消息开始：工具结果会怎样",
        }),
    ),
    reversed=(
        Reversal(((ORPHANED, TOOL),), {"en": "that start_on='human' separates tool results from their calls",
                                       "fa": "که start_on='human' نتیجه ابزار را از فراخوانی‌اش جدا می‌کند",
                                       "zh": "start_on='human' 会把工具结果和它的调用分开"}),
    ),
)

# --- exercise 06 q3: what to clear in an agent's context ------------------------------------------

FILE = Term("file", en=("file", "read_file"), fa=("فایل",), zh=("文件",))
TEST = Term("test", en=("test", "run_tests"), fa=("تست", "آزمون"), zh=("测试",))
STORED = Term("stored",
              en=("stored history", "the history", "history", "the state", "stored", "the record", "raw output",
                  "the thread"),
              fa=("تاریخچه", "ذخیره", "حالت"),
              zh=("历史", "存储", "状态", "记录"))
BIG = Term("big", predicate=True, after_thing=True,
           en=("big", "bigger", "biggest", "large", "largest", "bulk", "most of the tokens", "most tokens",
               "most of the context", "heavy", "huge", "20,000", "20000", "most of the input", "take up"),
           fa=("بزرگ", "حجیم", "بیشتر توکن", "بخش عمده", "عمده", "زیادی", "جای زیادی"),
           zh=("很大", "最大", "大部分", "最多", "占用", "很长", "庞大"))
REREAD = Term("reread", predicate=True, after_thing=True,
              en=("read again", "re-read", "reread", "fetch again", "re-fetch", "refetch", "read it again",
                  "read them again", "reopen", "open again", "read back"),
              fa=("دوباره خواند", "دوباره بخوان", "دوباره خوانده", "باز خوان", "دوباره خواندنی"),
              zh=("重新读", "再读", "再次读", "重新读取", "重新打开", "再次获取", "再读一次"))
CLEAR = Term("drop", predicate=True, opposite="keep",
             en=("clear", "remove", "drop", "delete", "erase", "discard", "evict", "lose", "lost", "cut", "forget",
                 "trim", "gone", "rewrit", "summaris", "summariz"),
             fa=("پاک", "حذف", "خالی", "از دست", "برش", "کوتاه"),
             zh=("清除", "清理", "删除", "删掉", "去掉", "丢弃", "丢掉", "丢", "裁剪", "截断", "改写"))
KEPT = Term("keep", predicate=True, opposite="drop", en=KEEP.en, fa=KEEP.fa, zh=KEEP.zh)
EXCLUDE = Term("exclude", predicate=True,
               en=("exclude", "spare", "protect", "leave alone", "left alone", "except", "skip"),
               fa=("مستثنی", "استثنا", "دست نمی خورد", "کنار گذاشته نمی"),
               zh=("排除", "例外", "不清除", "不会被清除", "保护"))
WHOLE = Term("whole", predicate=True, after_thing=True,
             en=("whole", "intact", "complete", "unchanged", "untouched", "everything", "all of it", "in full"),
             fa=("کامل", "دست نخورده", "همه چیز"),
             zh=("完整", "不变", "全部", "原样"))

EX06_Q3 = Claim(
    "06 q3",
    relations=(
        Relation("files", ((BIG, FILE), (REREAD, FILE)), {
            "en": "say why the old file reads are the ones to clear (how big are they, and can they be read again?)",
            "fa": "بگویید چرا خواندن‌های قدیمی فایل همان‌هایی‌اند که باید پاک شوند (چقدر بزرگ‌اند و آیا می‌شود دوباره "
                  "خواندشان؟)",
            "zh": "说明为什么要清除的是旧的文件读取结果（它们有多大？能不能重新读取？）",
        }),
        Relation("kept", ((KEPT, TEST), (EXCLUDE, TEST), (KEPT, STORED), (WHOLE, STORED)), {
            "en": "say what the later steps and the review still need, and how this choice keeps it",
            "fa": "بگویید گام‌های بعدی و بازبینی هنوز به چه نیاز دارند و این انتخاب چگونه آن را نگه می‌دارد",
            "zh": "说明后面的步骤和审查还需要什么，以及这个选择如何保留它",
        }),
    ),
    reversed=(
        Reversal(((CLEAR, TEST),), {"en": "that the test results are cleared",
                                    "fa": "که نتیجه تست‌ها پاک می‌شود",
                                    "zh": "测试结果会被清除"}),
        Reversal(((CLEAR, STORED),), {"en": "that the stored history loses messages",
                                      "fa": "که تاریخچه ذخیره‌شده پیام‌هایی را از دست می‌دهد",
                                      "zh": "存储的历史会丢失消息"}),
    ),
)
