"""The Change rules editor (docs/design.md §17): what counts as a change on a site or a
section of one, tried on the pages' own history before it is saved."""
