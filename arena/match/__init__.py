"""One match: what it is asked to be, who sits where, the referee, its record and live file."""
