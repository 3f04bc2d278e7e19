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


def docstrings():
    """Every docstring of the package's modules, classes, methods and functions, by name."""
    import amq
    import amq.algorand
    import amq.btc
    import amq.cashu
    import amq.eth
    import amq.parquet

    found = {}
    for module in (amq, amq.algorand, amq.btc, amq.cashu, amq.eth, amq.parquet):
        found[module.__name__] = module.__doc__ or ""
        for name in dir(module):
            obj = getattr(module, name)
            if name.startswith("_") or not callable(obj):
                continue
            found[f"{module.__name__}.{name}"] = obj.__doc__ or ""
            if isinstance(obj, type):
                for m in dir(obj):
                    if not m.startswith("_") and callable(getattr(obj, m)):
                        found[f"{module.__name__}.{name}.{m}"] = getattr(obj, m).__doc__ or ""
    return found


# the classes and functions whose docstrings must show themselves at work
WITH_EXAMPLES = [
    "amq.BloomFilter", "amq.BlockedBloomFilter", "amq.SplitBlockBloomFilter",
    "amq.CuckooFilter", "amq.ScalableBloomFilter", "amq.ExpandableCuckooFilter",
    "amq.SlidingWindowBloom", "amq.AgingBloom", "amq.TtlCuckooFilter",
    "amq.SlidingWindowCuckoo", "amq.NegativeCache", "amq.load", "amq.plan", "amq.new",
]


def test_the_docstring_examples_print_what_they_show():
    """Each ``>>>`` example of a docstring runs (with ``amq`` imported) and prints what follows
    it, as ``doctest`` checks it; the main classes and functions have one."""
    import doctest

    import amq

    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    docs = docstrings()
    for name in WITH_EXAMPLES:
        assert ">>>" in docs[name], f"{name} has no example"
    ran = 0
    for name, text in docs.items():
        test = parser.get_doctest(text, {"amq": amq}, name, None, 0)
        if test.examples:
            ran += 1
            runner.run(test)
    assert ran >= len(WITH_EXAMPLES)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed (above)"
