"""DESIGN.md §1's dependency rules, enforced by import-linter's contracts in pyproject.toml."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_import_contracts_hold():
    linter = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(linter)], cwd=ROOT, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "broken" not in result.stdout.lower() or "0 broken" in result.stdout.lower()


def test_inside_ui_nobody_imports_ui_submodules_as_ui():
    """`import ui.x` would rebind the name `ui` that every page uses for `nicegui.ui`."""
    offenders = []
    for path in (ROOT / "ui").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import) and any(
                alias.name.startswith("ui.") and alias.asname is None for alias in node.names
            ):
                offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


def test_no_module_shadows_a_library():
    names = {p.stem for p in ROOT.rglob("*.py") if ".venv" not in p.parts} | {
        p.name for p in ROOT.iterdir() if p.is_dir()
    }
    assert not names & {"mcp", "mailbox", "nicegui", "fastapi", "starlette", "sqlmodel", "alembic"}


def test_nothing_above_storage_speaks_sql():
    """The SQL toolkit and the drivers stay in storage, with no module excused."""
    assert "ignore_imports" not in _contract("Only storage speaks to the database")


def test_the_core_holds_no_table_rows():
    """The core hands on records, never table rows, with no module excused."""
    assert "ignore_imports" not in _contract("Tables stay in storage")


def _contract(name: str) -> dict[str, object]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    [contract] = [c for c in config["tool"]["importlinter"]["contracts"] if c["name"].startswith(name)]
    return dict(contract)
