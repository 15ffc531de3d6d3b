"""Goofspiel, the worked example of "write a game" (docs/games.md): game.py is the rules engine and
its plugin hook, agents.py a scripted agent for it. The test suite loads both as plugins."""
