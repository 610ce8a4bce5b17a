"""The platform's settings, one group a module; ``kinbot_core.config.Settings`` gathers them."""
