"""One driver per harness, all of one shape (tests.harnesses.drivers.common): set up in a place
as the README says, then `run(prompt)`."""

from tests.harnesses.drivers.claude_code import CLAUDE_CODE
from tests.harnesses.drivers.codex import CODEX
from tests.harnesses.drivers.gemini_cli import GEMINI_CLI
from tests.harnesses.drivers.opencode import OPENCODE

ALL = (CLAUDE_CODE, CODEX, GEMINI_CLI, OPENCODE)
