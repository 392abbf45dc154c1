"""Saved from notebooks/07b_isolating_and_selecting.ipynb by scripts/save_lessons.py: edit the lesson, not this file.

Each block below is one code cell of the lesson marked ``#@save``, in the lesson's order.
"""

# --- notebooks/07b_isolating_and_selecting.ipynb, cell 1be4cfe1 ---
from langchain.agents import create_agent
from langchain.tools import tool
from langchain_core.messages import HumanMessage

from course_utils.agentic.agent_tools import web_search

CHILD_PROMPT = "You are a research assistant. Search the web, then answer the question in one line."
PARENT_PROMPT = "You are a travel assistant. Hand research to your research tool and answer from what it returns."
SINGLE_PROMPT = "You are a travel assistant. Search the web yourself and answer from what you find."


def research_agents(model):
    """A parent agent ("planner") whose only tool runs a child agent ("researcher") in its own window."""
    child = create_agent(model, [web_search], system_prompt=CHILD_PROMPT, name="researcher")

    @tool
    def research(question: str) -> str:
        """Search the web with a research sub-agent; returns only its short answer, not the pages."""
        state = child.invoke({"messages": [HumanMessage(f"Search the web for {question}")]})
        return state["messages"][-1].text  # the child's final answer; its pages stay in its own state

    return create_agent(model, [research], system_prompt=PARENT_PROMPT, name="planner")


def single_agent(model):
    """One agent that searches the web itself: every page it reads stays in its window."""
    return create_agent(model, [web_search], system_prompt=SINGLE_PROMPT, name="single")
