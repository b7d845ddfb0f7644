"""``recrawl --self-test``: the whole app, end to end, offscreen."""
