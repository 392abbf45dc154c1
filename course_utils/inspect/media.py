"""Images and files in a conversation, counted by each provider's published rule, never as base64 text.

A text tokenizer that read an image's base64 would count a 30 KB picture as
tens of thousands of tokens; providers bill it by its size in pixels. Each
rule below is the provider's own, read on the date in :data:`RULES`:

- **OpenAI** (GPT-4o-class tile rule): ``detail="low"`` costs 85 tokens; otherwise
  the image is scaled to fit 2048 x 2048, then down to a short side of 768,
  and costs 85 + 170 per 512-pixel tile (a 512 x 512 image: 255).
- **Anthropic**: an image whose long edge is over 1,568 pixels (or larger than
  about 1.15 megapixels) is first scaled down; it then costs width x height / 750 tokens.
- **Google** (Gemini): 258 tokens when both sides are at most 384 pixels,
  else 258 per 768 x 768 tile.

When the image's size cannot be known (a URL, a file id, an export that names
a file without its bytes) or the model's provider has no rule here, the
image is **not counted**, and the report says so and why.

>>> import base64, io
>>> from PIL import Image
>>> buffer = io.BytesIO(); Image.new("RGB", (1024, 1024)).save(buffer, "PNG")
>>> block = {"type": "image", "base64": base64.b64encode(buffer.getvalue()).decode(), "mime_type": "image/png"}
>>> image_tokens(block, "OpenAI").tokens, image_tokens(block, "Anthropic").tokens, image_tokens(block, "Google").tokens
(765, 1399, 1032)
"""

from __future__ import annotations

import base64
import binascii
import io
import math
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import BaseMessage

#: Each provider's rule: where it is published and when the course read it.
RULES = {
    "OpenAI": ("https://platform.openai.com/docs/guides/images-vision#calculating-costs", "2026-12-04",
               "85 + 170 per 512-px tile after scaling to fit 2048 x 2048 and down to a 768-px short side (low detail: 85)"),
    "Anthropic": ("https://platform.claude.com/docs/en/build-with-claude/vision", "2026-12-04",
                  "width x height / 750 after scaling the long edge to at most 1,568 px (about 1.15 megapixels)"),
    "Google": ("https://ai.google.dev/gemini-api/docs/tokens", "2026-12-04",
               "258 when both sides are at most 384 px, else 258 per 768 x 768 tile"),
}
#: Block types that hold an image or a file rather than text.
MEDIA_TYPES = ("image", "image_url", "input_image", "file", "input_file", "audio", "input_audio", "video", "document")


@dataclass(frozen=True)
class MediaCount:
    """One image or file: its tokens by the provider's rule, or None with the reason it is not counted."""

    kind: str
    tokens: int | None
    reason: str  #: the rule applied (with its size) or why nothing could be counted


