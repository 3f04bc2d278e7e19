"""The examples of docs/python.md and of the README print what the page says: each ```python
block followed by a plain ``` block is run (in a fresh directory) and its output compared line
for line."""

import contextlib
import io
import os
import re

import pytest

from conftest import REPO

PAGES = [REPO / "docs" / "python.md", REPO / "README.md"]
# a python block, then (after one newline) a plain or text block: the code and what it prints
EXAMPLE = re.compile(r"```python\n(.*?)```\n```(?:text)?\n(.*?)```", re.S)


def examples():
    found = []
    for page in PAGES:
        text = page.read_text()
        for m in EXAMPLE.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            found.append(
                pytest.param(page, m.group(1), m.group(2), id=f"{page.name}:{line}")
            )
    return found


def test_the_pages_have_examples():
    pages = [p.name for p, _, _ in (e.values for e in examples())]
    assert pages.count("python.md") >= 3 and pages.count("README.md") >= 1


@pytest.mark.parametrize("page,code,shown", examples())
def test_example_prints_what_the_page_shows(page, code, shown, tmp_path):
    out = io.StringIO()
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(code, str(page), "exec"), {"__name__": "__example__"})
    finally:
        os.chdir(cwd)
    assert out.getvalue().splitlines() == shown.splitlines()
