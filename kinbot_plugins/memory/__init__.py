"""Built-in memory backends."""
