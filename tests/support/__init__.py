"""Test support shared by the whole suite (and later by the browser tests). Not product code."""
