"""``python -m course_utils.grade``: see :mod:`course_utils.grade.cli`."""

import sys

from course_utils.grade.cli import main

sys.exit(main())
