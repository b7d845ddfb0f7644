"""What a page says and what it embeds: its main text with the boilerplate removed, text
diffs, and the stylesheets, scripts, images, fonts and frames it needs to be seen.

Pure functions over markup and text: no store, no network, no archive.
"""
