"""Submitted bots: packages read from their manifest, never run outside a bot sandbox.

A bot package is a folder (or a ``.zip``/``.tar.gz`` of one) holding ``tlachtli.toml``
(arena/registry/manifest.py). ``arena submit`` takes it through the states received,
checked, built, validated, active (or rejected), each with its log (docs/submissions.md).
Nothing here imports a package's code: the referee reads the manifest; the bot's code runs only
inside its sandbox (arena/wire/package_host.py is what runs there).
"""
