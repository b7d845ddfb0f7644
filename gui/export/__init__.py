"""File → Export WACZ…."""
