"""Privacy loss distributions: exact, composable, exported to Google's dp_accounting."""

from faier.accounting.pld import HockeyStick, LossAtom, PrivacyLossDistribution

__all__ = ["HockeyStick", "LossAtom", "PrivacyLossDistribution"]
