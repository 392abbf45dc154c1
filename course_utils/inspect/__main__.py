"""``python -m course_utils.inspect``: see :mod:`course_utils.inspect.cli`."""

from course_utils.inspect.cli import main

raise SystemExit(main())
