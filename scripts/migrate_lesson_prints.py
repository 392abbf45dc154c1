"""One-off migration (issue 32): a lesson's ``_()`` prints become plain Python, their Persian goes to its catalogue.

Lessons used to print through gettext (``print(_("calls: {}").format(n))``)
so that the shared code cells printed Persian in the Persian edition. Now
English code is plain Python (``print(f"calls: {n}")``) and the Persian
lesson's strings come from ``notebooks/fa/po/NN_name.po``
(``scripts/code_catalogue.py``). This script rewrites one lesson's code
cells so (an f-string where the ``.format`` arguments are short, otherwise
the plain string with its ``.format``), drops the i18n import, and writes the
lesson's catalogue with the Persian the package catalogue had for each
sentence, converted to the new fields (strings that were never wrapped are
recorded as staying English). A ``_()`` of a variable is reported for a
hand edit. Check the result: strict nbval on the English lesson must pass
on its stored outputs unchanged.

    python scripts/migrate_lesson_prints.py . 04_langgraph_integration

It goes away once every lesson is migrated.
"""
import ast, string, sys, re
from pathlib import Path
import nbformat
repo = Path(sys.argv[1]).resolve()
sys.path[:0] = [str(repo), str(repo / "scripts")]
import code_catalogue as cc
from course_utils.core import i18n
from babel.messages.catalog import Catalog

i18n.set_language("fa")
tr = i18n._translation
RLI, PDI = "\u2067", "\u2069"

def persian(text, isolate):
    p = tr.gettext(text)
    if p == text:
        return None
    return f"{RLI}{p}{PDI}" if isolate else p

def is_wrap(node):
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("_", "translate")
            and len(node.args) == 1 and not node.keywords)

def to_fstring_template(template, args, kwargs):
    """template with .format fields -> f-string template, or None."""
    out, auto = [], 0
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError:
        return None
    for literal, name, spec, conv in parsed:
        out.append(literal.replace("{", "{{").replace("}", "}}"))
        if name is None:
            continue
        m = re.match(r"^([A-Za-z_]\w*|\d*)(.*)$", name)
        head, rest = m.groups()
        if head == "":
            if auto >= len(args): return None
            expr = args[auto]; auto += 1
        elif head.isdigit():
            if int(head) >= len(args): return None
            expr = args[int(head)]
        else:
            if head not in kwargs: return None
            expr = kwargs[head]
        if rest:
            if not re.fullmatch(r"(\.\w+)+", rest): return None
            expr = f"({expr})" if not re.fullmatch(r"[\w.]+", expr) else expr
        if spec and "{" in spec: return None
        out.append("{" + expr + rest + (("!" + conv) if conv else "") + ((":" + spec) if spec else "") + "}")
    return "".join(out)

def split_literal(literal, column, width=96):
    """A long literal as implicitly concatenated parts, one a line, aligned at ``column``."""
    if column + len(literal) <= width:
        return literal
    prefix = "f" if literal.startswith("f") else ""
    quote = literal[len(prefix)]
    body = literal[len(prefix) + 1:-1]
    # cut at spaces outside {fields}
    parts, current, depth = [], "", 0
    room = max(40, width - column - 4)
    for ch in body:
        current += ch
        depth += {"{": 1, "}": -1}.get(ch, 0) if prefix else 0
        if ch == " " and depth == 0 and len(current) >= room * 0.6:
            parts.append(current); current = ""
    if current:
        parts.append(current)
    if len(parts) == 1:
        return literal
    pieces = []
    for part in parts:
        pre = prefix if (not prefix or "{" in part) else ""
        if prefix and "{{" in part: pre = "f"
        if prefix and "{" not in part and "}" not in part: pre = ""
        pieces.append(f"{pre}{quote}{part}{quote}")
    return ("\n" + " " * column).join(pieces)

def simple(expr_node):
    return isinstance(expr_node, (ast.Name, ast.Attribute, ast.Constant, ast.Subscript))

