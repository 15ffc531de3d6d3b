"""A bot package plays from its manifest alone: its code is imported only inside its sandbox.

The done-when attack: a package whose import-time code writes a marker file, tries to write next
to the referee's files and to read the store. Under exec starts and zygote starts, the marker
lands only in the sandbox's private /tmp (the bot reads it back there), nothing appears on the
referee's filesystem, the store is not there to read, and no other package is visible.
"""

from __future__ import annotations

import os
import re
import uuid
from pathlib import Path

import pytest

from arena.match.lineup import MatchSetupError, resolve_agent
from arena.match.referee import run_match
from arena.match.spec import MatchSpec
from arena.process import zygote
from arena.process.sandbox import SANDBOX_ENV, SEAT_UID_BASE, bwrap_works
from arena.process.spawn import START_ENV
from arena.registry.manifest import ManifestError, package_spec, parse_manifest
from arena.registry.plugins import discover
from tests.support.bot_packages import manifest, write_package

needs_bwrap = pytest.mark.skipif(not bwrap_works(), reason="bot packages run only under bubblewrap")

SNOOP = """
import os, sys
MARK = {marker!r}
with open(MARK, "w") as f:
    f.write("here")
print("MARKER:", open(MARK).read(), file=sys.stderr)
for path in ({escape!r}, {store!r}):
    try:
        with open(path, "a") as f:
            f.write("escaped")
        print("ESCAPED:", path, file=sys.stderr)
    except OSError as error:
        print("BLOCKED:", path, type(error).__name__, file=sys.stderr)
print("PACKAGES:", sorted(os.listdir("/packages")) if os.path.isdir("/packages") else "absent", file=sys.stderr)
"""


def test_manifest_refuses_an_unknown_key_with_the_nearest_name():
    with pytest.raises(ManifestError, match="unknown key 'verison'.*did you mean 'version'"):
        parse_manifest(manifest().replace("version", "verison"))
    with pytest.raises(ManifestError, match=r"unknown key 'pyton' in \[start\].*'python'"):
        parse_manifest(manifest().replace("python =", "pyton ="))


def test_manifest_needs_one_start_and_paths_inside_the_package():
    with pytest.raises(ManifestError, match="exactly one of"):
        parse_manifest(manifest(extra='command = ["./run"]\n'))
    with pytest.raises(ManifestError, match="start.path"):
        parse_manifest(manifest(extra='path = ["../outside"]\n'))
    parsed = parse_manifest(manifest(extra='path = ["deps"]\n[options.depth]\ntype = "int"\ndefault = 2\n'))
    assert parsed.path == ("deps",) and parsed.options == {"depth": {"type": "int", "default": 2}}


def test_a_package_folder_resolves_from_its_manifest_without_importing_it(tmp_path):
    package = write_package(tmp_path / "pkg", body="raise SystemExit('imported outside the sandbox')")
    spec = resolve_agent(str(package), discover(), "goofspiel")
    assert (spec.name, spec.version, spec.package) == ("pkgbot", "1.0", str(package))
    assert spec.argv is not None and "arena.wire.package_host" in spec.argv
    with pytest.raises(MatchSetupError, match="does not play 'zapotec'"):
        resolve_agent(str(package), discover(), "zapotec")
    assert package_spec(str(package)) is package_spec(str(package))  # read once while unchanged


def test_a_package_refuses_to_run_without_a_sandbox(tmp_path, monkeypatch):
    monkeypatch.setenv(SANDBOX_ENV, "none")
    package = write_package(tmp_path / "pkg")
    with pytest.raises(MatchSetupError, match="only in the bwrap sandbox"):
        run_match(MatchSpec(game="goofspiel", agents=(str(package), "random"), seed=1))


@needs_bwrap
@pytest.mark.parametrize("start", ["exec", "zygote"])
def test_import_time_code_runs_only_inside_the_sandbox(start, tmp_path, monkeypatch):
    if start == "zygote" and not zygote.zygote_supported():
        pytest.skip("zygotes need root and bubblewrap")
    monkeypatch.setenv(START_ENV, start)
    monkeypatch.delenv(SANDBOX_ENV, raising=False)
    marker = f"/tmp/tlachtli-marker-{uuid.uuid4().hex}"
    escape, store = tmp_path / "escape.txt", tmp_path / "tlachtli.db"
    store.write_bytes(b"")
    packages = tmp_path / "packages"
    write_package(packages / "other", name="other")
    mine = write_package(
        packages / "mine", body=SNOOP.format(marker=marker, escape=str(escape), store=str(store))
    )
    record = run_match(MatchSpec(game="goofspiel", agents=(str(mine), "random"), seed=1)).record
    stderr = record["agents"][0]["stderr"]
    assert record["faults"] == [], stderr
    assert "MARKER: here" in stderr  # it ran, and its marker was there, inside
    assert not Path(marker).exists()  # never on the referee's filesystem
    assert "ESCAPED" not in stderr and len(re.findall("BLOCKED:", stderr)) == 2
    assert escape.exists() is False and store.read_bytes() == b""
    # no other package is visible: not under exec (only its own is bound), not under a zygote
    # (the folder of packages is hidden under an empty tmpfs before the bot runs)
    assert "PACKAGES: absent" in stderr or "PACKAGES: []" in stderr
    assert record["agents"][0]["version"] == "1.0"


