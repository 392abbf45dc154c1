"""Many offline tools for one agent, so a lesson can measure what their schemas cost (lesson 07b).

A real assistant soon has a dozen tools or more, and every model call is
sent every bound tool's JSON schema. These are real LangChain tools over
small, fixed sample data: lesson 06's three travel tools
(:mod:`course_utils.agentic.agent_tools`) and eleven more with the long,
specific descriptions real tools carry. Every price, rate, time and address
is illustrative.

>>> [tool.name for tool in CATALOGUE][:4]
['get_weather', 'web_search', 'read_file', 'add']
>>> add.invoke({"a": 120, "b": 45})
'120 + 45 = 165'
"""

from __future__ import annotations

from langchain_core.tools import tool

from course_utils.core.args import check_text
from course_utils.agentic.agent_tools import get_weather, read_file, web_search

#: Sample exchange rates to the euro (illustrative, not today's).
EUR_RATES = {"EUR": 1.0, "USD": 1.08, "GBP": 0.85, "JPY": 162.0, "CHF": 0.95}


def _number(value: float) -> str:
    return f"{value:g}"


@tool
def add(a: float, b: float) -> str:
    """Add two numbers and return their sum. Use it for totals of prices, distances or times."""
    return f"{_number(a)} + {_number(b)} = {_number(a + b)}"


@tool
def multiply(a: float, b: float) -> str:
    """Multiply two numbers and return their product, for example a nightly price times the nights."""
    return f"{_number(a)} × {_number(b)} = {_number(a * b)}"


@tool
def convert_currency(amount: float, from_currency: str, to_currency: str) -> str:
    """Convert an amount of money from one currency to another (EUR, USD, GBP, JPY, CHF) at a sample rate."""
    source, target = from_currency.strip().upper(), to_currency.strip().upper()
    for code in (source, target):
        if code not in EUR_RATES:
            return f"Unknown currency {code!r}; known: {', '.join(EUR_RATES)}."
    value = amount / EUR_RATES[source] * EUR_RATES[target]
    return f"{_number(amount)} {source} = {value:.2f} {target} (sample rate)."


@tool
def train_times(origin: str, destination: str) -> str:
    """List the train departures between two cities for tomorrow, with durations, changes and fares."""
    return (f"Trains {origin} -> {destination} tomorrow: 07:09 (2 h 49 min, direct, €31), "
            f"09:39 (3 h 15 min, direct, €25), 14:09 (2 h 58 min, 1 change, €25). Sample timetable.")


@tool
def book_hotel(city: str, nights: int) -> str:
    """Book a hotel room in a city for a number of nights and return the booking reference and price."""
    city = check_text(city, "city", empty_ok=False).strip()
    return f"Booked 1 room in {city} for {nights} night(s), €95 a night. Reference HB-{len(city) * 37 + nights}."


@tool
def find_restaurants(city: str, cuisine: str) -> str:
    """Find restaurants of a given cuisine in a city, with their area, price level and opening hours."""
    return (f"{cuisine.title()} restaurants in {city}: Casa Aurora (centre, €€, 12:00-23:00), "
            f"Tasca do Rio (riverside, €, 19:00-00:00). Sample listings.")


@tool
def translate_text(text: str, target_language: str) -> str:
    """Translate a short text into another language (sample phrasebook: greetings and thanks only)."""
    phrasebook = {"portuguese": {"thank you": "obrigado", "hello": "olá", "good morning": "bom dia"}}
    found = phrasebook.get(target_language.strip().lower(), {}).get(text.strip().lower().rstrip(".!"))
    return found or f"No sample translation of {text!r} into {target_language}."


@tool
def museum_hours(museum: str) -> str:
    """Opening hours, closing days and ticket prices of a museum or monument."""
    return f"{museum}: open 10:00-18:00, closed on Mondays; tickets €12 (sample data)."


@tool
def send_email(to: str, subject: str, body: str) -> str:
    """Send an email to an address with a subject and a body. Use only when the user asks to send one."""
    return f"Email to {to} with subject {subject!r} queued (offline: nothing is sent)."


@tool
def time_zone(city: str) -> str:
    """The time zone and UTC offset of a city, and whether it observes daylight saving time."""
    return f"{city}: Western European Time, UTC+0 (UTC+1 in summer). Sample data."


@tool
def flight_status(flight_number: str) -> str:
    """The status of a flight by its number: scheduled and expected times, gate and terminal."""
    return f"Flight {flight_number}: on time, departs 10:35 from terminal 1, gate 12 (sample data)."


#: Fourteen tools: lesson 06's three first, then the others.
CATALOGUE = [get_weather, web_search, read_file, add, multiply, convert_currency, train_times, book_hotel,
             find_restaurants, translate_text, museum_hours, send_email, time_zone, flight_status]
