"""Run the `romergo` command line as a user would, in a subprocess."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from tests.support.server import ROOT, clean_env


def romergo(
    *args: str,
    data_dir: Path,
    stdin: str | None = None,
    timeout: float = 60,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """The CLI on `data_dir`; `env` as a server was given it (its database, say: RunningServer.extra_env)."""
    return subprocess.run(
        [sys.executable, str(ROOT / "app.py"), *args, "--data-dir", str(data_dir)],
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        env=clean_env(env),
        timeout=timeout,
        check=False,
    )
