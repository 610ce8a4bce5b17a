"""One blueprint per API area."""
