"""The egress proxy through which Kin code reaches the network (see ``proxy``)."""

from kinbot_core.egress.proxy import EgressProxy, ProxyAccess

__all__ = ["EgressProxy", "ProxyAccess"]
