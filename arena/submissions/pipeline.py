"""``arena submit``: a package from received to active, or rejected with one line why.

received   its bytes kept, content-addressed (sha256)
checked    archive caps, every entry's name and kind, the manifest, its games, its name
built      its build command run in the sandbox (if any), the result frozen read-only
validated  the conformance check and a game against itself, under the ladder's clocks, sandboxed
active     the ladder grows by it at its next `arena run` (only its new matches are played);
           an older version beyond ``active_versions`` retires

Nothing of the package is imported or run here, outside a sandbox: the manifest is read as data,
the build and the validation games run in bwrap (arena/submissions/build.py, validate.py).
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from arena.process.sandbox import SandboxError, check_sandbox
from arena.registry.manifest import Manifest, ManifestError, read_manifest
from arena.registry.plugins import Registry
from arena.submissions.archive import PackageRejected, freeze, package_root, read_package, sha256, unpack
from arena.submissions.build import run_build
from arena.submissions.store import LIVE, Submission, SubmissionStore, remove_tree
from arena.submissions.validate import ValidationFailed, validate
from arena.tournament.plan.ladder import Ladder
from arena.tournament.plan.submission_limits import SubmissionLimits

DAY_S = 24 * 3600


def submit(
    source: Path,
    ladder: Ladder,
    limits: SubmissionLimits,
    store: SubmissionStore,
    submitter: str,
    registry: Registry,
    say: Callable[[str], None] = lambda line: None,
    record: Submission | None = None,
    admit: Callable[[str], str | None] = lambda name: None,
) -> Submission:
    """Take the package at ``source`` through every state for ``ladder``; its final record
    (active, or rejected with its reason). ``say`` hears each state as it is reached.
    ``record``: one made already by ``store.new`` (a web upload shows its id before it runs);
    ``admit``: the front end's word on the bot's name once read (a reason refuses it: suspended)."""
    record = record or store.new(ladder.name, submitter)
    store.log(record.id, f"received from {submitter} for ladder {ladder.name!r}")
    say(f"submission {record.id}: received")
    work = store.packages / f".unpacking-{record.id}"
    try:
        record = _pipeline(record, source, ladder, limits, store, registry, work, say, admit)
    except (PackageRejected, ManifestError, ValidationFailed) as error:
        record = _reject(store, record, str(error))
    except OSError as error:  # the arena's own disk or folders, not the package: said as such
        record = _reject(
            store, record, f"the arena could not keep it ({error.strerror or error}); submit it again later"
        )
    except BaseException:
        _reject(
            store, record, "stopped before it finished (the operator's interrupt or an error); submit again"
        )
        raise
    finally:
        remove_tree(work)
    say(f"submission {record.id}: {record.state}" + (f": {record.reason}" if record.reason else ""))
    return record


def _reject(store: SubmissionStore, record: Submission, reason: str) -> Submission:
    record = store.get(record.id) or record  # as far as it got (its sha256, name, version)
    line = " ".join(reason.split())[:300]
    if record.sha256:
        store.forget_package(record.sha256, unless_used_by=record.id)
    return store.move(record, "rejected", line)


def _pipeline(
    record: Submission,
    source: Path,
    ladder: Ladder,
    limits: SubmissionLimits,
    store: SubmissionStore,
    registry: Registry,
    work: Path,
    say: Callable[[str], None],
    admit: Callable[[str], str | None],
) -> Submission:
    try:
        check_sandbox("bwrap")
    except SandboxError as error:
        raise PackageRejected(f"submitted bots run only in the bwrap sandbox: {error}") from None
    data, kind = read_package(source, limits)
    sha = sha256(data)
    record = store.save(replace(record, sha256=sha, kind=kind))
    store.keep_archive(sha, kind, data)
    store.log(record.id, f"archive: {kind}, {len(data)} bytes, sha256 {sha}")
    unpack(data, kind, work, limits)
    root = package_root(work)
    manifest = read_manifest(root)
    _check_entry(manifest, record, ladder, limits, store, registry)
    refused = admit(manifest.name)
    if refused:
        raise PackageRejected(refused)
    record = store.move(replace(record, name=manifest.name, version=manifest.version, sha256=sha), "checked")
    say(f"submission {record.id}: checked ({manifest.name} {manifest.version})")
    target = store.package(sha)
    if target.exists():
        store.log(record.id, "built: the same package was built before; reused")
    elif manifest.build is not None:
        building = work / ".built"
        run_build(root, manifest.build, building, limits, lambda text: store.log(record.id, text))
        read_manifest(building)  # the build may not break its own manifest
        _settle(building, target)
    else:
        _settle(root, target)
    record = store.move(record, "built")
    say(f"submission {record.id}: built")
    validate(target, ladder, registry, lambda line: store.log(record.id, line))
    record = store.move(record, "validated")
    say(f"submission {record.id}: validated")
    return activate(store, record, limits)


def _settle(folder: Path, target: Path) -> None:
    """Freeze ``folder`` read-only and move it to ``target`` (its content-addressed place)."""
    freeze(folder)
    staged = target.with_name(f"{target.name}.staged-{os.getpid()}")
    shutil.move(str(folder), staged)
    try:
        staged.rename(target)
    except OSError:
        if not target.is_dir():
            raise
        remove_tree(staged)  # the same bytes settled meanwhile by another submission: the same package


def _check_entry(
    manifest: Manifest,
    record: Submission,
    ladder: Ladder,
    limits: SubmissionLimits,
    store: SubmissionStore,
    registry: Registry,
) -> None:
    """The manifest against the ladder and the other submissions: games, name, version, rate."""
    unknown = [game for game in manifest.games if game not in registry.games]
    if unknown:
        raise PackageRejected(f"it names games not installed here: {', '.join(unknown)} (see `arena games`)")
    if ladder.game not in manifest.games:
        raise PackageRejected(f"it does not claim {ladder.game!r}, the game of ladder {ladder.name!r}")
    if manifest.name in registry.agents:
        raise PackageRejected(f"the name {manifest.name!r} is an installed agent's; choose another name")
    if any(entrant.name == manifest.name for entrant in ladder.entrants):
        raise PackageRejected(
            f"the name {manifest.name!r} is an agent of the ladder file; choose another name"
        )
    others = [
        r for r in store.all() if r.name == manifest.name and r.id != record.id and r.state != "rejected"
    ]
    owner = next((r.submitter for r in others), None)
    if owner is not None and owner != record.submitter:
        raise PackageRejected(
            f"the name {manifest.name!r} belongs to another submitter's bot; choose another name"
        )
    if any(
        r.version == manifest.version and r.ladder == ladder.name and r.state in LIVE + ("retired",)
        for r in others
    ):
        raise PackageRejected(
            f"version {manifest.version} of {manifest.name} was submitted already; raise the version"
        )
    # every submission counts, rejected ones too: each costs a build and validation games
    recent = [
        r
        for r in store.all()
        if r.name == manifest.name and r.id != record.id and r.received_at > time.time() - DAY_S
    ]
    if len(recent) >= limits.per_day:
        raise PackageRejected(
            f"{manifest.name} was submitted {len(recent)} times in the last 24 hours (submissions.per_day = {limits.per_day})"
        )


def activate(store: SubmissionStore, record: Submission, limits: SubmissionLimits) -> Submission:
    """``record`` active on its ladder; its oldest active versions beyond ``active_versions`` retire."""
    record = store.move(record, "active")
    active = [r for r in store.of_ladder(record.ladder, ("active",)) if r.name == record.name]
    for older in active[: max(0, len(active) - limits.active_versions)]:
        store.move(older, "retired", f"version {record.version} took its place")
        store.log(record.id, f"retired {older.name} {older.version} (submission {older.id})")
    return record


def withdraw(store: SubmissionStore, record: Submission) -> Submission:
    """Take ``record`` off its ladder (its matches stay) or stop it short of the ladder."""
    return store.move(record, "withdrawn", "withdrawn by its owner")
