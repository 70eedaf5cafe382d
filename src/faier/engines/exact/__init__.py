"""The exact engine (distribution mode and sequence mode)."""

from faier.engines.exact.engine import epsilon, verify

__all__ = ["epsilon", "verify"]
