"""Built-in AI provider plugins, one module each."""
