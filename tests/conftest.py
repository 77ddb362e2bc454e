"""pytest configuration shared by every test under tests/."""

# tests/browser drives Chromium and JupyterLab over the *built* book: it needs
# `make book` first and takes minutes, so the unit run (`pytest tests`, i.e.
# `make test-unit`) leaves it out. `make browser-test` runs it by naming the
# folder (`pytest tests/browser`), which collect_ignore does not affect.
#
# tests/hostile_homework holds the code of hostile homework cells (a fork bomb,
# a memory hog, a process killer, ...): test_homework.py runs them inside the
# grader's sandbox, and pytest must never import them itself.
collect_ignore = ["browser", "hostile_homework"]
