"""The strings of a lesson's code cells, translated from a gettext catalogue (one ``.po`` per lesson).

English lesson code is plain Python: it prints with f-strings and passes
titles as plain strings. The Persian lesson runs the same program, with its
*strings* in Persian: ``notebooks/fa/po/NN_name.po`` maps each English string
to its translation, and :func:`translate_code` writes the Persian cell by
replacing every string constant that has a translation, nothing else. So
the two editions cannot compute different things, and
``tests/test_persian_code.py`` proves it by comparing their syntax trees with
the strings blanked (:func:`shape`).

The catalogue is an ordinary gettext catalogue, read and written with
Babel, so any PO editor works on it:

- a **msgid** is the English string: a plain string's value, or an
  f-string's text with its fields as written (``calls: {len(calls)}``; see
  :func:`msgid_of`); a translation must keep the same fields;
- ``--extract`` (:func:`update_catalogue`) adds every string a cell
  *shows*: arguments of ``print(...)`` and the keyword arguments
  ``title=``, ``label=``, ``description=``, ``header=``, ``headers=``,
  ``heading=`` and ``caption=``; a translator may add an entry for any
  other string of the lesson too (a label kept in a tuple), and it is kept
  while that string is in the English code; an English string that
  changes comes back **fuzzy** with the old translation (Babel's fuzzy
  matching), and is not used until a translator clears the flag;
- a translation equal to its msgid says "stays English on purpose" (code
  names, data).

>>> print(translate_code('print(f"calls: {n}")', {"calls: {n}": "فراخوانی‌ها: {n}"}))
print(f"فراخوانی‌ها: {n}")
"""

from __future__ import annotations

import ast
import io
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

#: Keyword arguments whose string values a reader sees (a widget's title, a table's header).
SHOWN_KEYWORDS = {"title", "label", "description", "header", "headers", "heading", "caption"}
#: Format characters kept as they are in the written code: Persian needs the zero-width (non-)joiner.
KEPT_FORMAT_CHARACTERS = {"\u200c", "\u200d"}
WORD = re.compile(r"[A-Za-z]{3}")  # a word, not a language code such as "fa"
MAGIC = re.compile(r"^(\s*)[%!].*$", re.M)


class CatalogueError(ValueError):
    """A translation that cannot replace its English string: the message names it and says why."""


def mask_magics(source: str) -> str:
    """IPython magics (``%matplotlib inline``) replaced by ``pass``, so the cell parses with the same lines.

    >>> mask_magics("%matplotlib inline\\nx = 1")
    'pass\\nx = 1'
    """
    return MAGIC.sub(lambda m: m.group(1) + "pass", source)


def parse(source: str) -> ast.Module:
    return ast.parse(mask_magics(source))


# --- which strings ---------------------------------------------------------------


def string_nodes(tree: ast.AST) -> Iterator[ast.expr]:
    """Every string constant and f-string of ``tree``, outermost only (an f-string is one string)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            yield node
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def shown_nodes(tree: ast.AST) -> Iterator[ast.expr]:
    """The strings a cell shows: inside ``print(...)``'s arguments, or a shown keyword's value, with a word."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        if isinstance(node.func, ast.Name) and node.func.id == "print":
            roots = [*node.args, *(k.value for k in node.keywords)]
        else:
            roots = [k.value for k in node.keywords if k.arg in SHOWN_KEYWORDS]
        for root in roots:
            for string in string_nodes(root):
                if WORD.search(literal_text(string)):
                    yield string


def literal_text(node: ast.expr) -> str:
    """The words of a string node: its value, or an f-string's literal parts."""
    if isinstance(node, ast.Constant):
        return node.value
    return "".join(v.value for v in node.values if isinstance(v, ast.Constant))


def _field(value: ast.FormattedValue) -> str:
    conversion = "" if value.conversion == -1 else "!" + chr(value.conversion)
    spec = "" if value.format_spec is None else ":" + _template(value.format_spec)
    return "{" + ast.unparse(value.value) + conversion + spec + "}"


def _template(node: ast.JoinedStr) -> str:
    return "".join(
        v.value.replace("{", "{{").replace("}", "}}") if isinstance(v, ast.Constant) else _field(v)
        for v in node.values
    )


def msgid_of(node: ast.expr) -> str:
    """The catalogue key of a string node: a string's value, or an f-string's text with its fields.

    >>> msgid_of(ast.parse('f"{n:,} tokens ({share!r})"').body[0].value)
    '{n:,} tokens ({share!r})'
    """
    return node.value if isinstance(node, ast.Constant) else _template(node)


