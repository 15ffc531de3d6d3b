"""Pytest's rewritten test modules, cached before the suite's workers start (``make test`` runs
``python -m tests.support.rewrite_cache`` first).

pytest rewrites each test module's asserts at import and caches the result beside it
(``__pycache__/NAME.cpython-311-pytest-VERSION.pyc``). Every pytest-xdist worker imports every test
module, and on a fresh clone the four start together: each rewrote all of them (~8 s of CPU a
worker, on 2 cores ~15 s of the run's wall time). This writes the cache once, in a process per
core (~2.5 s), in pytest's own format; pytest then finds it current, as after any run.

It uses pytest's private rewriting functions (pyproject.toml pins pytest below 9); a file they
cannot rewrite is left to pytest, which reports it as before.
"""

from __future__ import annotations

import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from _pytest.assertion.rewrite import PYC_TAIL, _rewrite_test, _write_pyc_fp, get_cache_dir

ROOT = Path(__file__).resolve().parents[2]


def cached_path(source: Path) -> Path:
    """Where pytest keeps ``source``'s rewritten module."""
    return get_cache_dir(source) / (source.name[:-3] + PYC_TAIL)


def write(source: Path) -> bool:
    """Rewrite ``source`` as pytest does and cache it where pytest looks; False if it cannot."""
    try:
        stat, code = _rewrite_test(source, None)  # no config: pytest's defaults
    except SyntaxError:
        return False  # pytest reports it at collection
    target = cached_path(source)
    target.parent.mkdir(exist_ok=True)
    temporary = target.with_name(f"{target.name}.{os.getpid()}")
    with open(temporary, "wb") as out:
        _write_pyc_fp(out, stat, code)
    os.replace(temporary, target)  # atomic: a pytest reading it meanwhile sees the old one or this
    return True


def test_modules(folder: Path) -> list[Path]:
    """The modules pytest rewrites under ``folder``: test files and conftests."""
    return sorted(p for p in folder.rglob("*.py") if p.name.startswith("test_") or p.name == "conftest.py")


def main() -> None:
    modules = test_modules(ROOT / "tests")
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        written = sum(pool.map(write, modules, chunksize=8))
    print(f"rewrote {written} of {len(modules)} test modules for pytest", file=sys.stderr)


if __name__ == "__main__":
    main()
