"""The rules file's `[matching]` table: its defaults, what it refuses naming the key, the match
stage it must define, and the wait it adds to the longest path an invoice can take."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from docflow.rules.matching import NO_MATCHING, WEEK_S, parse_match_rules
from docflow.rules.model import DEFAULT_RULES, load_rules
from docflow.settings import SettingsError
from tests.kit.orders import matching_on


def test_the_shipped_rules_leave_matching_off_and_its_table_waits_a_week(tmp_path: Path) -> None:
    assert not load_rules(DEFAULT_RULES).matching.on  # no invoice waits for an order unasked
    rules = load_rules(_rules(tmp_path, matching_on(DEFAULT_RULES.read_text(encoding="utf-8"))))
    matching = rules.matching
    assert matching.on and matching.stage == "match" and "match" in rules.stages
    assert matching.timeout_seconds == WEEK_S and not matching.three_way
    assert matching.unit_price.slack(Decimal("100")) == Decimal("2.00")
    assert matching.unit_price.slack(Decimal("0.10")) == Decimal("0.01")  # the absolute floor
    assert rules.fields.for_type("delivery-note") is not None
    assert "delivery-note" in {t.name for t in rules.types}


def test_no_table_is_matching_off_and_a_table_names_its_stage() -> None:
    assert parse_match_rules(None) == NO_MATCHING and not NO_MATCHING.on
    with pytest.raises(ValueError, match=r"matching\.stage"):
        parse_match_rules({})
    on = parse_match_rules({"stage": "match", "timeout_seconds": 60}, stage_timeout_s=5)
    assert on.timeout_seconds == 5  # DOCFLOW_STAGE_TIMEOUT_S shortens the wait too


@pytest.mark.parametrize(
    ("table", "said"),
    [
        ({"stage": "match", "speed": 1}, "unknown keys ['speed']"),
        ({"stage": "match", "unit_price_tolerance": 2}, "matching.unit_price_tolerance"),
        ({"stage": "match", "quantity_tolerance_abs": -1}, "matching.quantity_tolerance"),
        ({"stage": "match", "total_tolerance": "x"}, "matching.total_tolerance"),
        ({"stage": "match", "three_way": "yes"}, "three_way"),
        ({"stage": "match", "timeout_seconds": 0}, "timeout_seconds"),
        ({"stage": "match", "description_min_score": 20}, "description_min_score"),
    ],
)
def test_a_bad_value_is_refused_naming_it(table: dict[str, object], said: str) -> None:
    with pytest.raises(ValueError, match=said.replace("[", r"\[").replace("]", r"\]")):
        parse_match_rules(table)


def _rules(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "rules.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_match_stage_must_be_defined(tmp_path: Path) -> None:
    text = matching_on(DEFAULT_RULES.read_text(encoding="utf-8"))
    text = text.replace('stage = "match"', 'stage = "nowhere"')
    with pytest.raises(SettingsError, match="stage 'nowhere' is used but not defined"):
        load_rules(_rules(tmp_path, text))


def test_the_wait_counts_in_the_longest_path_an_invoice_can_take(tmp_path: Path) -> None:
    """An invoice's stages in the shipped rules take 15 days at most (triage, privacy, quality,
    risk, fields, bank details, audit, duplicate: 2 days each, quality 1); matching adds the
    week it may wait for its order and the match stage's 2 days: 24 days, past a purchase
    order's 19 (its procurement and finance stages, and every typed document's)."""
    text = DEFAULT_RULES.read_text(encoding="utf-8")
    day = 86400
    assert load_rules(DEFAULT_RULES).longest_review_seconds() == 19 * day
    matched = load_rules(_rules(tmp_path, matching_on(text)))
    assert matched.longest_review_seconds() == 24 * day
