"""The Storage panel: where the project's bytes are, their growth and the free space."""
