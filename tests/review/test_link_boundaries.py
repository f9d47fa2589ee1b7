"""The edges of review links (`docflow/review/access/links.py`, `signing.py`): a link's single
use spent once however often it is clicked, given back only while it is being decided, closed
only while open; a token valid until the second before its expiry and not at it; a key ring's
shortest key and longest id. Each test names the boundary it guards (bench/README.md, "Mutation
testing")."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from docflow.review.access import signing
from docflow.review.access.link_record import LinkRecord
from docflow.review.access.links import (
    DECIDING,
    KEEP_AFTER_EXPIRY_S,
    OPEN,
    SUPERSEDED,
    USED,
    AlreadyDecided,
    IssuedLink,
    LinkStore,
    link_id,
)
from docflow.review.access.signing import (
    ExpiredToken,
    KeyRing,
    MalformedToken,
    TokenClaims,
    check_body_signature,
    mint,
    sign_body,
    token_hash,
    verify,
)
from docflow.review.stage.inbox import slot_pk
from docflow.review.stage.requests import ReviewRequest
from docflow.rules.model import Stage
from docflow.rules.routed import RoutedStage
from docflow.settings import load_settings
from tests.kit import pdfgen as pdfs
from tests.support.aws import Stack

RING = KeyRing.from_json(KeyRing.generate_json("k1"))
STAGE = RoutedStage(Stage("legal", ("a@example.com", "b@example.com"), 3600, 0), "type")


@pytest.fixture
def issued(stack: Stack) -> tuple[LinkStore, IssuedLink, ReviewRequest]:
    links = LinkStore(load_settings().links_table)
    doc = stack.upload("in/waiting.pdf", pdfs.text_pdf("SERVICES AGREEMENT"))
    request = ReviewRequest(doc, 0, STAGE, "cb-1", {"docType": "contract"})
    return links, links.issue(request, "a@example.com", RING, 3600), request


def slot_of(links: LinkStore, link: IssuedLink) -> dict:
    """The reviewer's slot the link was minted from (its key id, nonce and expiry)."""
    slot = links._slots.get({"pk": link.slot_pk})
    assert slot is not None
    return slot


def state(links: LinkStore, token: str) -> str:
    record = links.get(token)
    assert record is not None
    return record.state


def test_a_links_single_use_is_spent_once_however_often_it_is_clicked(
    issued: tuple[LinkStore, IssuedLink, ReviewRequest],
) -> None:
    """The spend timeout's edge: a use being decided cannot be spent again until it is
    SPEND_TIMEOUT_S old, so a second click while the first decides is refused."""
    links, link, _ = issued
    first = links.spend(link.token)
    assert first.state == DECIDING and first.claimed_at is not None
    with pytest.raises(AlreadyDecided) as again:
        links.spend(link.token)
    assert again.value.link is not None and again.value.link.state == DECIDING
    links.complete(link.token, {"approved": True})
    assert state(links, link.token) == USED
    with pytest.raises(AlreadyDecided):
        links.spend(link.token)
    with pytest.raises(AlreadyDecided) as unknown:
        links.spend("v1.k1.nothing.here")
    assert unknown.value.link is None  # no such link: nothing stored to show


def test_a_use_is_given_back_only_while_it_is_being_decided(
    issued: tuple[LinkStore, IssuedLink, ReviewRequest],
) -> None:
    links, link, _ = issued
    links.refund(link.token)  # open: nothing to give back
    assert state(links, link.token) == OPEN
    links.spend(link.token)
    links.refund(link.token)
    record = links.get(link.token)
    assert record is not None and record.state == OPEN and record.claimed_at is None
    assert links.spend(link.token).state == DECIDING  # spendable again
    links.complete(link.token, {"approved": False})
    links.refund(link.token)  # used: stays used
    assert state(links, link.token) == USED


