"""faier.report."""
