"""Offline tools for lesson 06's agent: a forecast, a web search and a file reader.

Real LangChain tools (``@tool``) over bundled sample data
(``course_utils/data/agent/corpus.json``, beside
the sample conversations rather than among them), so an agent built with
``create_agent`` runs with no network and gives the same results every time.
Some results are large on purpose: a web search returns three whole pages,
a file is read whole. That is how tool results, not chat turns, come to fill
an agent's context window.

Every place, price, time and site (``.example``) in the data is illustrative.

>>> print(get_weather.invoke({"city": "Porto", "day": "Saturday"}).splitlines()[0])
Porto, Saturday: light rain in the morning, sunny spells after 14:00; 11-19 °C.
>>> [tool.name for tool in TRIP_TOOLS]
['get_weather', 'web_search', 'read_file']
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from importlib import resources
from typing import Any

from langchain_core.tools import tool

from course_utils.core.args import check_int, check_text
from course_utils.model.tool_calling import content_words

#: Days the bundled forecasts cover; other days (and unknown cities) get a generated forecast.
DEFAULT_DAY = "Saturday"
SEARCH_RESULTS = 3
SKIES = ("sunny", "partly cloudy", "cloudy", "light rain", "showers", "clear")


@lru_cache(maxsize=1)
def load_corpus() -> dict[str, Any]:
    """The bundled sample data: ``{"weather": ..., "pages": [...], "files": {...}}``."""
    text = resources.files("course_utils").joinpath("data", "agent", "corpus.json").read_text(encoding="utf-8")
    return json.loads(text)


def _generated_forecast(city: str, day: str) -> dict[str, Any]:
    """A deterministic forecast for a city or day the data does not hold (from a hash, not random)."""
    seed = hashlib.sha256(f"{city.lower()}|{day.lower()}".encode()).digest()
    low = 5 + seed[0] % 15
    high = low + 4 + seed[1] % 9
    hourly = [[hour, low + (high - low) * k // 6, SKIES[(seed[2] + k) % len(SKIES)]] for k, hour in enumerate(range(9, 22, 2))]
    return {
        "sky": SKIES[seed[3] % len(SKIES)],
        "min": low,
        "max": high,
        "wind": f"{('N', 'NE', 'E', 'SE', 'S', 'SW', 'W', 'NW')[seed[4] % 8]} {5 + seed[5] % 30} km/h",
        "rain": f"{seed[6] % 10 * 10}%, {seed[7] % 50 / 10} mm",
        "uv": 1 + seed[8] % 8,
        "sunrise": "07:00",
        "sunset": "19:30",
        "hourly": hourly,
    }


def forecast_text(city: str, day: str = DEFAULT_DAY) -> str:
    """The forecast lines for a city and a day. Each line names the city and the day,
    so a single line still says what it is about."""
    city = check_text(city, "city", empty_ok=False).strip()
    day = check_text(day, "day", empty_ok=False).strip().capitalize()
    if day in ("Today", "Tonight", "Tomorrow"):
        day = DEFAULT_DAY if day != "Tomorrow" else "Sunday"
    known = {name.lower(): name for name in load_corpus()["weather"]}
    name = known.get(city.lower(), city)
    data = load_corpus()["weather"].get(name, {}).get(day) or _generated_forecast(name, day)
    where = f"{name}, {day}"
    lines = [
        f"{where}: {data['sky']}; {data['min']}-{data['max']} °C.",
        f"{where}: wind {data['wind']}.",
        f"{where}: chance of rain {data['rain']}.",
        f"{where}: UV index {data['uv']}; sunrise {data['sunrise']}, sunset {data['sunset']}.",
    ]
    lines += [f"{where} {hour:02d}:00: {temp} °C, {sky}." for hour, temp, sky in data["hourly"]]
    lines.append("Source: weather-service.example (sample data).")
    return "\n".join(lines)


def search_pages(query: str, results: int = SEARCH_RESULTS) -> list[dict[str, Any]]:
    """Up to ``results`` bundled pages sharing the most content words with ``query``, best first
    (ties: corpus order); a page must share at least half of the query's words."""
    query = check_text(query, "query", empty_ok=False)
    results = check_int(results, "results", minimum=1)
    wanted = content_words(query)
    scored = []
    for order, page in enumerate(load_corpus()["pages"]):
        words = content_words(page["title"] + " " + " ".join(page["text"]))
        scored.append((-len(wanted & words), order, page))
    scored.sort(key=lambda item: item[:2])
    # A page must share at least half of the query's words (one for a one-word query).
    needed = max(1, (len(wanted) + 1) // 2)
    return [page for score, _, page in scored[:results] if -score >= needed]


def search_text(query: str, results: int = SEARCH_RESULTS) -> str:
    """Whole pages as one search result: title, address and text of each."""
    pages = search_pages(query, results)
    if not pages:
        return f"No results for {query!r}."
    blocks = ["\n".join([f"{page['title']}", page["url"], *page["text"]]) for page in pages]
    return "\n\n".join(blocks)


def file_text(path: str) -> str:
    """A bundled file's whole text, or a message listing the files there are."""
    path = check_text(path, "path", empty_ok=False).strip().lstrip("./")
    files = load_corpus()["files"]
    if path in files:
        return files[path]
    return f"No file named {path!r}. Files in the trip folder: {', '.join(sorted(files))}."


@tool
def get_weather(city: str, day: str = DEFAULT_DAY) -> str:
    """Get the weather forecast for a city on a given day (Saturday by default)."""
    return forecast_text(city, day)


@tool
def web_search(query: str) -> str:
    """Search the web and return the top three pages for a query, in full."""
    return search_text(query)


@tool
def read_file(path: str) -> str:
    """Read a file from the trip folder and return its whole text."""
    return file_text(path)


#: The three tools of lesson 06's travel agent.
TRIP_TOOLS = [get_weather, web_search, read_file]
