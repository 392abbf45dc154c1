"""Layer 0, the core: what every other layer uses, importing nothing of the course.

- ``args``: argument checks (``check_int``, ``check_choice``, ...) that raise TypeError / ValueError naming the parameter;
- ``i18n``: one language switch for what ``course_utils`` prints (English by default, Persian with ``COURSE_LANG=fa``);
- ``columns``: text tables for ``print`` whose columns line up in English and, right to left, in Persian;
- ``style``: the course's one palette and its fonts;
- ``samples``: the sample conversations in ``course_utils/data/``;
- ``netguard``: the one network guard, used by the tests, the scripts and graded kernels.
"""
