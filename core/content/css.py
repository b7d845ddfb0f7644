"""TEMPORARY stub (replaced by step13-extract's module)."""

from recrawl.core.content.embeds import MAX_CSS_CHARS, CssEmbeds, stylesheet_embeds

__all__ = ["MAX_CSS_CHARS", "CssEmbeds", "stylesheet_embeds"]
