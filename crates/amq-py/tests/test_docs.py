"""The examples of docs/python.md print what the page says: each ```python block followed
by a plain ``` block is run (in a fresh directory) and its output compared line for line."""

import contextlib
import io
import os
import re

import pytest

from conftest import REPO

PAGE = REPO / "docs" / "python.md"
# a python block, then (after one newline) a plain block: the code and what it prints
EXAMPLE = re.compile(r"```python\n(.*?)```\n```\n(.*?)```", re.S)


def examples():
    text = PAGE.read_text()
    found = []
    for m in EXAMPLE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        found.append(pytest.param(m.group(1), m.group(2), id=f"python.md:{line}"))
    return found


def test_the_page_has_examples():
    assert len(examples()) >= 3


@pytest.mark.parametrize("code,shown", examples())
def test_python_md_example_prints_what_the_page_shows(code, shown, tmp_path):
    out = io.StringIO()
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(code, str(PAGE), "exec"), {"__name__": "__example__"})
    finally:
        os.chdir(cwd)
    assert out.getvalue().splitlines() == shown.splitlines()
