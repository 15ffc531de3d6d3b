"""Rules engines: pure game logic behind the contract in engine.api (no I/O, no clocks)."""
