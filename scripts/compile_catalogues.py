"""Compile the package's gettext catalogues: course_utils/locale/*/LC_MESSAGES/*.po -> .mo.

The .mo files are committed (an installed package needs no build step);
tests/test_i18n.py fails when one of them no longer matches its .po.
Babel (pinned in requirements.txt) reads and writes the catalogues.

    python scripts/compile_catalogues.py          # write the .mo files
    python scripts/compile_catalogues.py --check  # exit 1 when one is stale
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

LOCALE_DIR = Path(__file__).resolve().parent.parent / "course_utils" / "locale"


def compiled(po_path: Path) -> bytes:
    """The .mo bytes of one .po file (fuzzy entries left out, as msgfmt does)."""
    with po_path.open("rb") as f:
        catalog = read_po(f, locale=po_path.parent.parent.name)
    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    return buffer.getvalue()


def catalogues() -> list[Path]:
    return sorted(LOCALE_DIR.glob("*/LC_MESSAGES/*.po"))


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for po in catalogues():
        mo, data = po.with_suffix(".mo"), compiled(po)
        if mo.exists() and mo.read_bytes() == data:
            continue
        stale.append(mo)
        if not check:
            mo.write_bytes(data)
            print("wrote", mo.relative_to(LOCALE_DIR.parent.parent))
    if check and stale:
        print("stale catalogues (run python scripts/compile_catalogues.py):", *stale, sep="\n  ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
