"""What a page says: its main text with the boilerplate removed, and text diffs.

Pure functions over markup and text: no store, no network, no archive.
"""
