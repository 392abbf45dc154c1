"""Start-up hook: a Python process whose PYTHONPATH holds this folder starts guarded.

Python imports ``sitecustomize`` at start-up; this one installs the course's
network guard, :mod:`course_utils.core.netguard` (see ``netguard.site_dir()``),
unless the environment says ``COURSE_OFFLINE_GUARD=0``.
"""

import sys
from pathlib import Path

try:
    from course_utils.core import netguard
except ImportError:  # course_utils is not on the path: use the copy this folder belongs to
    sys.path.append(str(Path(__file__).resolve().parents[3]))
    from course_utils.core import netguard

if netguard.wanted():
    netguard.install()
