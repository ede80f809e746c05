"""The classroom kit: scripts/course is its entry point, cli.py its command line, and each other module
one job (docs/instructors.md, "The kit's code", maps them). Python 3 standard library only."""
