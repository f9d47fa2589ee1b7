"""Issue 59: the audit sample is keyed by a secret, never by a name an uploader chooses.

The draw is an HMAC under a key derived from the signing key ring (HKDF, checked against RFC
5869's vectors) of the document's content tag and version: the same name with other bytes is
a new draw (the uploader cannot pick a never-sampled name and send anything under it), the
same version answers the same, and without the key the draw is not computable from the name.
Through the real handler on the durable testing runner: uploads of new bytes under one name
are sampled or not as the secret draws them."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from aws_durable_execution_sdk_python.serdes import EXTENDED_TYPES_SERDES
from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from docflow import aws
from docflow.review.access.signing import KeyRing
from docflow.settings import load_settings
from docflow.suppliers import audit_key
from docflow.suppliers.audit import AuditLedger
from docflow.suppliers.csv_import import import_suppliers
from orchestrator.app import handler
from tests.suppliers.layouts import store as layouts
from tests.suppliers.papers import BLAUWAL_IBAN, BLAUWAL_VAT, blauwal_invoice
from tests.support.aws import Stack, result_json
from tests.support.reviewed_runs import registry, run_reviewed

REGISTRY = (
    "id,name,vat,iban,currency\n"
    f"blauwal,Blauwal Hafenlogistik GmbH,{BLAUWAL_VAT},{BLAUWAL_IBAN},EUR\n"
)


def test_hkdf_matches_rfc_5869() -> None:
    """Test cases 1 and 3 of RFC 5869 (SHA-256)."""
    okm = audit_key.hkdf_sha256(
        bytes([0x0B] * 22), bytes(range(0xF0, 0xFA)), salt=bytes(range(0x0D)), length=42
    )
    assert okm.hex() == (
        "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"
    )
    okm = audit_key.hkdf_sha256(bytes([0x0B] * 22), b"", length=42)
    assert okm.hex() == (
        "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"
    )


def _ring(secret: str) -> KeyRing:
    return KeyRing.from_json(json.dumps({"current": "k1", "k1": secret}))


def test_the_key_is_the_rings_own_purpose_and_no_signing_key() -> None:
    ring = _ring("s" * 40)
    key = audit_key.sample_key(ring)
    assert key != ring.keys["k1"] and len(key) == 32
    assert audit_key.sample_key(_ring("t" * 40)) != key  # another ring, another key
    rotated = KeyRing.from_json(json.dumps({"current": "k2", "k1": "s" * 40, "k2": "u" * 40}))
    assert audit_key.sample_key(rotated) != key  # a rotation re-keys the sample


@settings(max_examples=60, deadline=None)
@given(
    name=st.text(min_size=1, max_size=40),
    contents=st.lists(st.binary(min_size=1, max_size=64), min_size=24, max_size=24, unique=True),
)
def test_a_name_does_not_decide_the_draw(name: str, contents: list[bytes]) -> None:
    """Whatever name an uploader picks, new bytes under it are drawn anew: at rate 0.5, 24
    different contents under one name are not all sampled nor all passed (the old sample, a
    hash of the document id, answered the same for every bytes under a name). The same
    content and version draw the same on every call."""
    key = audit_key.sample_key(_ring("k" * 40))
    tags = [hashlib.md5(c, usedforsecurity=False).hexdigest() for c in contents]
    draws = [audit_key.sampled(key, tag, name, 0.5) for tag in tags]
    assert draws == [audit_key.sampled(key, tag, name, 0.5) for tag in tags]
    assert any(draws) and not all(draws)
    assert not any(audit_key.sampled(key, tag, name, 0.0) for tag in tags)
    assert all(audit_key.sampled(key, tag, name, 1.0) for tag in tags)


def test_the_share_is_the_rate() -> None:
    key = audit_key.sample_key(_ring("r" * 40))
    taken = sum(audit_key.sampled(key, f"etag-{n}", "v", 0.05) for n in range(20000))
    assert 0.045 < taken / 20000 < 0.055


def _stack_key() -> bytes:
    """The key the stack's runs draw with (the test reads the secret the sandbox made)."""
    raw = aws.client("secretsmanager").get_secret_value(SecretId=load_settings().signing_secret_id)
    return audit_key.sample_key(KeyRing.from_json(raw["SecretString"]))


