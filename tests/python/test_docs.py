"""The Python examples of README.md and docs/python.md run as written."""
import contextlib
import io
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def blocks(name):
    text = (ROOT / name).read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, re.S)


@pytest.mark.parametrize("name", ["README.md", "docs/python.md"])
def test_python_examples_run(name):
    found = blocks(name)
    assert found, f"{name} has no python block"
    for number, block in enumerate(found, 1):
        with contextlib.redirect_stdout(io.StringIO()):
            try:
                exec(compile(block, f"{name} block {number}", "exec"), {})
            except Exception as error:
                raise AssertionError(f"{name} block {number}: {error!r}\n"
                                     f"{block}") from error
