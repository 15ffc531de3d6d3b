"""Bundled search bots (``ismcts``, ``greedy``) and the position evaluators they use (docs/bots.md)."""
