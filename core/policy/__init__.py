"""What to fetch when, and what counts as a change (docs/design.md §4–§5).

    schedule       the FetchSchedule plug-in point and the values it sees and decides
    schedules/     the built-in schedules, their registry and their form parameters
    signature      signatures: the pluggable "page equality" that decides a change
    scoring        page scores (in-links, OPIC), pluggable by kind
    simulate       one page or a whole corpus under a schedule (``recrawl simulate``)
    simulate_discovery  hubs gaining new links: the discovery delay (``--discovery``)
    choices        the project's chosen schedule, signature, scoring and filter chain
    filter_impact  what a chain edit does to the project's known URLs (the preview)
    filter_reach   a chain applied to the known pages: filtered ones, and why
    embed_why      why an embed is archived or not: its row, the embed rules

Schedules, signatures and scorings are plug-ins: a Protocol and a registry by name.
"""
