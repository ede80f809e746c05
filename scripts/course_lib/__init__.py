"""The classroom kit's library: the pieces of scripts/course that have one job each (issue 29 moves the
rest of the program here). Python 3 standard library only."""
