"""The shape rules of the code base: no function above cyclomatic complexity 15 and no
file over 400 lines outside the tests, measured with radon on every source file."""

from __future__ import annotations

import re
from pathlib import Path

from radon.complexity import cc_visit

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("app.py", "cli", "hardening", "romergo", "storage", "ui", "mcp_tools", "api", "demo_agent")
MAX_COMPLEXITY = 15
MAX_LINES = 400
# Known debt: none left. A listed exception would name its file and function with its figure, and
# the test would fail if it grew.
KNOWN_COMPLEX: dict[str, int] = {}
KNOWN_LONG: dict[str, int] = {}


def sources() -> list[Path]:
    found: list[Path] = []
    for name in PACKAGES:
        path = ROOT / name
        found.extend([path] if path.is_file() else sorted(path.rglob("*.py")))
    return found


def test_there_are_sources_to_measure():
    assert len(sources()) > 50


def test_no_function_is_too_complex():
    too_complex = [
        f"{path.relative_to(ROOT)}:{block.lineno} {block.fullname} ({block.complexity})"
        for path in sources()
        for block in cc_visit(path.read_text(encoding="utf-8"))
        if block.complexity > KNOWN_COMPLEX.get(f"{path.relative_to(ROOT)} {block.fullname}", MAX_COMPLEXITY)
    ]
    assert too_complex == []


def test_no_file_is_too_long():
    too_long = [
        f"{path.relative_to(ROOT)} ({count} lines)"
        for path in sources()
        if (count := len(path.read_text(encoding="utf-8").splitlines()))
        > KNOWN_LONG.get(str(path.relative_to(ROOT)), MAX_LINES)
    ]
    assert too_long == []


WORK_PROCESS = re.compile(r"\bissues? \d+\b|\bissue #\d+", re.IGNORECASE)
"""How the tracker numbers work: a reader of the code needs the reason, not the ticket."""


def test_the_code_and_its_docs_speak_of_the_product_not_the_tracker():
    texts = [*sources(), *(ROOT / "tests").rglob("*.py"), ROOT / "README.md", ROOT / "pyproject.toml"]
    texts += list((ROOT / "docs").glob("*.md"))
    texts += [path for path in (ROOT / "scripts").iterdir() if path.is_file()]
    mentions = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in texts
        if "node_modules" not in path.parts
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if WORK_PROCESS.search(line)
    ]
    assert mentions == []


ONE_LETTER_ALIAS = re.compile(r"^\s*[A-Za-z] = [A-Z]\w*(\.\w+)*\s*$")
"""A name saved as one letter (`S = CommandState`): the reader has to look up what it stands for."""


def test_no_name_is_shortened_to_one_letter():
    aliases = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in sources()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if ONE_LETTER_ALIAS.match(line)
    ]
    assert aliases == []
