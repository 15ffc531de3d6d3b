"""Fresh random streams for a forked agent: nothing it draws was decided in its zygote.

A fork copies every generator of the parent with its state, so two agents forked from one zygote
(arena/process/zygote.py) would draw the same "random" numbers from any generator that existed
before the fork: numpy's legacy global state (once numpy is imported) and any ``Generator``,
``RandomState`` or ``random.Random`` a bot module made at import. An agent could then predict an
opponent of its own code. The zygote finds them before it forks (``module_generators``) and each
child seeds them from the operating system (``reseed_generators``), as an exec'd agent's are; any other state a plugin wants fresh per agent it can renew itself with
``os.register_at_fork(after_in_child=...)`` (the zygote forks with ``os.fork``, which runs it).
"""

from __future__ import annotations

import random
import sys
from typing import Any

Generators = list[tuple[Any, str]]  # each with how to reseed it: "seed" or "renew"


def module_generators() -> Generators:
    """Every generator held as a module global now: Python's ``random`` (its hidden instance),
    numpy's global state (``numpy.random.mtrand._rand``) once imported, a bot's ``RNG =
    numpy.random.default_rng()``. Found once, in the zygote before it forks: looking through
    every module in each child would touch (and so copy) thousands of shared pages."""
    numpy_random = sys.modules.get("numpy.random")
    how: dict[type, str] = {random.Random: "seed"}
    if numpy_random is not None:
        how[numpy_random.RandomState] = "seed"
        how[numpy_random.Generator] = "renew"  # its bit generator
        how[numpy_random.BitGenerator] = "renew"
    found: Generators = []
    kinds: dict[type, str | None] = {}  # by type(value) only: a proxy's ``__class__`` could run code
    for module in list(sys.modules.values()):
        namespace = getattr(module, "__dict__", None)
        if not isinstance(namespace, dict):
            continue
        for value in list(namespace.values()):
            kind = type(value)
            if kind not in kinds:
                kinds[kind] = next((way for base, way in how.items() if issubclass(kind, base)), None)
            way = kinds[kind]
            if way is not None and all(value is not seen for seen, _ in found):
                found.append((value, way))
    return found


def reseed_generators(generators: Generators) -> None:
    """Seed each of ``generators`` (``module_generators``'s) from the OS, in a forked child."""
    for value, way in generators:
        if way == "seed":
            value.seed()
        else:  # a fresh bit generator's state, of the same kind (seeded from the OS)
            bits: Any = getattr(value, "bit_generator", value)
            bits.state = type(bits)().state
