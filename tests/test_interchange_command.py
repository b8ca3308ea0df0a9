"""`romergo export` and `romergo import`, as an author moving a story between tools runs
them: each format out of one install and into another, notes on stderr, bad input refused.

The commands under test run as processes; the accounts and the demo they start from are made in
this process (`romergo_here`), a second or more less per command."""

from __future__ import annotations

import pytest

from tests.support.cli import romergo, romergo_here
from tests.support.oauth import PASSWORD

pytestmark = pytest.mark.long


@pytest.fixture(scope="module")
def install(tmp_path_factory):
    folder = tmp_path_factory.mktemp("install")
    assert romergo_here("user", "add", "ada", data_dir=folder, stdin=PASSWORD + "\n").returncode == 0
    seeded = romergo_here("seed-demo", "--user", "ada", data_dir=folder)
    assert seeded.returncode == 0, seeded.stderr
    return folder, seeded.stdout.split()[-1]


@pytest.mark.parametrize(
    ("format", "suffix"), [("archive", ".romergo.zip"), ("twee", ".twee"), ("yarn", ".yarn")]
)
def test_a_project_exported_from_one_install_imports_into_another(install, tmp_path, format, suffix):
    folder, project_id = install
    exported = romergo("export", project_id, "--format", format, "--to", str(tmp_path), data_dir=folder)
    assert exported.returncode == 0, exported.stderr
    (written,) = tmp_path.glob(f"*{suffix}")
    assert exported.stdout.startswith(f"exported to {written}")
    if format != "archive":
        assert "note: Backgrounds, music and sounds are not part" in exported.stderr

    other = tmp_path / "other"
    assert romergo_here("user", "add", "bo", data_dir=other, stdin=PASSWORD + "\n").returncode == 0
    imported = romergo("import", str(written), data_dir=other)
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.startswith('imported "The Lighthouse Keeper\'s Secret" as project prj_')
    assert imported.stdout.rstrip().endswith("(12 scenes)")


def test_bad_input_is_refused_in_words(install, tmp_path):
    folder, project_id = install
    missing = romergo("import", str(tmp_path / "nothing.twee"), data_dir=folder)
    assert missing.returncode == 1 and "There is no file" in missing.stderr
    broken = tmp_path / "broken.twee"
    broken.write_text(":: A\nfine\n:: A\nagain\n")
    refused = romergo("import", str(broken), data_dir=folder)
    assert refused.returncode == 1 and 'line 3: a second passage named "A"' in refused.stderr
    nobody = romergo("export", project_id, "--user", "nobody", data_dir=folder)
    assert nobody.returncode == 1 and 'User "nobody" does not exist' in nobody.stderr
    unknown = romergo("export", "prj_unknown", data_dir=folder)
    assert unknown.returncode == 1 and "does not exist" in unknown.stderr
