# The side channel: provider activity that is neither content the client consumes nor
# a tool call the client must run (Anthropic server tools, Responses built-in tools,
# Mirobody tool steps).  It never enters the UniEvent grammar; a decoder built with
# `side_events=True` interleaves these objects with its events in arrival order, and
# every outcome keeps them.
from __future__ import annotations

from typing import Any

import attrs

__all__ = ["SideEvent"]


@attrs.frozen
class SideEvent:
    """One piece of provider-side activity, kept as the provider sent it.

    `protocol` is the decoder's protocol, `kind` the provider's own type name (for
    example ``"server_tool_use"``, ``"web_search_call"``, ``"mirobody_tool_call"``),
    `phase` one of ``"start"``, ``"delta"``, ``"done"`` or ``"info"``, `item_id` the
    provider's id for the item when it has one (tool-use id, output item id, call id),
    and `data` the provider's JSON object, unchanged.
    """

    protocol: str
    kind: str
    phase: str
    item_id: str | None
    data: dict[str, Any]
    created_at: int
