"""Messaging channels, each its own plugin on the interface of ``kinbot_core.channels``."""