def shown_strings(source: str) -> list[str]:
    """The msgids a code cell shows, in order, once each.

    >>> shown_strings('print("total:", f"{n} calls")\\nx = "data"\\nplot(title="Growth")')
    ['total:', '{n} calls', 'Growth']
    """
    try:
        tree = parse(source)
    except SyntaxError:
        return []
    found = sorted(shown_nodes(tree), key=lambda n: (n.lineno, n.col_offset))
    return list(dict.fromkeys(msgid_of(n) for n in found))


def all_strings(source: str) -> set[str]:
    """Every msgid of a cell, shown or not (a catalogue entry is kept while its string is in the code)."""
    try:
        return {msgid_of(n) for n in string_nodes(parse(source))}
    except SyntaxError:
        return set()


# --- writing a translation as Python ---------------------------------------------


def fields(template: str) -> list[str]:
    """The ``{...}`` fields of an f-string template, in order (``{{`` and ``}}`` are literal braces).

    >>> fields("{a:>{w}} and {{x}} {b!r}")
    ['{a:>{w}}', '{b!r}']
    """
    return [piece for is_field, piece in _pieces(template) if is_field]


def _pieces(template: str) -> list[tuple[bool, str]]:
    """A template cut into literal text and fields, ``(is_field, text)``."""
    pieces, i, literal = [], 0, []
    while i < len(template):
        two = template[i:i + 2]
        if two in ("{{", "}}"):
            literal.append(two)
            i += 2
        elif template[i] == "{":
            depth, j = 0, i
            while j < len(template):
                depth += {"{": 1, "}": -1}.get(template[j], 0)
                if depth == 0:
                    break
                j += 1
            if depth:
                raise CatalogueError(f"unclosed field in {template!r}")
            pieces += [(False, "".join(literal)), (True, template[i:j + 1])]
            literal, i = [], j + 1
        elif template[i] == "}":
            raise CatalogueError(f"a lone '}}' in {template!r}: write '}}}}' for a brace")
        else:
            literal.append(template[i])
            i += 1
    pieces.append((False, "".join(literal)))
    return [p for p in pieces if p[1]]


def _escape(text: str, quote: str) -> str:
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif ch == quote:
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif not ch.isprintable() and ch not in KEPT_FORMAT_CHARACTERS:
            out.append(f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08x}")
        else:
            out.append(ch)
    return "".join(out)


def python_literal(text: str, f_string: bool) -> str:
    """Python source for a string, or for an f-string whose template is ``text``.

    Isolates and marks (U+2066-2069, U+200E/F) are written as escapes, so a
    reader of the code sees them; letters, digits and the zero-width
    non-joiner of Persian words are written as they are.

    >>> print(python_literal("\\u2067گفت «سلام»\\u2069", False))
    "\\u2067گفت «سلام»\\u2069"
    >>> print(python_literal("{m['id']} \\"x\\"", True))
    f"{m['id']} \\"x\\""
    """
    expressions = "".join(p for is_field, p in _pieces(text) if is_field) if f_string else ""
    quote = next((q for q in ('"', "'") if q not in expressions), None)
    if quote is None:
        raise CatalogueError(f"the fields of {text!r} use both quote characters; an f-string cannot hold them")
    if not f_string:
        return quote + _escape(text, quote) + quote
    body = "".join(p if is_field else _escape(p, quote) for is_field, p in _pieces(text))
    return "f" + quote + body + quote


def field_code(field: str) -> str:
    """A field's code, without its format spec (a translation may pad differently).

    >>> field_code("{len(rows):>3}"), field_code("{d['a:b']!r:>4}")
    ('{len(rows)}', "{d['a:b']!r}")
    """
    node = ast.parse("f" + repr(field), mode="eval").body.values[0]
    conversion = "" if node.conversion == -1 else "!" + chr(node.conversion)
    return "{" + ast.unparse(node.value) + conversion + "}"


def check_translation(msgid: str, msgstr: str, f_string: bool) -> None:
    """A translation keeps an f-string's fields (they are code), in any order; only their padding may change."""
    if not f_string:
        return
    english, persian = sorted(map(field_code, fields(msgid))), sorted(map(field_code, fields(msgstr)))
    if english != persian:
        raise CatalogueError(
            f"the translation of {msgid!r} must keep its fields {english}, has {persian}: copy them from the English"
        )


