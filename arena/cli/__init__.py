"""The `arena` command: main.py builds the app (match, agent and plugin commands), tournament.py
and compare.py add the ladder and comparison commands, common.py holds what they share."""
