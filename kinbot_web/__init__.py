"""KinBot's web layer: the Quart app, its API blueprints, the server and the CLI."""

from kinbot_web.app import create_app
from kinbot_web.app_context import current_platform

__all__ = ["create_app", "current_platform"]
