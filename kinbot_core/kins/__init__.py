"""The Kin runtime: Kins, their continuous sessions, the queue, the turn loop, the prompt."""

from kinbot_core.kins.service import KinError, KinNotFound, KinService, KinView, MessageView

__all__ = ["KinError", "KinNotFound", "KinService", "KinView", "MessageView"]
