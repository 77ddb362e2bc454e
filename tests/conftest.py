"""pytest configuration shared by every test under tests/."""

# tests/browser drives Chromium and JupyterLab over the *built* book: it needs
# `make book` first and takes minutes, so the unit run (`pytest tests`, i.e.
# `make test-unit`) leaves it out. `make browser-test` runs it by naming the
# folder (`pytest tests/browser`), which collect_ignore does not affect.
collect_ignore = ["browser"]
