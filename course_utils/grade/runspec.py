"""What the grader tells its runner, and what the runner answers: typed, sent as JSON through a pipe.

>>> spec = RunSpec(root="/r", work="/r/work", timeout=60.0, memory_mb=1024, disk_mb=20, result_fd=5)
>>> RunSpec.from_json(spec.to_json()) == spec
True
>>> RunOutcome("ok").to_dict()["status"]
'ok'
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields


@dataclass(frozen=True)
class RunSpec:
    """One run of the runner: the notebook's folder, its limits, and what to grade (or ``probe``)."""

    root: str  #: the run's temporary folder (its paths are replaced by "." in what is reported)
    work: str  #: the notebook's own folder
    timeout: float  #: wall-clock seconds for the student's cells, kernel start included
    memory_mb: int
    disk_mb: int
    result_fd: int  #: the pipe the outcome is written to
    namespaces: bool = False  #: the work folder is a tmpfs of its own (the disk watch counts files there)
    uid: int | None = None  #: the unprivileged user to become, if any
    gid: int | None = None
    package: str = ""  #: the folder holding the installed course_utils (the grading cells import from it)
    needed: tuple[str, ...] = ()  #: folders the sandbox must show read-only
    exercise: str = ""  #: two digits, or "" when the exercise is unknown
    calls: dict[int, str] = field(default_factory=dict)  #: {question: the teacher's check call}
    probe: bool = False  #: only probe whether a kernel can start here
    protect: tuple[str, ...] = ()  #: (probe) folders that should not be writable

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> RunSpec:
        data = json.loads(text)
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"run spec: unknown field(s) {', '.join(unknown)}")
        data["calls"] = {int(n): str(c) for n, c in (data.get("calls") or {}).items()}
        for name in ("needed", "protect"):
            data[name] = tuple(data.get(name) or ())
        return cls(**data)


@dataclass
class RunOutcome:
    """How a run ended: a notebook status (or "probe ok"/"probe failed"), the detail, what counts."""

    status: str
    detail: str = ""
    records: list[dict] = field(default_factory=list)  #: only the grading cells' own records
    ignored: list[str] = field(default_factory=list)  #: records not from a grading cell, said in words
    writable: list[str] = field(default_factory=list)  #: (probe) protected folders the kernel could write

    def to_dict(self) -> dict:
        return asdict(self)
