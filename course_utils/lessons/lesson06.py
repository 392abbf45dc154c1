"""Saved from notebooks/06_agent_context.ipynb by scripts/save_lessons.py: edit the lesson, not this file.

Each block below is one code cell of the lesson marked ``#@save``, in the lesson's order.
"""

# --- notebooks/06_agent_context.ipynb, cell l06-save-agent ---
from langchain.agents import create_agent
from langchain_core.tools import tool

from course_utils.agentic.agent_tools import file_text, forecast_text, search_text
from course_utils.model.chat import get_chat_model

WINDOW = 2048  # this lesson's context window, in tokens (cl100k_base, the "exact" counter)
SYSTEM_PROMPT = (
    "You are a travel research assistant. Look things up with your tools before you answer, "
    "and answer from what the tools returned."
)
# A short summary prompt (LangChain's default is a long checklist); {messages} is where the
# middleware puts the messages to summarise.
SUMMARY_PROMPT = "Write a summary of the conversation below, so the assistant can carry on with the task.\n\n{messages}"


@tool
def get_weather(city: str, day: str = "Saturday") -> str:
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


TOOLS = [get_weather, web_search, read_file]


def new_model(window=WINDOW):
    """The course's chat model: offline unless COURSE_CHAT_MODEL names a real one (e.g. "anthropic:claude-haiku-5-5")."""
    return get_chat_model(context_window=window)


def trip_agent(model, middleware=()):
    """The travel agent: the three tools, the system prompt, and the middleware given."""
    return create_agent(model, tools=TOOLS, system_prompt=SYSTEM_PROMPT, middleware=list(middleware))