def test_a_superseded_run_closes_only_links_still_open(
    issued: tuple[LinkStore, IssuedLink, ReviewRequest],
) -> None:
    links, link, request = issued
    other = links.issue(request, "b@example.com", RING, 3600)
    links.spend(other.token)
    links.close_superseded(link.pk)
    links.close_superseded(other.pk)
    assert state(links, link.token) == SUPERSEDED
    assert state(links, other.token) == DECIDING  # a click holds it: its callback races
    with pytest.raises(AlreadyDecided):
        links.spend(link.token)


def test_a_link_is_minted_once_per_run_stage_and_reviewer(
    issued: tuple[LinkStore, IssuedLink, ReviewRequest],
) -> None:
    links, link, request = issued
    assert links.issue(request, "a@example.com", RING, 3600).token == link.token
    assert links.issue(request, "b@example.com", RING, 3600).token != link.token
    claims = verify(link.token, RING)
    assert (claims.reviewer, claims.stage_name, claims.stage_index) == ("a@example.com", "legal", 0)
    record = links.get(link.token)
    assert record is not None
    assert record.reviewers == ("a@example.com", "b@example.com")
    assert record.expires_at == claims.expires_at + KEEP_AFTER_EXPIRY_S
    assert link.pk == f"LINK#{token_hash(link.token)}" and len(link_id(link.token)) == 12
    links.mark_sent(request, "a@example.com", {"request"})
    links.mark_sent(request, "a@example.com", {"remind-1"})
    again = links.issue(request, "a@example.com", RING, 3600)
    assert again.sent == frozenset({"request", "remind-1"})


CLAIMS = TokenClaims("d-1", "v1", "run-1", 0, "legal", "a@example.com", 1_000_000, "n-1")


def test_a_token_verifies_until_the_second_before_its_expiry() -> None:
    token = mint(CLAIMS, RING)
    assert verify(token, RING, now=999_999.0) == CLAIMS
    assert verify(token, RING, now=999_999.999) == CLAIMS
    with pytest.raises(ExpiredToken):
        verify(token, RING, now=1_000_000.0)
    with pytest.raises(ExpiredToken):
        verify(token, RING)  # the clock says long past


def test_a_tokens_length_and_claims_are_bounded() -> None:
    token = mint(CLAIMS, RING)
    assert len(token) < signing.MAX_TOKEN_LENGTH
    with pytest.raises(MalformedToken):
        verify(token + "A" * (signing.MAX_TOKEN_LENGTH - len(token) + 1), RING)
    with pytest.raises(MalformedToken):
        verify(None, RING)  # type: ignore[arg-type]
    for purpose in signing.PURPOSES:
        wire = {**CLAIMS.to_wire(), "p": purpose}
        assert TokenClaims.from_wire(wire).purpose == purpose
    old = {k: v for k, v in CLAIMS.to_wire().items() if k != "p"}
    assert TokenClaims.from_wire(old).purpose == "review"  # minted before purposes
    with pytest.raises(MalformedToken, match=r"^the token's purpose is unknown$"):
        TokenClaims.from_wire({**CLAIMS.to_wire(), "p": "admin"})
    for missing in ("d", "e", "i"):
        wire = {k: v for k, v in CLAIMS.to_wire().items() if k != missing}
        with pytest.raises(MalformedToken, match=r"^the token's claims are incomplete$"):
            TokenClaims.from_wire(wire)
    with pytest.raises(MalformedToken, match=r"^the token's claims are incomplete$"):
        TokenClaims.from_wire({**CLAIMS.to_wire(), "i": "first"})
    with pytest.raises(MalformedToken, match=r"^the token's claims are incomplete$"):
        TokenClaims.from_wire(["not", "a", "mapping"])


def test_a_signed_body_that_is_no_json_is_refused_as_malformed() -> None:
    key = RING.keys["k1"]
    body = signing._b64(b"not json")
    signed = f"v1.k1.{body}"
    with pytest.raises(MalformedToken, match=r"^the link's claims cannot be read$"):
        verify(f"{signed}.{signing._sign(key, signed)}", RING)


