"""An XRechnung XML on the real local stack: `docflow run` uploads it, the stack reads it as
its invoice (no PDFium, its one page the invoice as text), types it by its type code and
carries the e-invoice's small object to `docflow show --json`; its EN 16931 data is in S3."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from docflow.local.config import StackConfig
from docflow.local.tools.ports import free_port_base
from docflow.settings import load_settings
from docflow.storage import DocumentStore
from tests.support.live_stack import docflow_cli, running_stack

pytestmark = pytest.mark.slow

DATA = Path(__file__).parents[1] / "data" / "einvoice"
XRECHNUNG, FACTURX = DATA / "kosit-xrechnung-01.01a-cii.xml", DATA / "facturx-en16931.pdf"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StackConfig]:
    state = tmp_path_factory.mktemp("einvoice-stack")
    with running_stack(StackConfig(state=state, port_base=free_port_base(27800))) as config:
        yield config


def docflow(stack: StackConfig, *args: str) -> subprocess.CompletedProcess:
    return docflow_cli(stack, *args)


def test_an_xrechnung_xml_goes_through_the_stack(stack: StackConfig, tmp_path: Path) -> None:
    upload, hybrid = tmp_path / "rechnung.xml", tmp_path / "facturx.pdf"
    upload.write_bytes(XRECHNUNG.read_bytes())
    hybrid.write_bytes(FACTURX.read_bytes())

    ran = docflow(stack, "run", str(upload), str(hybrid))
    assert ran.returncode == 0, ran.stderr  # neither failed: an XML is no `not-a-pdf` any more
    shown = docflow(stack, "show", "incoming/rechnung.xml", "--json")
    assert shown.returncode == 0, shown.stderr
    shown_json = json.loads(shown.stdout)
    state = shown_json["state"]
    # Its review or its end, as the shipped rules route an invoice (this sample breaks
    # BR-CO-15 and BR-S-08: a `fields` review, as it happens).
    assert state["status"] in ("pending-review", "finalized"), state
    assert (state["docType"], state["engines"], state["pages"]) == ("invoice", {"einvoice": 1}, 1)
    assert float(state["confidence"]) == 1.0
    einvoice = state["einvoice"]
    assert (einvoice["source"], einvoice["syntax"], einvoice["typeCode"]) == ("xml", "cii", "380")
    assert (einvoice["lines"], einvoice["lineTotal"]) == (2, "314.86")
    # `show --json`'s own e-invoice object has the lines themselves, exactly as the XML wrote them.
    lines = shown_json["einvoice"]["lines"]
    assert [line["net"] for line in lines] == ["288.79", "26.07"]
    assert shown_json["einvoice"]["readFrom"] in (einvoice["key"], state.get("resultKey"))
    store = DocumentStore(load_settings().artifact_bucket)
    stored = store.get_json(einvoice["key"])
    assert stored["invoice"]["number"] == "123456XX"
    # Its rules ran where AWS runs them: the stack's own e-invoice rules function.
    assert stored["report"]["rules"] and all(
        "rules function" in ran for ran in stored["report"]["rules"]
    ), stored["report"]["rules"]
    assert [line["net"] for line in stored["invoice"]["lines"]] == ["288.79", "26.07"]
    # Its one page is the invoice as text, beside its data.
    page = store.get_text(einvoice["key"].replace("einvoice.json", "pages/00001.txt"))
    assert "Invoice number: 123456XX" in page and "Porto + Versandkosten" in page

    # The hybrid Factur-X PDF (a `make run` sample): its pages read, its data beside them.
    shown = docflow(stack, "show", "incoming/facturx.pdf", "--json")
    state = json.loads(shown.stdout)["state"]
    assert state["status"] in ("pending-review", "finalized"), state
    assert (state["docType"], state["engines"]) == ("invoice", {"textlayer": 1})
    assert (state["einvoice"]["source"], state["einvoice"]["typeCode"]) == ("hybrid", "380")
