"""The `romergo` command line: one module per topic, this one builds the parser and runs a command.

- `serve` runs the composed server (`app.py`, the composition root);
- `cli.accounts`: users, passwords, personal tokens, sign-in links and the demo project;
- `cli.channel`: the owner's side of a channel over the JSON API;
- `cli.client`: agents' metadata documents an administrator trusts from files;
- `cli.demo`: the scripted demo agent.

Every command takes `--data-dir` (env `ROMERGO_DATA_DIR`, default `./data`) and works while a
server runs on the same data dir.
"""

from cli.main import main

__all__ = ["main"]
