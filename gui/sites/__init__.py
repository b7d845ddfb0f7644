"""The Sites panel: what the project watches, site by site."""
