"""faier.cli."""
