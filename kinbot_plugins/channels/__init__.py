"""Built-in messaging channel plugins (``register_channels``), one sub-package each."""
