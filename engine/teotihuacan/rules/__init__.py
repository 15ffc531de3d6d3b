"""The base game's rules: each file lists its parts in ``PARTS`` (read by ``rulebook.py``)."""
