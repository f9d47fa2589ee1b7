"""The page engine a packet is read with, composed in one place from settings and rules."""

from __future__ import annotations

from docflow.packets.bedrock_engine import BedrockPageEngine
from docflow.packets.engine import PageEngine
from docflow.packets.rules_engine import RulesPageEngine
from docflow.readers.throttling import ThrottlePolicy
from docflow.rules.model import Rules
from docflow.settings import Settings


def build_page_engine(settings: Settings, rules: Rules) -> PageEngine:
    """`rules` (local, free) or `bedrock` (Converse; throttles retried with back-off)."""
    if settings.packet_engine == "bedrock":
        return BedrockPageEngine(settings.packet_model_id, ThrottlePolicy.from_settings(settings))
    # A later page is weighed against the part proposed so far: the band's middle decides.
    return RulesPageEngine(rules, rules.packets.proposal_above)
