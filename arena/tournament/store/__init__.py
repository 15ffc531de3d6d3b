"""Persistence only: saving and loading runs, matches, seats and records."""