def convert_cell(src, entries, problems, where):
    try:
        tree = cc.parse(src)
    except SyntaxError:
        return src
    starts = cc._offsets(src)
    pos = lambda l, c: cc._position(src, starts, l, c)
    edits, handled = [], set()
    for node in ast.walk(tree):
        # X.format(...) with X = _("...")
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format"
                and is_wrap(node.func.value)):
            wrap = node.func.value
            handled.add(id(wrap))
            arg = wrap.args[0]
            if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
                problems.append(f"{where}: dynamic {ast.unparse(wrap)}"); continue
            text, isolate = arg.value, wrap.func.id == "_"
            args = [ast.unparse(a) for a in node.args]
            kwargs = {k.arg: ast.unparse(k.value) for k in node.keywords if k.arg}
            counts = {}
            for _, name, _, _ in string.Formatter().parse(text):
                if name is not None:
                    counts[name] = counts.get(name, 0) + 1
            multi_complex = any(c > 1 and name and name in kwargs and not simple(next(k.value for k in node.keywords if k.arg == name)) for name, c in counts.items())
            exprs = args + list(kwargs.values())
            ok = (not any(k.arg is None for k in node.keywords) and not node.starargs if hasattr(node, "starargs") else not any(k.arg is None for k in node.keywords))
            ok = ok and not any(isinstance(a, ast.Starred) for a in node.args)
            ok = ok and all("\n" not in e and "\\" not in e and '"' not in e and len(e) <= 70 for e in exprs) and not multi_complex
            f_en = to_fstring_template(text, args, kwargs) if ok else None
            p = persian(text, isolate)
            f_fa = to_fstring_template(tr.gettext(text), args, kwargs) if (ok and p) else None
            if f_en is not None and (p is None or f_fa is not None):
                new = split_literal(cc.python_literal(f_en, True), node.col_offset)
                edits.append((pos(node.lineno, node.col_offset), pos(node.end_lineno, node.end_col_offset), new))
                if p is not None:
                    entries.setdefault(f_en, set()).add(f"{RLI}{f_fa}{PDI}" if isolate else f_fa)
            else:
                new = split_literal(cc.python_literal(text, False), wrap.col_offset)
                edits.append((pos(wrap.lineno, wrap.col_offset), pos(wrap.end_lineno, wrap.end_col_offset), new))
                if p is not None:
                    entries.setdefault(text, set()).add(p)
    for node in ast.walk(tree):
        if is_wrap(node) and id(node) not in handled:
            arg = node.args[0]
            if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
                problems.append(f"{where}: dynamic {ast.unparse(node)} at line {node.lineno}"); continue
            text = arg.value
            edits.append((pos(node.lineno, node.col_offset), pos(node.end_lineno, node.end_col_offset), split_literal(cc.python_literal(text, False), node.col_offset)))
            p = persian(text, node.func.id == "_")
            if p is not None:
                entries.setdefault(text, set()).add(p)
    for b, e, t in sorted(edits, reverse=True):
        src = src[:b] + t + src[e:]
    # the import line
    lines = []
    for line in src.split("\n"):
        m = re.match(r"^from course_utils\.core\.i18n import ([^#]*?)\s*(#.*)?$", line)
        if m:
            names = [n.strip() for n in m.group(1).split(",") if n.strip() not in ("_", "translate")]
            if not names:
                continue
            line = "from course_utils.core.i18n import " + ", ".join(names)
        lines.append(line)
    return "\n".join(lines)

for stem in sys.argv[2:]:
    path = repo / "notebooks" / f"{stem}.ipynb"
    nb = nbformat.read(path, as_version=4)
    entries, problems = {}, []
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.source = convert_cell(cell.source, entries, problems, f"{stem} cell {cell.id}")
    nbformat.write(nb, path)
    cat = Catalog(locale="fa")
    cells = [(c.id, c.source) for c in nb.cells if c.cell_type == "code"]
    cc.update_catalogue(cat, cells)
    for msgid, strs in entries.items():
        if len(strs) > 1:
            problems.append(f"{stem}: {msgid!r} has two translations {strs}")
        if msgid not in cat:
            cat.add(msgid)
        cat[msgid].string = sorted(strs)[0]
    for m in cat:
        if m.id and not m.string:
            m.string = m.id   # shown but never wrapped: English on purpose
    cc.write_catalogue(cat, repo / "notebooks" / "fa" / "po" / f"{stem}.po")
    print(stem, len(entries), "translated entries;", *problems, sep="\n  ")
