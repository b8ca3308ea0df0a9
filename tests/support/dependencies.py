"""What pyproject declares and what the code imports, in distribution and module names."""

from __future__ import annotations

import ast
import functools
import re
import sys
import tomllib
from collections.abc import Iterable
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def requirements(group: str | None = None) -> set[str]:
    """The distributions of `[project] dependencies`, or of one optional group (`test`)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    specs = project["dependencies"] if group is None else project["optional-dependencies"][group]
    return {normal(re.split(r"[\[<>=!~ ;]", spec, maxsplit=1)[0]) for spec in specs}


def imports_in(paths: Iterable[Path]) -> set[str]:
    """Top-level modules imported by absolute imports in these Python files, the standard library aside."""
    names: set[str] = set()
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names) - {"__future__"}


def modules_of(distribution: str) -> set[str]:
    """The top-level modules an installed distribution provides (none when it is not installed)."""
    return _modules_by_distribution().get(normal(distribution), set())


@functools.cache
def _modules_by_distribution() -> dict[str, set[str]]:
    provided: dict[str, set[str]] = {}
    for module, owners in packages_distributions().items():
        for owner in owners:
            provided.setdefault(normal(owner), set()).add(module)
    return provided


def normal(name: str) -> str:
    """A distribution name as PEP 503 compares them."""
    return re.sub(r"[-_.]+", "-", name).lower()
