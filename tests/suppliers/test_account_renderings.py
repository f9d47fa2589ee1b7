"""What an attacker can vary in how the payee account is printed, property-tested (issue 56):
for any rendering of an account nobody registered (separators, grouping, case, a line break,
the payment words before it, its place on the page outside the customer's block) on a
registered supplier's invoice, the bank-details check never passes it as `no-payee` or
`registered`; and any rendering of the registered account is `registered` (no false hold).

Each example is a real PDF (reportlab, a text layer), read by the text-layer reader and
checked by the registry's consult (`docflow.suppliers.hook`) against moto."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from docflow.suppliers import history
from docflow.suppliers.bank import HOLDS
from docflow.suppliers.hook import consult
from docflow.suppliers.model import Supplier
from docflow.suppliers.store import SupplierStore
from tests.accounts.renderings import IBANS, PRINTABLE_SEPARATORS, rendering
from tests.suppliers.papers import BLAUWAL_IBAN, BLAUWAL_VAT
from tests.suppliers.printed import NAME, POSITIONS, invoice_at, page_of
from tests.support.aws import Stack
from tests.support.reviewed_runs import registry

REGISTERED = BLAUWAL_IBAN.replace(" ", "")
# The words a payment line opens with, in the seven languages (or none: a bare account).
OPENINGS = (
    "IBAN:",
    "Bankverbindung: IBAN",
    "Bitte überweisen Sie den Betrag auf",
    "Please pay by bank transfer to",
    "Payable to account",
    "Virement sur le compte IBAN",
    "Paga mediante transferencia a",
    "Pagamento tramite bonifico su IBAN",
    "Gelieve over te maken op rekening",
    "Pagamento por transferência para",
    "",
)
FIELDS = ["vendor_name", "invoice_number", "total_amount"]
EXAMPLES = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture
def store(stack: Stack) -> SupplierStore:
    supplier = Supplier.parse(
        {
            "supplierId": "blauwal",
            "name": NAME,
            "ids": {"vat": [BLAUWAL_VAT], "iban": [REGISTERED]},
            "currency": "EUR",
        }
    )
    registry().put(supplier, history.entry("blauwal", history.IMPORTED, "test"))
    return registry()


def payment(value: str) -> st.SearchStrategy[tuple[str, list[str]]]:
    """(position, payment lines) with `value` printed some way after some opening."""
    return st.tuples(
        st.sampled_from(POSITIONS),
        st.sampled_from(OPENINGS),
        rendering(value, PRINTABLE_SEPARATORS),
    ).map(lambda t: (t[0], f"{t[1]} {t[2]}".strip().split("\n")))


def verdict(store: SupplierStore, position: str, lines: list[str]) -> dict:
    out = consult(store, [page_of(invoice_at(position, lines))], {}, FIELDS)
    assert out.shown["supplier"]["supplierId"] == "blauwal", out.shown["supplier"]
    return dict(out.shown["bank"])


@EXAMPLES
@given(st.sampled_from([i for i in IBANS if i != REGISTERED]).flatmap(payment))
def test_any_rendering_of_an_unregistered_account_holds(
    store: SupplierStore, case: tuple[str, list[str]]
) -> None:
    bank = verdict(store, *case)
    assert bank["verdict"] in HOLDS, (case, bank)


@EXAMPLES
@given(payment(REGISTERED))
def test_any_rendering_of_the_registered_account_is_registered(
    store: SupplierStore, case: tuple[str, list[str]]
) -> None:
    bank = verdict(store, *case)
    assert bank["verdict"] == "registered", (case, bank)
