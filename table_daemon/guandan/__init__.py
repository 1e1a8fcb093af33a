"""The Guandan rules engine: pure, standard library only, no I/O; imports nothing else of the project."""
