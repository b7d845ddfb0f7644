"""Generated pages that look like Sphinx's HTML: paragraphs wrapped in the source as
Sphinx writes them (a line break every few words), headings and definitions with their
permalink mark (``<a class="headerlink" href="#id">¶</a>``), code blocks and a table."""

from __future__ import annotations

import textwrap

TEXT = (
    "the archive keeps every capture of a page with its date so that a reader can see "
    "what changed between two visits and when the change was first seen by the crawler"
)
WORDS = TEXT.split(" ")


def sentence(number: int, words: int = 40) -> str:
    """A paragraph's text, different for every ``number`` (its first word says which)."""
    picked = [WORDS[(number * 7 + k * 3) % len(WORDS)] for k in range(words)]
    return f"Paragraph{number} " + " ".join(picked) + "."


def wrapped(text: str) -> str:
    """``text`` as Sphinx writes it into the markup: a line break every 60 characters,
    and its third word as inline code (whose paragraphs trafilatura's plain text cuts
    at those line breaks)."""
    words = text.split(" ")
    if len(words) > 3:
        words[2] = (
            '<code class="docutils literal notranslate"><span class="pre">'
            f"{words[2]}()</span></code>"
        )
    return "\n".join(textwrap.wrap(" ".join(words), 60, break_on_hyphens=False))


def sphinx_page(paragraphs: list[str], title: str = "The archive") -> str:
    """A Sphinx-like page: a section per four paragraphs, each with a heading and a
    definition list entry, the paragraphs wrapped, a code block and a table at the end."""
    body = [f'<h1>{title}<a class="headerlink" href="#top" title="Link to this heading">¶</a></h1>']
    for start in range(0, len(paragraphs), 4):
        section = start // 4
        body.append(
            f'<section id="s{section}"><h2>Section {section}'
            f'<a class="headerlink" href="#s{section}" title="Link to this heading">¶</a></h2>'
        )
        body += [f"<p>{wrapped(p)}</p>" for p in paragraphs[start : start + 4]]
        body.append(
            f'<dl class="py function"><dt class="sig sig-object py" id="f{section}">'
            f'<span class="sig-name descname">capture{section}</span>(<em>url</em>)'
            f'<a class="headerlink" href="#f{section}" title="Link to this definition">¶</a></dt>'
            f"<dd><p>{wrapped('Return the capture of url number ' + str(section) + ' with its date and its digest, or None when the page has none yet.')}</p></dd></dl>"
            "</section>"
        )
    body.append(
        '<div class="highlight-python3 notranslate"><div class="highlight"><pre>'
        "<span></span>import recrawl\nrecrawl.open(&quot;project&quot;)\n</pre></div></div>"
        '<table class="docutils"><tr><td><p>Height</p></td><td><p>2,345 m</p></td></tr></table>'
    )
    return (
        f"<!DOCTYPE html><html><head><title>{title} — Docs</title></head><body>"
        '<div class="related" role="navigation"><ul><li><a href="/">index</a></li>'
        '<li><a href="/modules">modules</a></li></ul></div>'
        '<div class="document"><div class="body" role="main">'
        + "\n".join(body)
        + '</div></div><div class="sphinxsidebar" role="navigation"><h3>Navigation</h3>'
        '<ul><li><a href="/a">A page</a></li></ul></div>'
        '<div class="footer">© Copyright 2027, the authors.</div></body></html>'
    )
