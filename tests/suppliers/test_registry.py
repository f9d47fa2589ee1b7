"""The supplier registry on moto (the template's SupplierTable): the CSV import checks every
row before it writes any, two suppliers never share an id, and profile updates that race
each other both land."""

from __future__ import annotations

import json
import threading

import pytest

from docflow.cli import main as docflow
from docflow.settings import load_settings
from docflow.suppliers import history, ids
from docflow.suppliers.csv_import import SupplierImportError, import_suppliers
from docflow.suppliers.store import ClaimConflict, SupplierStore
from tests.suppliers.papers import BAD_IBAN, BLAUWAL_IBAN, BLAUWAL_VAT, OTHER_VAT
from tests.support.aws import Stack

GOOD = (
    "id,name,aliases,vat,iban,currency\n"
    "blauwal,Blauwal Hafenlogistik GmbH,Blauwal;Blauwal Logistik,"
    f"{BLAUWAL_VAT},{BLAUWAL_IBAN},EUR\n"
    f"nordlicht,Nordlicht Handel AG,,{OTHER_VAT},,EUR\n"
)


def store() -> SupplierStore:
    return SupplierStore(load_settings().supplier_table)


def test_ids_are_checked_by_their_rules() -> None:
    text = (
        f"USt-IdNr.: {BLAUWAL_VAT}  GSTIN: 27AAPFU0939F1ZV  CNPJ 11.222.333/0001-81 "
        f"ABN 51 824 753 556  SIRET 732 829 320 00074  IBAN {BLAUWAL_IBAN}  IBAN {BAD_IBAN}"
    )
    found = {(f.kind, f.value): f.valid for f in ids.find_ids(text)}
    assert found[("vat", BLAUWAL_VAT)] is True
    assert found[("cnpj", "11222333000181")] is True
    assert found[("abn", "51824753556")] is True
    assert found[("siret", "73282932000074")] is True
    assert found[("iban", "DE89370400440532013000")] is True
    assert found[("iban", "DE89370400440532013001")] is False  # mod 97 fails
    assert ("gstin", "27AAPFU0939F1ZV") in found
    assert ids.find_ids("VAT DE812345674")[0].valid is False  # check digit off


def test_an_import_stores_every_row(stack: Stack) -> None:
    done = import_suppliers(store(), GOOD)
    assert [s.supplier_id for s in done.suppliers] == ["blauwal", "nordlicht"]
    found = store().by_key(f"vat:{BLAUWAL_VAT}")
    assert found is not None and found.name == "Blauwal Hafenlogistik GmbH"
    assert found.ids["iban"] == ("DE89370400440532013000",)
    assert [s.supplier_id for s in store().all()] == ["blauwal", "nordlicht"]


def test_a_malformed_row_is_named_and_nothing_is_imported(stack: Stack) -> None:
    bad = GOOD + f"broken,Broken Ltd,,,{BAD_IBAN},EUR\n"
    with pytest.raises(SupplierImportError) as caught:
        import_suppliers(store(), bad)
    assert caught.value.row == 4 and "iban" in str(caught.value)
    assert store().all() == []
    short = GOOD + "extra,Extra Ltd,,,,EUR,surplus\n"
    with pytest.raises(SupplierImportError, match="row 4"):
        import_suppliers(store(), short)
    with pytest.raises(SupplierImportError, match="row 3: currency"):
        import_suppliers(store(), "name,currency\nA Ltd,EUR\nB Ltd,EURO\n")
    assert store().all() == []


def test_two_suppliers_claiming_one_vat_id_are_refused(stack: Stack) -> None:
    twice = f"id,name,vat\na,A GmbH,{BLAUWAL_VAT}\nb,B GmbH,{BLAUWAL_VAT}\n"
    with pytest.raises(SupplierImportError, match="row 3"):
        import_suppliers(store(), twice)
    assert store().all() == []
    import_suppliers(store(), GOOD)
    later = f"id,name,vat\nintruder,Intruder SARL,{BLAUWAL_VAT}\n"
    with pytest.raises(SupplierImportError, match="belongs to supplier 'blauwal'"):
        import_suppliers(store(), later)
    assert store().get("intruder") is None
    # The store refuses too, in its own transaction, whatever the caller checked first.
    from docflow.suppliers.model import Supplier

    with pytest.raises(ClaimConflict):
        x = Supplier.parse({"supplierId": "x", "name": "X", "ids": {"vat": [BLAUWAL_VAT]}})
        store().put(x, history.entry("x", history.IMPORTED, "test"))


