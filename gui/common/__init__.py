"""Pieces every panel shares: table models and views, layouts, plots, how values read."""
