"""The chain's scope: the "scope" domain filter that ``inject`` widens to the seeds' hosts."""

from __future__ import annotations

from collections.abc import Iterable

from recrawl.core.config import PROJECT_DEFAULTS
from recrawl.core.filters.chain import Chain

#: The bundled chain (package data), used until a project sets its own (its setting:
#: ``project.chain_file``).
DEFAULT_CHAIN_FILE = PROJECT_DEFAULTS.chain_file
SCOPE_FILTER = "scope"


def widen_scope(chain: Chain, hosts: Iterable[str]) -> bool:
    """Add the hosts the scope filter lacks; whether the chain changed.

    A chain without a scope filter is left alone: the user removed it, their call.
    """
    scope = next((f for f in chain.filters if f.name == SCOPE_FILTER and f.kind == "domain"), None)
    if scope is None:
        return False
    known = {rule.text for rule in scope.rules}
    new = [h for h in dict.fromkeys(h.lower() for h in hosts) if h not in known]
    if not new:
        return False
    text = scope.rules_text
    if text and not text.endswith("\n"):
        text += "\n"
    scope.rules_text = text + "".join(f"{h}\n" for h in new)
    return True
