"""The bundled agents and games, registered through the ``tlachtli`` entry-point group."""
