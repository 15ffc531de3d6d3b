"""Run every benchmark (bench/bench_*.py, each with a ``main()`` printing its figures)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path


def main() -> None:
    here = Path(__file__).resolve().parent
    sys.path.insert(0, str(here.parent))
    only = sys.argv[1:]
    for path in sorted(here.glob("bench_*.py")):
        if only and not any(word in path.stem for word in only):
            continue
        print(f"== {path.stem}", flush=True)
        spec = importlib.util.spec_from_file_location(path.stem, path)
        assert spec is not None and spec.loader is not None  # a .py file always has both
        module = importlib.util.module_from_spec(spec)
        sys.modules[path.stem] = module  # dataclasses look their module up while it loads
        spec.loader.exec_module(module)
        module.main()


if __name__ == "__main__":
    main()
