import json, shutil
from pathlib import Path
from browser_support import LabPage
from test_browser_persian import persian_server, PANEL  # noqa
ROOT = Path(__file__).resolve().parents[1]

def test_look(chromium_browser, persian_server):
    context = chromium_browser.new_context(viewport={"width": 1280, "height": 900})
    lab = LabPage(context.new_page(), persian_server)
    lab.open_notebook("notebooks/fa/03_trimming_walkthrough.ipynb")
    lab.run_every_cell()
    out = Path("/tmp/look"); out.mkdir(exist_ok=True)
    tables = lab.page.locator(PANEL + " table.trim-table")
    n = tables.count()
    for i in range(min(n, 2)):
        tables.nth(i).scroll_into_view_if_needed()
        lab.page.screenshot(path=str(out / f"trim{i}.png"))
    context.close()
    assert n > 0
