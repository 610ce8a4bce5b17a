"""The e-mail channel (placeholder docstring)."""
