"""The Search panel: the text of every capture, and when a phrase appeared and went."""
