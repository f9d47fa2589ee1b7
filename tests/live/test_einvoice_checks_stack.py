"""E-invoices' checks on the real local stack (shipped rules, `docflow run`): a hybrid
Factur-X PDF of a registered supplier finalizes with no person and its lines in `final.json`;
the same hybrid with another IBAN printed on its page waits with both values shown; an XML
whose total does not add up (`BR-CO-15`) waits at its fields review with the rule named."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pymupdf
import pytest

from docflow.local.config import StackConfig
from docflow.local.tools.ports import free_port_base
from docflow.settings import load_settings
from docflow.storage import DocumentStore
from tests.support.live_stack import docflow_cli, running_stack

pytestmark = pytest.mark.slow

DATA = Path(__file__).parents[1] / "data" / "einvoice"
FACTURX = DATA / "facturx-en16931.pdf"
PRINTED_IBAN = "FR20 1254 2547 2569 8542 5874 698"  # as the page prints the XML's account
ATTACKER_IBAN = "DE89 3704 0044 0532 0130 00"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StackConfig]:
    state = tmp_path_factory.mktemp("einvoice-checks-stack")
    with running_stack(StackConfig(state=state, port_base=free_port_base(28200))) as config:
        folder = tmp_path_factory.mktemp("suppliers")
        csv = folder / "suppliers.csv"
        # Le Fournisseur as an operator registers it: its VAT id and its account.
        csv.write_text(
            "id,name,vat,iban,currency\n"
            f"fournisseur,LE FOURNISSEUR,FR11123456782,{PRINTED_IBAN.replace(' ', '')},EUR\n"
        )
        done = docflow(config, "suppliers", "import", str(csv), "--json")
        assert done.returncode == 0, done.stderr
        yield config


def docflow(stack: StackConfig, *args: str) -> subprocess.CompletedProcess:
    return docflow_cli(stack, *args)


def run(stack: StackConfig, path: Path) -> dict[str, Any]:
    ran = docflow(stack, "run", str(path))
    assert ran.returncode == 0, ran.stderr
    shown = docflow(stack, "show", f"incoming/{path.name}", "--json")
    assert shown.returncode == 0, shown.stderr
    state: dict[str, Any] = json.loads(shown.stdout)["state"]
    return state


def another_iban_printed(pdf: bytes) -> bytes:
    """The hybrid with its page's IBAN changed (redacted, the new one printed in its place);
    its XML untouched."""
    doc = pymupdf.open(stream=pdf, filetype="pdf")
    page = doc[0]
    (hit,) = page.search_for(PRINTED_IBAN)
    page.add_redact_annot(pymupdf.Rect(hit.x0 - 1, hit.y0 - 1, hit.x1 + 1, hit.y1 + 1))
    page.apply_redactions(images=pymupdf.PDF_REDACT_IMAGE_NONE)
    page.insert_text((hit.x0, hit.y1 - hit.height * 0.22), ATTACKER_IBAN, fontsize=hit.height * 0.8)
    return bytes(doc.tobytes())


def test_a_registered_suppliers_hybrid_finalizes_with_no_person(
    stack: StackConfig, tmp_path: Path
) -> None:
    upload = tmp_path / "facture.pdf"
    upload.write_bytes(FACTURX.read_bytes())
    state = run(stack, upload)
    assert state["status"] == "finalized", state
    assert not state.get("fieldChecks"), state.get("fieldChecks")
    assert state["supplier"]["supplierId"] == "fournisseur" and state["supplier"]["certain"]
    assert state["bank"]["verdict"] == "registered"
    assert state["fields"]["total_amount"]["value"] == "104.90"
    assert state["fields"]["total_amount"]["confidence"] == 1.0
    final = DocumentStore(load_settings().artifact_bucket).get_json(state["resultKey"])
    assert [line["net"] for line in final["lines"]] == ["60.00", "28.00", "7.00"]
    assert final["summary"]["einvoice"]["source"] == "hybrid"


def test_a_hybrid_whose_page_prints_another_iban_waits_with_both(
    stack: StackConfig, tmp_path: Path
) -> None:
    upload = tmp_path / "facture-iban.pdf"
    upload.write_bytes(another_iban_printed(FACTURX.read_bytes()))
    state = run(stack, upload)
    assert (state["status"], state["stageName"]) == ("pending-review", "fields"), state
    (check,) = [c for c in state["fieldChecks"] if c["code"] == "page-mismatch"]
    assert (check["field"], check["xml"], check["page"]) == ("iban", "FR•••• 4698", "DE•••• 3000")
    assert check["pageBox"]["page"] == 1
    # The account printed is not the supplier's: treasury sees it after the fields review.
    assert state["bank"]["verdict"] == "unregistered"
    assert "bank-details" in [s["name"] for s in state["stages"]]


def test_an_xml_breaking_br_co_15_waits_at_its_fields_review_with_the_rule(
    stack: StackConfig, tmp_path: Path
) -> None:
    upload = tmp_path / "total.xml"
    upload.write_bytes((DATA / "invalid-br-co-15-ubl.xml").read_bytes())
    state = run(stack, upload)
    assert (state["status"], state["stageName"]) == ("pending-review", "fields"), state
    rules = {c["rule"]: c for c in state["fieldChecks"] if c["code"] == "einvoice-rule"}
    assert rules["BR-CO-15"]["field"] == "total_amount"
    assert "Invoice total amount with VAT (BT-112)" in rules["BR-CO-15"]["message"]
    assert state["einvoice"]["fatal"] == ["BR-CO-15", "BR-CO-16"]