PLUGIN_SNOOP = """
import os, sys
from arena.wire.agent import Agent
from arena.registry.plugins import AgentSpec, hookimpl


class Snoop(Agent):
    def setup(self, hello):
        found = sorted(os.listdir("/packages")) if os.path.isdir("/packages") else "absent"
        print("PLUGIN SEES:", found, file=sys.stderr)

    def act(self, observation, decision):
        return 0


@hookimpl
def tlachtli_agents():
    return [AgentSpec("snoop", "lists /packages", factory=Snoop)]
"""


@pytest.mark.skipif(not zygote.zygote_supported(), reason="zygotes need root and bubblewrap")
def test_one_zygote_serves_plugins_and_packages_and_hides_the_packages_from_both(tmp_path, monkeypatch):
    """`arena run` of a ladder with submitted bots forks its plugin agents from the packages' zygote
    too ($TLACHTLI_PACKAGES): a plugin agent forked there sees no package either."""
    code = tmp_path / "code"
    code.mkdir()
    (code / "snoop_plugin.py").write_text(PLUGIN_SNOOP)
    monkeypatch.setenv("PYTHONPATH", str(code))  # the zygote's import path
    monkeypatch.syspath_prepend(str(code))  # and this referee's
    monkeypatch.setenv("TLACHTLI_PLUGINS", os.environ["TLACHTLI_PLUGINS"] + ",snoop_plugin")
    monkeypatch.setenv(START_ENV, "zygote")
    monkeypatch.delenv(SANDBOX_ENV, raising=False)
    packages = tmp_path / "packages"
    mine = write_package(packages / "mine")
    monkeypatch.setenv(zygote.PACKAGES_ENV, str(packages))
    started: list[zygote.Zygote] = []
    real_init = zygote.Zygote.__init__

    def counting(self, *args):
        started.append(self)
        real_init(self, *args)

    monkeypatch.setattr(zygote.Zygote, "__init__", counting)
    record = run_match(MatchSpec(game="goofspiel", agents=(str(mine), "snoop"), seed=1)).record
    assert record["faults"] == [], record["agents"][1]["stderr"]
    assert "PLUGIN SEES: []" in record["agents"][1]["stderr"]
    assert len(started) == 1 and started[0].jail.packages == str(packages)


INSPECT = """
import os, sys
status = dict(line.split(":", 1) for line in open("/proc/self/status") if ":" in line)
print("FACT: uid=%d cap=%s seccomp=%s nnp=%s pid=%d" % (os.getuid(), status["CapEff"].strip(),
      status["Seccomp"].strip(), status["NoNewPrivs"].strip(), os.getpid()), file=sys.stderr)
"""


@pytest.mark.skipif(not zygote.zygote_supported(), reason="zygotes need root and bubblewrap")
def test_a_package_child_of_the_zygote_drops_everything_before_its_code_runs(tmp_path, monkeypatch):
    """Its package is mounted with the zygote's capabilities, but its code runs as its seat uid,
    with no capability, no new privileges and the seccomp filter, first process of its namespace."""
    monkeypatch.setenv(START_ENV, "zygote")
    monkeypatch.delenv(SANDBOX_ENV, raising=False)
    mine = write_package(tmp_path / "packages" / "mine", body=INSPECT)
    record = run_match(MatchSpec(game="goofspiel", agents=(str(mine), "random"), seed=1)).record
    found = re.search(
        r"FACT: uid=(\d+) cap=(\w+) seccomp=(\d) nnp=(\d) pid=(\d+)", record["agents"][0]["stderr"]
    )
    assert found is not None, record["agents"][0]["stderr"]
    uid, cap, mode, nnp, pid = found.groups()
    assert int(uid) >= SEAT_UID_BASE and int(cap, 16) == 0 and (mode, nnp, pid) == ("2", "1", "1")
