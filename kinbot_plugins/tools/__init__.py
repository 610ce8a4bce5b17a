"""Built-in native tools Kins can call, one plugin module per area."""
