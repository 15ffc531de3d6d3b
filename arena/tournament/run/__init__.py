"""Playing a planned ladder: play_ladder, the local pool and its workers, the Dask pool."""