def _offsets(source: str) -> list[int]:
    """The character offset where each line starts."""
    starts, total = [0], 0
    for line in source.splitlines(keepends=True):
        total += len(line)
        starts.append(total)
    return starts


def _position(source: str, starts: list[int], line: int, byte_col: int) -> int:
    text = source[starts[line - 1]:starts[line] if line < len(starts) else len(source)]
    return starts[line - 1] + len(text.encode("utf-8")[:byte_col].decode("utf-8"))


def translate_code(source: str, translations: dict[str, str]) -> str:
    """``source`` with every string that has a translation replaced by it; nothing else changes.

    >>> translate_code('x = "data"\\nprint("total: {}".format(x))', {"total: {}": "جمع: {}"})
    'x = "data"\\nprint("جمع: {}".format(x))'
    """
    try:
        tree = parse(source)
    except SyntaxError:
        return source
    starts = _offsets(source)
    edits = []
    for node in string_nodes(tree):
        msgid = msgid_of(node)
        if msgid not in translations or translations[msgid] == msgid:
            continue
        f_string = isinstance(node, ast.JoinedStr)
        check_translation(msgid, translations[msgid], f_string)
        begin = _position(source, starts, node.lineno, node.col_offset)
        end = _position(source, starts, node.end_lineno, node.end_col_offset)
        edits.append((begin, end, python_literal(translations[msgid], f_string)))
    for begin, end, text in sorted(edits, reverse=True):
        source = source[:begin] + text + source[end:]
    return source


# --- the same program --------------------------------------------------------------


class _Blank(ast.NodeTransformer):
    """Strings blanked, and an f-string reduced to its fields in a fixed order (translations may reorder)."""

    def visit_Constant(self, node):
        return ast.Constant("") if isinstance(node.value, str) else node

    def visit_JoinedStr(self, node):
        values = [ast.FormattedValue(self.visit(v.value), v.conversion, None)  # padding is the translation's
                  for v in node.values if isinstance(v, ast.FormattedValue)]
        return ast.JoinedStr(sorted(values, key=ast.dump))


def shape(source: str) -> str:
    """A cell's syntax tree with its strings blanked: equal shapes mean the same program apart from strings.

    >>> shape('print(f"{a} of {b}")') == shape('print(f"از {b}، {a}")')
    True
    >>> shape('print(f"{a}")') == shape('print(f"{a + 1}")')
    False
    """
    return ast.dump(_Blank().visit(parse(source)))


# --- the catalogue -------------------------------------------------------------------


def read_catalogue(path: Path) -> Catalog:
    """The catalogue at ``path`` (an empty one for Persian when there is none yet)."""
    if not path.exists():
        return Catalog(locale="fa")
    with path.open("rb") as handle:
        return read_po(handle, locale="fa")


def write_catalogue(catalogue: Catalog, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    write_po(buffer, catalogue, width=0, omit_header=True, sort_output=False, include_previous=True)
    path.write_bytes(buffer.getvalue())


def translations(catalogue: Catalog) -> dict[str, str]:
    """The usable translations: neither empty nor fuzzy."""
    return {m.id: m.string for m in catalogue if m.id and m.string and not m.fuzzy}


def update_catalogue(catalogue: Catalog, cells: Iterable[tuple[str, str]]) -> Catalog:
    """The catalogue brought up to the English ``(cell id, source)`` cells (what ``--extract`` writes).

    Every shown string gets an entry (empty when new); an entry for another
    string is kept while that string is still in the code; an entry whose
    string left the code is dropped; a changed string gets its old
    translation back marked fuzzy (Babel's matching).
    """
    cells = list(cells)
    template = Catalog(locale="fa")
    present = set().union(*(all_strings(src) for _, src in cells)) if cells else set()
    for cell_id, src in cells:
        for msgid in shown_strings(src):
            template.add(msgid, locations=[(f"cell-{cell_id}", 0)])
    for message in catalogue:
        if message.id and message.id in present and message.id not in template:
            template.add(message.id, locations=message.locations)
    catalogue.update(template, no_fuzzy_matching=False, update_header_comment=False)
    catalogue.obsolete.clear()
    return catalogue


def missing(catalogue: Catalog, cells: Iterable[tuple[str, str]]) -> list[str]:
    """Shown strings with no usable translation: what makes the Persian lesson stale."""
    usable = translations(catalogue)
    return [msgid for _, src in cells for msgid in shown_strings(src) if msgid not in usable]