def test_new_bytes_under_one_name_are_drawn_by_the_secret(
    stack: Stack, use_rules: Callable[..., None]
) -> None:
    """One trusted profile (one review trusts it here), then invoices uploaded one after the
    other under one file name at rate 0.5: each run is audited exactly when the secret draw
    of its content and version says so, and the same name is both sampled and passed."""
    use_rules(min_confirmations=1, rate=0.5)
    import_suppliers(registry(), REGISTRY)
    number = "E2026000000017"
    typed = {"approved": True, "reviewer": "ap@example.com"}
    run_reviewed(
        stack,
        blauwal_invoice(number),
        "in/taught.pdf",
        [{**typed, "corrections": {"invoice_number": number}}],
    )
    key = _stack_key()
    seen: set[bool] = set()
    for n in range(18, 48):
        if seen == {True, False}:
            break
        data = blauwal_invoice(f"E20260000000{n}")
        # Each upload a newer version (S3's sequencer orders them) of the one document.
        doc = replace(stack.upload("in/same-name.pdf", data), sequencer=f"{n:016X}")
        expected = audit_key.sampled(key, doc.version, doc.version, 0.5)
        out, waited, ran = run_reviewed(stack, data, "", [typed] * expected, doc=doc)
        assert ran.get_step("audit sample") is not None
        assert [w["stageName"] for w in waited] == (["audit"] if expected else [])
        assert out["status"] == "finalized"
        seen.add(expected)
    assert seen == {True, False}


def test_a_version_run_again_gets_the_same_draw_and_is_counted_once(
    stack: Stack, use_rules: Callable[..., None]
) -> None:
    """The same version delivered again (a second execution of one run) is drawn as it was
    the first time, sampled or passed, and the ledger counts it once: replaying cannot draw
    a document out of the sample, nor count it twice."""
    use_rules(min_confirmations=1, rate=0.5)
    import_suppliers(registry(), REGISTRY)
    number = "E2026000000017"
    typed = {"approved": True, "reviewer": "ap@example.com"}
    taught = [{**typed, "corrections": {"invoice_number": number}}]
    run_reviewed(stack, blauwal_invoice(number), "in/taught.pdf", taught)
    (layout,) = layouts().all()
    key = _stack_key()
    drawn: dict[bool, int] = {}
    for n in range(18, 48):
        if len(drawn) == 2:
            break
        data = blauwal_invoice(f"E20260000000{n}")
        doc = stack.upload(f"in/{n}.pdf", data)
        sampled = audit_key.sampled(key, doc.version, doc.version, 0.5)
        if sampled in drawn:
            continue
        drawn[sampled] = n
        out, waited, first = run_reviewed(stack, data, "", [typed] * sampled, doc=doc)
        assert [w["stageName"] for w in waited] == (["audit"] if sampled else [])
        assert out["status"] == "finalized"
        # Again: the read model has this run finalized already, so its own operations say.
        with DurableFunctionTestRunner(handler=handler, poll_interval=0.1) as runner:
            arn = runner.run_async(input=stack.event(doc), execution_timeout=180)
            if sampled:
                callback = runner.wait_for_callback(arn, name="review-0 create callback id")
                runner.send_callback_success(callback, json.dumps(typed).encode())
            again = runner.wait_for_result(arn, timeout=120)
        assert result_json(again)["status"] == "finalized"
        assert ("review-0" in [o.name for o in again.operations]) is sampled
        draws = [_step_result(r, "audit sample") for r in (first, again)]
        assert draws[0] == draws[1], draws
    assert set(drawn) == {True, False}
    ledger = AuditLedger(load_settings().supplier_table).get(layout.layout_id)
    assert (ledger["sampled"], ledger["unreviewed"]) == (1, 1)


def _step_result(ran: Any, name: str) -> Any:
    return EXTENDED_TYPES_SERDES.deserialize(ran.get_step(name).result)
