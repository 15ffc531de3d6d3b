"""Planning a tournament: ladder files, schedules, growth, swiss rounds, comparisons, secrecy."""