def is_media(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") in MEDIA_TYPES


def _image_bytes(block: dict) -> bytes | None:
    """The image's bytes, when the block carries them (base64 field, data URL, Anthropic source)."""
    data = block.get("base64") or block.get("data")
    source = block.get("source")
    if isinstance(source, dict) and source.get("type") == "base64":
        data = source.get("data")
    url = block.get("url") or block.get("image_url")
    if isinstance(url, dict):
        url = url.get("url")
    if not data and isinstance(url, str) and url.startswith("data:") and "," in url:
        data = url.split(",", 1)[1]
    if not isinstance(data, str) or not data:
        return None
    try:
        return base64.b64decode(data, validate=False)
    except (binascii.Error, ValueError):
        return None


def image_size(block: dict) -> tuple[int, int] | None:
    """(width, height) in pixels: given in the block (ChatGPT's export) or read from its bytes' header."""
    width, height = block.get("width"), block.get("height")
    if isinstance(width, int) and isinstance(height, int) and width > 0 and height > 0:
        return width, height
    data = _image_bytes(block)
    if data is None:
        return None
    try:
        from PIL import Image

        with Image.open(io.BytesIO(data)) as image:  # reads the header only
            return image.size
    except Exception:  # not an image Pillow knows
        return None


def _openai(width: int, height: int, detail: str | None) -> int:
    if detail == "low":
        return 85
    scale = min(1.0, 2048 / max(width, height))
    width, height = width * scale, height * scale
    scale = min(1.0, 768 / min(width, height))  # scaled down to a 768-px short side, never up
    width, height = width * scale, height * scale
    return 85 + 170 * math.ceil(width / 512) * math.ceil(height / 512)


def _anthropic(width: int, height: int) -> int:
    scale = min(1.0, 1568 / max(width, height), math.sqrt(1_150_000 / (width * height)))
    return math.ceil(round(width * scale) * round(height * scale) / 750)


def _google(width: int, height: int) -> int:
    if width <= 384 and height <= 384:
        return 258
    return 258 * math.ceil(width / 768) * math.ceil(height / 768)


def image_tokens(block: dict, provider: str | None) -> MediaCount:
    """One media block's tokens for a model of ``provider`` (see the module), or why it is not counted."""
    kind = str(block.get("type"))
    if kind not in ("image", "image_url", "input_image"):
        return MediaCount(kind, None, "a file or audio: the course has no per-file rule to apply")
    size = image_size(block)
    if size is None:
        return MediaCount(kind, None, "its size is unknown (a link, a file id, or an export without the image)")
    if provider not in RULES:
        return MediaCount(kind, None, f"no published image rule for this model's provider ({provider or 'unknown'})")
    width, height = size
    linked = block.get("image_url")
    detail = block.get("detail") or (linked.get("detail") if isinstance(linked, dict) else None)
    tokens = {"OpenAI": lambda: _openai(width, height, detail), "Anthropic": lambda: _anthropic(width, height),
              "Google": lambda: _google(width, height)}[provider]()
    return MediaCount(kind, tokens, f"{width} x {height} px by {provider}'s rule")


def without_media(message: BaseMessage) -> BaseMessage:
    """The message with its images and files taken out of the content (what a text tokenizer should read)."""
    content = message.content
    if isinstance(content, str) or not any(is_media(b) for b in content):
        return message
    kept = [b for b in content if not is_media(b)]
    return message.model_copy(update={"content": kept})


class MediaAwareCounter:
    """A list counter: the text of each message by ``base``, its images by the provider's rule (see the module).

    Additive like the course's counters (``additive_parts`` reads its
    ``additive_parts()``), each message counted once and remembered.
    ``counts`` holds every media block met, for the report.
    """

    def __init__(self, base: Any, provider: str | None):
        from course_utils.window.tokens import additive_parts, counter_name

        parts = additive_parts(base)
        if parts is None:
            raise TypeError("the base counter must add up message by message (one of the course's counters)")
        self._one, self.extra = parts
        self.provider = provider
        self._cache: dict[int, tuple[BaseMessage, int]] = {}
        self.counts: dict[int, list[MediaCount]] = {}
        self.__name__ = counter_name(base)

    def count_message(self, message: BaseMessage) -> int:
        hit = self._cache.get(id(message))
        if hit is not None and hit[0] is message:
            return hit[1]
        content = message.content
        if isinstance(content, str) or not any(is_media(b) for b in content):
            tokens = self._one(message)
        else:
            found = [image_tokens(b, self.provider) for b in content if is_media(b)]
            self.counts[id(message)] = found
            tokens = self._one(without_media(message)) + sum(f.tokens or 0 for f in found)
        self._cache[id(message)] = (message, tokens)
        return tokens

    def additive_parts(self) -> tuple[Any, int]:
        return self.count_message, self.extra

    def __call__(self, messages: Any) -> int:
        messages = list(messages)
        return sum(self.count_message(m) for m in messages) + (self.extra if messages else 0)

    def media(self) -> list[MediaCount]:
        """Every media block counted (or not) so far, in no particular order."""
        return [c for found in self.counts.values() for c in found]


def has_media(messages: list[BaseMessage]) -> bool:
    return any(not isinstance(m.content, str) and any(is_media(b) for b in m.content) for m in messages)


__all__ = ["MEDIA_TYPES", "RULES", "MediaAwareCounter", "MediaCount", "has_media", "image_size", "image_tokens",
           "is_media", "without_media"]
