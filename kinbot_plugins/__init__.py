"""KinBot's built-in plugins.

Each module is one plugin, registered through its own entry point in the ``kinbot`` group of
``pyproject.toml``, exactly as a third-party plugin would be.
"""
