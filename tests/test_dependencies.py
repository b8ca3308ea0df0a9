"""Every declared dependency is used: a name in pyproject that nothing uses is a package installed on
every machine for nothing, and a reader's false lead about what the server relies on.

The server's dependencies must be imported by its sources (tests/test_packaging.py checks the other
way: every import is declared). The test extras must be imported by the tests, run as a command by
the tests or scripts/, or be a pytest plugin, which pytest loads by being installed.
"""

from __future__ import annotations

import re
from importlib.metadata import EntryPoint, PackageNotFoundError, distribution
from pathlib import Path

from tests.support.dependencies import ROOT, imports_in, modules_of, requirements
from tests.test_code_shape import sources

LOADED_BY_NAME = {"aiosqlite": "sqlite+aiosqlite"}
"""Drivers no source imports: SQLAlchemy imports the one the database URL names (this text)."""


def test_every_dependency_of_the_server_is_imported_by_its_sources():
    assert unused_by_the_server(requirements()) == set()


def test_every_test_extra_is_imported_run_or_loaded_by_the_tests():
    assert unused_by_the_tests(requirements("test")) == set()


def test_a_dependency_nothing_imports_is_reported():
    # itsdangerous is a real distribution (Starlette's sessions sign with it) that nothing here
    # imports; installed or not, it is reported.
    assert unused_by_the_server({"itsdangerous", "sqlmodel"}) == {"itsdangerous"}
    assert unused_by_the_tests({"itsdangerous", "pytest-xdist", "ruff", "types-regex"}) == {"itsdangerous"}


def unused_by_the_server(distributions: set[str]) -> set[str]:
    imported = imports_in(sources())
    text = "\n".join(path.read_text(encoding="utf-8") for path in sources())
    return {
        name
        for name in distributions
        if not modules_of(name) & imported and not (name in LOADED_BY_NAME and LOADED_BY_NAME[name] in text)
    }


def unused_by_the_tests(distributions: set[str]) -> set[str]:
    tests = [path for path in (ROOT / "tests").rglob("*.py") if "node_modules" not in path.parts]
    imported = imports_in(tests) | imports_in(sources())
    commands_text = "\n".join(path.read_text(encoding="utf-8") for path in [*tests, *_scripts()])
    return {
        name
        for name in distributions
        if not modules_of(name) & imported
        and not _stubs_of(name) & imported
        and not _is_pytest_plugin(name)
        and not any(_names_command(commands_text, command) for command in _commands_of(name))
    }


def _scripts() -> list[Path]:
    return [path for path in (ROOT / "scripts").iterdir() if path.is_file()]


def _stubs_of(name: str) -> set[str]:
    """`types-regex` installs `regex-stubs`: it serves mypy wherever `regex` is imported."""
    return {module.removesuffix("-stubs") for module in modules_of(name) if module.endswith("-stubs")}


def _is_pytest_plugin(name: str) -> bool:
    return any(point.group == "pytest11" for point in _entry_points(name))


def _commands_of(name: str) -> set[str]:
    """The commands a distribution installs: its console scripts, or executables it ships (ruff)."""
    try:
        files = distribution(name).files or []
    except PackageNotFoundError:
        return set()
    shipped = {file.name for file in files if file.parent.name == "bin"}
    return shipped | {point.name for point in _entry_points(name) if point.group == "console_scripts"}


def _entry_points(name: str) -> list[EntryPoint]:
    try:
        return list(distribution(name).entry_points)
    except PackageNotFoundError:
        return []


def _names_command(text: str, command: str) -> bool:
    return re.search(rf"(?<![\w.-]){re.escape(command)}(?![\w-])", text) is not None
