"""Romergo as a user installs it: the built wheel, not the editable checkout.

An editable install hides a subpackage missing from the wheel and a dependency that only the test
extras bring in; both crashed `romergo serve` on a fresh machine once. So: every distribution the
running code imports is declared, and the wheel, installed non-editable into a fresh venv without
the test extras, starts a server that answers, from a directory outside the checkout.
"""

from __future__ import annotations

import os
import queue
import re
import subprocess
import sys
import threading
import time
import venv
import zipfile
from importlib.metadata import packages_distributions
from pathlib import Path

import httpx
import pytest

from tests.support.dependencies import imports_in, normal, requirements
from tests.test_code_shape import PACKAGES, ROOT, sources

pytestmark = pytest.mark.long

PROJECT_PACKAGES = {name.removesuffix(".py") for name in PACKAGES}
SIGN_IN = re.compile(r"^Sign in: (http://\S+)/login\?token=\S+$")
START_SECONDS = 90


def imported_modules() -> set[str]:
    return imports_in(sources()) - PROJECT_PACKAGES


def test_every_imported_distribution_is_a_declared_dependency():
    owners = packages_distributions()
    undeclared = {
        module: owners.get(module, ["(no installed distribution)"])
        for module in imported_modules()
        if not {normal(dist) for dist in owners.get(module, [])} & requirements()
    }
    assert undeclared == {}


def test_the_check_sees_third_party_imports():
    assert {"nicegui", "mcp", "sqlmodel", "httpx2"} <= imported_modules()


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(ROOT)])
    (built,) = out.glob("romergo-*.whl")
    return built


def test_the_wheel_holds_every_package_of_the_checkout(wheel: Path):
    inside = {name.rsplit("/", 1)[0] for name in zipfile.ZipFile(wheel).namelist() if name.endswith(".py")}
    packages = {
        str(init.parent.relative_to(ROOT))
        for name in PROJECT_PACKAGES
        for init in (ROOT / name).rglob("__init__.py")
    }
    assert packages and packages <= inside, sorted(packages - inside)


def test_the_installed_wheel_serves_from_a_fresh_venv(wheel: Path, tmp_path: Path):
    env_dir = tmp_path / "venv"
    # No pip inside the new venv: this one's pip installs into it (`--python`), which saves bootstrapping
    # a second pip. No bytecode at install either: the server compiles what it imports as it starts.
    venv.create(env_dir, with_pip=False)
    python, romergo = env_dir / "bin" / "python", env_dir / "bin" / "romergo"
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--quiet",
            "--no-compile",
            "--disable-pip-version-check",
            str(wheel),
        ]
    )
    # Run from outside the checkout, so nothing can be imported from the source tree by accident.
    where = _run([str(python), "-c", "import romergo, ui.panel; print(romergo.__file__)"], cwd=tmp_path)
    assert str(env_dir) in where
    assert _run([str(romergo), "--version"], cwd=tmp_path).startswith("romergo ")

    server = subprocess.Popen(
        [str(romergo), "serve", "--port", "0", "--data-dir", str(tmp_path / "data")],
        cwd=tmp_path,
        env=_clean_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        base_url, said = _await_sign_in(server)
        assert "First start: created the account 'author'" in said, said
        assert httpx.get(f"{base_url}/login", timeout=10).status_code == 200
        assert (
            httpx.get(f"{base_url}/.well-known/oauth-protected-resource/mcp", timeout=10).status_code == 200
        )
    finally:
        server.terminate()
        server.wait(timeout=30)


def _await_sign_in(server: subprocess.Popen[str]) -> tuple[str, str]:
    """Read the server's output (in a thread, so a silent hang cannot block) until its sign-in line."""
    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        assert server.stdout is not None
        for line in server.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    seen: list[str] = []
    deadline = time.monotonic() + START_SECONDS
    while (left := deadline - time.monotonic()) > 0:
        try:
            line = lines.get(timeout=left)
        except queue.Empty:
            break
        if line is None:
            break
        seen.append(line)
        if found := SIGN_IN.match(line.strip()):
            return found.group(1), "".join(seen)
    raise AssertionError("the installed server did not start:\n" + "".join(seen[-40:]))


def _run(command: list[str], cwd: Path | None = None) -> str:
    done = subprocess.run(command, cwd=cwd, env=_clean_env(), capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "NICEGUI", "VIRTUAL_ENV"))}
    env.pop("PYTHONPATH", None)
    return env