def test_profile_updates_racing_each_other_both_land(stack: Stack) -> None:
    import_suppliers(store(), GOOD)
    barrier = threading.Barrier(4)

    def teach(field: str) -> None:
        barrier.wait()

        def change(profile: dict) -> dict:
            fields = dict(profile.get("fields") or {})
            fields[field] = {"label": field, "region": [0, 0, 1, 1], "page": 1, "shape": "id"}
            return {**profile, "fields": fields}

        store().update_profile("blauwal", change)

    threads = [threading.Thread(target=teach, args=(f"f{i}",)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    found = store().get("blauwal")
    assert found is not None
    assert sorted(found.profile["fields"]) == ["f0", "f1", "f2", "f3"]
    assert found.profile_version == 4


def test_the_cli_imports_lists_shows_and_removes(
    stack: Stack, tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "suppliers.csv"
    path.write_text(GOOD, encoding="utf-8")

    def main(argv: list[str]) -> int:
        # A folder with no stack in it: the CLI asks the sandbox (DOCFLOW_TABLE_NAME), never a
        # stack running in the default `.docflow/` (tests/conftest.py's own_environment).
        return docflow(["--state", str(tmp_path / "no-stack"), *argv])

    assert main(["suppliers", "import", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["imported"] == 2
    assert main(["suppliers", "list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [s["supplierId"] for s in listed] == ["blauwal", "nordlicht"]
    assert main(["suppliers", "show", "blauwal", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ids"]["vat"] == [BLAUWAL_VAT]
    assert main(["suppliers", "remove", "blauwal", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"supplierId": "blauwal", "removed": True}
    # Who acted, with no --by against AWS: the IAM principal STS names (moto's here).
    imported, removed = store().history_of("blauwal")
    assert (imported.what, removed.what) == ("imported", "removed")
    assert removed.by.startswith("arn:aws:") and removed.by == imported.by
    assert store().by_key(f"vat:{BLAUWAL_VAT}") is None
    path.write_text("name,iban\nBad Bank Ltd,DE89 3704 0044 0532 0130 01\n", encoding="utf-8")
    assert main(["suppliers", "import", str(path), "--json"]) == 2
    answer = json.loads(capsys.readouterr().out)
    assert answer["row"] == 2 and "fails its check" in answer["error"]


def test_show_says_whose_each_iban_was_judged(capsys: pytest.CaptureFixture[str]) -> None:
    from docflow.cli.queries import print_fields

    state = {
        "fields": {
            "vendor_name": {
                "value": "Blauwal Hafenlogistik GmbH",
                "confidence": 1.0,
                "page": 1,
                "source": "registry",
                "printed": "Blauwald Hafen KG",
            }
        },
        "supplier": {
            "supplierId": "blauwal",
            "name": "Blauwal Hafenlogistik GmbH",
            "key": f"vat:{BLAUWAL_VAT}",
            "certain": True,
        },
        "ibans": [
            {"iban": "DE•••• 3000", "valid": True, "owner": "issuer", "why": "footer", "page": 1},
            {
                "iban": "NL•••• 4300",
                "valid": True,
                "owner": "other",
                "why": "debit-mandate",
                "page": 1,
            },
        ],
    }
    print_fields(state)
    out = capsys.readouterr().out
    assert "from the supplier registry (printed: Blauwald Hafen KG)" in out
    assert f"matched by vat:{BLAUWAL_VAT} (certain)" in out
    assert "IBAN DE•••• 3000 on page 1: the issuer's (footer)" in out
    assert "IBAN NL•••• 4300 on page 1: not the issuer's (debit-mandate)" in out
