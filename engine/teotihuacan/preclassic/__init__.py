"""The Late Preclassic Period modules M1-M5: each file lists its parts (read by ``rulebook.py``)."""