def test_a_key_ring_holds_keys_of_32_bytes_or_more_under_ids_of_1_to_32_characters() -> None:
    KeyRing(current="k", keys={"k": b"x" * 32})
    KeyRing(current="k" * 32, keys={"k" * 32: b"x" * 32})
    with pytest.raises(ValueError, match="shorter than 32 bytes"):
        KeyRing(current="k", keys={"k": b"x" * 31})
    with pytest.raises(ValueError, match="1-32 URL-safe"):
        KeyRing(current="k" * 33, keys={"k" * 33: b"x" * 32})
    with pytest.raises(ValueError, match="1-32 URL-safe"):
        KeyRing(current="k.1", keys={"k.1": b"x" * 32})
    with pytest.raises(ValueError, match="not in the key ring"):
        KeyRing(current="k2", keys={"k1": b"x" * 32})
    for bad in ("[]", '{"k1": "x"}', '{"current": 1}'):
        with pytest.raises(ValueError, match="JSON object with a 'current'"):
            KeyRing.from_json(bad)


def test_a_new_ring_keeps_the_previous_keys_and_points_current_at_the_new_one() -> None:
    first = KeyRing.generate_json("k1")
    second = json.loads(KeyRing.generate_json("k2", previous=first))
    assert second["current"] == "k2" and second["k1"] == json.loads(first)["k1"]
    assert len(second["k2"]) >= 64 and second["k2"] != second["k1"]


def test_a_machine_body_signature_binds_the_token_and_ignores_case_and_blanks() -> None:
    key, token, body = b"k" * 32, mint(CLAIMS, RING), b'{"approved": true}'
    good = sign_body(key, "1700000000", token, body)
    assert check_body_signature(key, "1700000000", token, body, f"  {good.upper()}\n")
    assert not check_body_signature(key, "1700000001", token, body, good)
    assert not check_body_signature(key, "1700000000", token + "x", body, good)
    assert not check_body_signature(key, "1700000000", token, body + b" ", good)
    assert good == sign_body(key, "1700000000", token, body)  # deterministic


def test_an_item_holding_only_its_key_reads_with_every_default() -> None:
    """What `from_item` gives for each attribute an old item lacks: empty, zero, nothing. A
    link with no state is no open link: it cannot be spent (`spend` wants `open`)."""
    record = LinkRecord.from_item({"pk": "LINK#x"})
    assert record == LinkRecord(
        pk="LINK#x",
        document_id="",
        version="",
        run_id="",
        run_order="",
        stage_index=0,
        state="",
        expires_at=0,
    )
    assert record.state != OPEN
    assert record.to_item() == {
        "pk": "LINK#x",
        "documentId": "",
        "version": "",
        "runId": "",
        "runOrder": "",
        "bucket": "",
        "key": "",
        "docName": "",
        "stageIndex": 0,
        "stageName": "",
        "reviewer": "",
        "reviewers": [],
        "summary": {},
        "stagePk": "",
        "waitPk": "",
        "state": "",
        "expiresAt": 0,
    }
    # Numbers stored as DynamoDB gives them back (Decimal), and a decision that is no map.
    odd = LinkRecord.from_item(
        {"pk": "LINK#y", "stageIndex": Decimal(2), "claimedAt": Decimal(7), "decision": "x"}
    )
    assert (odd.stage_index, odd.claimed_at, odd.decision) == (2, 7, None)
    assert LinkRecord.from_item({"pk": "LINK#z", "claimedAt": 0}).claimed_at == 0
    assert LinkRecord(pk="p", document_id="d", version="v", run_id="r", run_order="o").name == ""


