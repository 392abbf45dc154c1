"""Write the course's agent conversation in each format ``course_utils.agentic.conversations`` reads.

The appendix "your own conversation" loads these files, and the tests check
that each loads to the same messages. Run after changing the sample
``course_utils/data/agent_tools.json``:

    python scripts/make_conversation_samples.py

- ``agent_tools.openai.jsonl``: OpenAI-style messages, one a line
  (``langchain_core.messages.convert_to_openai_messages``);
- ``agent_tools.anthropic.json``: an Anthropic-style request body with
  ``tool_use`` / ``tool_result`` blocks (``conversations.messages_to_anthropic``);
- ``agent_tools.langchain.json``: LangChain's own dump (``messages_to_dict``), ids included.
"""

from __future__ import annotations

import json
from pathlib import Path

from langchain_core.messages import convert_to_openai_messages, messages_to_dict

from course_utils.agentic.conversations import messages_to_anthropic
from course_utils.core.samples import load_conversation

FOLDER = Path(__file__).resolve().parents[1] / "course_utils" / "data" / "conversations"
SAMPLE = "agent_tools"


def sample_files() -> dict[str, str]:
    """File name -> text, for the sample conversation in each format."""
    messages = load_conversation(SAMPLE)
    dump = lambda value: json.dumps(value, ensure_ascii=False, indent=1) + "\n"  # noqa: E731
    return {
        f"{SAMPLE}.openai.jsonl": "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in convert_to_openai_messages(messages)),
        f"{SAMPLE}.anthropic.json": dump(messages_to_anthropic(messages)),
        f"{SAMPLE}.langchain.json": dump(messages_to_dict(messages)),
    }


def main() -> None:
    FOLDER.mkdir(parents=True, exist_ok=True)
    for name, text in sample_files().items():
        (FOLDER / name).write_text(text, encoding="utf-8")
        print(f"wrote {FOLDER / name}")


if __name__ == "__main__":
    main()
