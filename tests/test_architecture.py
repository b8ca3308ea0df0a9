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


# The table contract's exceptions: core modules that still hold rows. The ceiling comes down as each
# moves to records behind a port in storage; it never goes up.
MOST_MODULES_STILL_HOLDING_ROWS = 7


def test_the_table_contract_lists_only_imports_that_still_exist():
    """An exception left behind when its module moved would hide that module's next table import."""
    stale = [entry for entry in _table_contract_exceptions() if not _imports(*entry.split(" -> "))]
    assert stale == [], f"remove from pyproject.toml, these modules no longer import it: {stale}"


def test_fewer_core_modules_hold_rows_over_time():
    modules = {entry.split(" -> ")[0] for entry in _table_contract_exceptions()}
    assert len(modules) <= MOST_MODULES_STILL_HOLDING_ROWS, sorted(modules)


def _table_contract_exceptions() -> list[str]:
    return list(_contract("Tables stay in storage").get("ignore_imports", []))


def _contract(name: str) -> dict[str, object]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    [contract] = [c for c in config["tool"]["importlinter"]["contracts"] if c["name"].startswith(name)]
    return dict(contract)


def _imports(module: str, imported: str) -> bool:
    tree = ast.parse((ROOT / (module.replace(".", "/") + ".py")).read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            named = node.module
        elif isinstance(node, ast.Import):
            named = " ".join(alias.name for alias in node.names)
        else:
            continue
        if any(name == imported or name.startswith(imported + ".") for name in named.split()):
            return True
    return False