def test_an_issued_link_binds_the_run_in_its_claims_and_its_record(
    issued: tuple[LinkStore, IssuedLink, ReviewRequest],
) -> None:
    """What the gate compares a click against: the token's claims name this version of this
    document, its run and a nonce of the slot's; the record keeps the document's place, its
    stage and who may decide it."""
    links, link, request = issued
    doc = request.doc
    claims = verify(link.token, RING)
    assert (claims.document_id, claims.version, claims.run_id) == (
        doc.document_id,
        doc.version,
        doc.run_id,
    )
    slot = slot_of(links, link)
    assert claims.nonce == slot["nonce"] and len(claims.nonce) == 16
    assert slot["expiresAt"] == slot["linkExpiresAt"] + KEEP_AFTER_EXPIRY_S
    assert link.slot_pk == slot_pk(doc.run_id, 0, "a@example.com")
    record = links.get(link.token)
    assert record is not None
    assert (record.bucket, record.key, record.doc_name) == (doc.bucket, doc.key, doc.display_name)
    assert (record.stage_index, record.stage_name, record.reviewer) == (0, "legal", "a@example.com")
    assert record.summary == {"docType": "contract"} and record.state == OPEN
    assert record.wait_pk == record.stage_pk and doc.run_id in record.stage_pk
    assert links.get(link.token + "x") is None


def test_two_stages_or_two_runs_never_share_a_reviewers_slot(stack: Stack) -> None:
    links = LinkStore(load_settings().links_table)
    first = stack.upload("in/one.pdf", pdfs.text_pdf("SERVICES AGREEMENT"))
    second = stack.upload("in/two.pdf", pdfs.text_pdf("OTHER AGREEMENT"))
    tokens = {
        links.issue(ReviewRequest(doc, index, STAGE, "cb", {}), "a@example.com", RING, 60).slot_pk
        for doc in (first, second)
        for index in (0, 1)
    }
    assert len(tokens) == 4


def test_a_retired_keys_slot_gets_the_new_key_nonce_and_expiry(
    issued: tuple[LinkStore, IssuedLink, ReviewRequest],
) -> None:
    links, link, request = issued
    before = slot_of(links, link)
    rotated = KeyRing.from_json(KeyRing.generate_json("k2"))  # k1 is gone from this ring
    again = links.issue(request, "a@example.com", rotated, 7200)
    after = slot_of(links, link)
    assert after["kid"] == "k2" and after["nonce"] != before["nonce"]
    assert after["linkExpiresAt"] > before["linkExpiresAt"]
    assert after["expiresAt"] == after["linkExpiresAt"] + KEEP_AFTER_EXPIRY_S
    assert verify(again.token, rotated).expires_at == after["linkExpiresAt"]


def test_a_records_callback_id_round_trips() -> None:
    record = LinkRecord("LINK#x", "d-1", "v1", "run-1", "0001", callback_id="cb-9")
    assert record.to_item()["callbackId"] == "cb-9"
    assert LinkRecord.from_item(record.to_item()).callback_id == "cb-9"


def test_a_click_stuck_deciding_past_the_timeout_may_decide_again(
    issued: tuple[LinkStore, IssuedLink, ReviewRequest], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A click that spent the use and then died (no callback, no refund) holds it only for
    SPEND_TIMEOUT_S; a second click before then is told the link was already used."""
    import time as clock

    from docflow.review.access import links as module

    store, link, _ = issued
    store.spend(link.token)
    with pytest.raises(AlreadyDecided, match=r"^the link was already used$"):
        store.spend(link.token)
    later = clock.time() + module.SPEND_TIMEOUT_S + 5
    monkeypatch.setattr(module.time, "time", lambda: later)
    assert store.spend(link.token).state == DECIDING


def test_a_slot_another_issuer_replaced_first_is_theirs(
    issued: tuple[LinkStore, IssuedLink, ReviewRequest],
) -> None:
    links, link, _ = issued
    stored = slot_of(links, link)
    fresh = {**stored, "kid": "k9", "nonce": "other"}
    # The slot's key is not the one this issuer saw ("k0"): its update loses, and it takes
    # what the winner wrote, so two issuers mint one link.
    assert links._replace_slot({"kid": "k0"}, fresh) == stored


def test_a_later_stages_record_names_its_stage(stack: Stack) -> None:
    links = LinkStore(load_settings().links_table)
    doc = stack.upload("in/second.pdf", pdfs.text_pdf("SERVICES AGREEMENT"))
    link = links.issue(ReviewRequest(doc, 1, STAGE, "cb", {}), "a@example.com", RING, 60)
    record = links.get(link.token)
    assert record is not None and record.stage_index == 1
