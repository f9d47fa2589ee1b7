"""Fields a document type declares in the rules file: their kinds, labels, checks and tables.

A back office says what to read from each type under `[fields.types.<type>.fields.<name>]`
(`docflow/rules/rules.toml` ships invoice, credit note, purchase order, receipt, bank
statement, contract and claim form); every engine, check and review page follows the
declaration, so a new field is a few lines of TOML, not Python.

    [fields.types.receipt.fields.total_amount]
    kind = "amount"
    description = "Total paid, tax included."
    labels = { en = ["total", "amount due"], de = ["summe", "gesamt"] }
    required = true

    [fields.types.receipt.fields.lines]
    kind = "table"
    columns = [
      { name = "description", kind = "text", labels = { en = ["item", "description"] } },
      { name = "amount", kind = "amount", labels = { en = ["amount", "price"] } },
    ]
    checks = [{ sum = "amount", equals = "total_amount" }]

A type may take another's declarations whole (`like = "invoice"`: a credit note reads what an
invoice reads), and name the fields that make two of its documents one (`duplicate_key`,
`duplicate_key.py`). A bad declaration is refused at load with the line it is on
(`toml_lines.DeclarationError`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from docflow.extract.declarations.duplicate_key import parse_duplicate_key
from docflow.extract.declarations.kinds import (
    AMOUNT,
    ENUM,
    KINDS,
    NUMBER,
    SCALAR_KINDS,
    TABLE,
)
from docflow.extract.declarations.labels import LANGUAGES
from docflow.extract.declarations.toml_lines import Lines

_NAME = re.compile(r"[a-z][a-z0-9_]{0,47}")
_FIELD_KEYS = {
    "kind",
    "description",
    "labels",
    "pattern",
    "required",
    "threshold",
    "values",
    "columns",
    "checks",
    "advisory",
}
_COLUMN_KEYS = {"name", "kind", "description", "labels", "pattern", "required", "values"}


@dataclass(frozen=True)
class Column:
    """One column of a table field: a scalar kind, read under a header cell its labels match."""

    name: str
    kind: str
    description: str = ""
    labels: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    pattern: str | None = None
    required: bool = False
    values: tuple[str, ...] = ()

    def all_labels(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(lbl for lang in LANGUAGES for lbl in self.labels.get(lang, ())))


@dataclass(frozen=True)
class TableCheck:
    """A check between a table and the type's fields, with a tolerance in the amounts' unit.

    `sum`: the column's sum equals the field `equals` (lines' net amounts add up to
    `net_amount`). `balance`: the field `opening` plus the column's sum equals the field
    `closing` (a statement's transactions)."""

    column: str
    equals: str | None = None
    opening: str | None = None
    closing: str | None = None
    tolerance: Decimal = Decimal("0.00")

    @property
    def kind(self) -> str:
        return "sum" if self.equals else "balance"

    def fields(self) -> tuple[str, ...]:
        return tuple(f for f in (self.equals, self.opening, self.closing) if f)


@dataclass(frozen=True)
class FieldDecl:
    """One declared field of a document type."""

    name: str
    kind: str
    description: str = ""
    labels: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    pattern: str | None = None
    required: bool = False
    threshold: float | None = None
    values: tuple[str, ...] = ()  # an enum's values
    columns: tuple[Column, ...] = ()  # a table's
    checks: tuple[TableCheck, ...] = ()  # a table's
    # A table whose reasons never hold a document (its checks, low confidence): read from
    # layouts no one has seen, a misread table must not stop what was going straight through.
    advisory: bool = False

    @property
    def is_table(self) -> bool:
        return self.kind == TABLE

    def all_labels(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(lbl for lang in LANGUAGES for lbl in self.labels.get(lang, ())))

    def column(self, name: str) -> Column | None:
        return next((c for c in self.columns if c.name == name), None)


@dataclass(frozen=True)
class TypeDecl:
    """What one document type reads, in declaration order, and its duplicate key's fields."""

    name: str
    fields: tuple[FieldDecl, ...]
    duplicate_key: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)

    @property
    def scalar_names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields if not f.is_table)

    @property
    def tables(self) -> tuple[FieldDecl, ...]:
        return tuple(f for f in self.fields if f.is_table)

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields if f.required)

    def get(self, name: str) -> FieldDecl | None:
        return next((f for f in self.fields if f.name == name), None)

    def __iter__(self) -> Iterator[FieldDecl]:
        return iter(self.fields)


def kinds_of(types: Mapping[str, TypeDecl]) -> dict[str, str]:
    """Every declared field name and its kind (one kind per name across types: the loader
    holds that, so a profile, a calibration entry or a correction means one thing by a name)."""
    return {f.name: f.kind for t in types.values() for f in t.fields}


def parse_declarations(raw_types: Mapping[str, Any], text: str = "") -> dict[str, TypeDecl]:
    """`[fields.types]` as declarations; `text` is the rules file's source, for line numbers."""
    where = Lines(text)
    types: dict[str, TypeDecl] = {}
    likes: dict[str, Mapping[str, Any]] = {}
    for type_name, spec in raw_types.items():
        at = f"fields.types.{type_name}"
        if not isinstance(spec, Mapping):
            raise where.error(at, "a table")
        unknown = set(spec) - {"fields", "like", "duplicate_key"}
        if "names" in spec:
            raise where.error(
                at,
                "'names' lists are gone: declare each field under "
                f"[{at}.fields.<name>] with its kind (docs/fields.md)",
            )
        if unknown:
            raise where.error(at, f"unknown key(s) {sorted(unknown)}: fields, like, duplicate_key")
        if "like" in spec:
            if "fields" in spec:
                raise where.error(at, "'like' takes another type's fields whole: no 'fields'")
            likes[type_name] = spec
            continue
        declared = spec.get("fields")
        if not isinstance(declared, Mapping) or not declared:
            raise where.error(at, "declares no fields")
        fields = tuple(
            _field(name, value, f"{at}.fields.{name}", where) for name, value in declared.items()
        )
        key = parse_duplicate_key(spec.get("duplicate_key"), fields, at, where)
        types[type_name] = TypeDecl(type_name, fields, key)
    for type_name, spec in likes.items():
        at, other = f"fields.types.{type_name}", str(spec["like"])
        if other not in types:
            raise where.error(at, f"like = {other!r}: no such type")
        taken = types[other]  # its fields whole, and its duplicate key unless it names its own
        own = parse_duplicate_key(spec.get("duplicate_key"), taken.fields, at, where)
        types[type_name] = TypeDecl(type_name, taken.fields, own or taken.duplicate_key)
    types = {name: types[name] for name in raw_types}  # the file's order
    _one_kind_per_name(types, where)
    return types


def _field(name: str, spec: Any, at: str, where: Lines) -> FieldDecl:
    if not _NAME.fullmatch(name):
        raise where.error(at, "a field name is lower case letters, digits and '_'")
    if not isinstance(spec, Mapping):
        raise where.error(at, "a table with at least 'kind'")
    unknown = set(spec) - _FIELD_KEYS
    if unknown:
        raise where.error(at, f"unknown key(s) {sorted(unknown)}")
    kind = spec.get("kind")
    if kind not in KINDS:
        raise where.error(at, f"kind {kind!r} is not one of {', '.join(KINDS)}")
    threshold = spec.get("threshold")
    if threshold is not None and not (
        isinstance(threshold, int | float) and 0.0 <= float(threshold) <= 1.0
    ):
        raise where.error(at, "threshold: a number 0..1")
    columns: tuple[Column, ...] = ()
    checks: tuple[TableCheck, ...] = ()
    if kind == TABLE:
        columns = _columns(spec.get("columns"), at, where)
        checks = _checks(spec.get("checks", []), columns, at, where)
    elif "columns" in spec or "checks" in spec:
        raise where.error(at, "only a table has columns and checks")
    advisory = _flag(spec.get("advisory", False), at, where, key="advisory")
    if advisory and kind != TABLE:
        raise where.error(at, "only a table may be advisory", "advisory")
    if advisory and spec.get("required", False) is True:
        raise where.error(
            at, "an advisory table holds no document, so it cannot be required", "advisory"
        )
    return FieldDecl(
        name=name,
        kind=kind,
        description=_text(spec.get("description", ""), at, where),
        labels=_labels(spec.get("labels", {}), at, where),
        pattern=_pattern(spec.get("pattern"), at, where),
        required=_flag(spec.get("required", False), at, where),
        threshold=float(threshold) if threshold is not None else None,
        values=_values(kind, spec.get("values"), at, where),
        columns=columns,
        checks=checks,
        advisory=advisory,
    )


def _columns(raw: Any, at: str, where: Lines) -> tuple[Column, ...]:
    if not isinstance(raw, list) or not raw:
        raise where.error(at, "a table needs columns = [{ name = ..., kind = ... }, ...]")
    out: list[Column] = []
    for spec in raw:
        if not isinstance(spec, Mapping) or not isinstance(spec.get("name"), str):
            raise where.error(at, "each column is { name = ..., kind = ... }")
        name = spec["name"]
        col_at = f"{at}.columns.{name}"
        if not _NAME.fullmatch(name):
            raise where.error(col_at, "a column name is lower case letters, digits and '_'", name)
        if any(c.name == name for c in out):
            raise where.error(col_at, f"column {name!r} twice", f'"{name}"', occurrence=2)
        unknown = set(spec) - _COLUMN_KEYS
        if unknown:
            raise where.error(col_at, f"unknown key(s) {sorted(unknown)}", name)
        kind = spec.get("kind")
        if kind not in SCALAR_KINDS:
            raise where.error(
                col_at, f"kind {kind!r} is not one of {', '.join(SCALAR_KINDS)}", name
            )
        out.append(
            Column(
                name=name,
                kind=kind,
                description=_text(spec.get("description", ""), col_at, where, name),
                labels=_labels(spec.get("labels", {}), col_at, where, name),
                pattern=_pattern(spec.get("pattern"), col_at, where, name),
                required=_flag(spec.get("required", False), col_at, where, name),
                values=_values(kind, spec.get("values"), col_at, where, name),
            )
        )
    return tuple(out)


def _checks(raw: Any, columns: tuple[Column, ...], at: str, where: Lines) -> tuple[TableCheck, ...]:
    if not isinstance(raw, list):
        raise where.error(at, "checks = [{ sum = <column>, equals = <field> }, ...]")
    names = {c.name: c.kind for c in columns}
    out: list[TableCheck] = []
    for spec in raw:
        if not isinstance(spec, Mapping):
            raise where.error(at, "each check is a table", "checks")
        if "sum" in spec and set(spec) <= {"sum", "equals", "tolerance"} and "equals" in spec:
            column = spec["sum"]
            check = TableCheck(column, equals=str(spec["equals"]))
        elif "balance" in spec and set(spec) <= {"balance", "opening", "closing", "tolerance"}:
            if "opening" not in spec or "closing" not in spec:
                raise where.error(at, "a balance check names 'opening' and 'closing'", "balance")
            column = spec["balance"]
            check = TableCheck(column, opening=str(spec["opening"]), closing=str(spec["closing"]))
        else:
            raise where.error(
                at,
                "a check is { sum = <column>, equals = <field> } or "
                "{ balance = <column>, opening = <field>, closing = <field> }",
                "checks",
            )
        if names.get(column) not in (AMOUNT, NUMBER):
            raise where.error(
                at, f"check on {column!r}: no amount or number column so named", "checks"
            )
        try:
            tolerance = Decimal(str(spec.get("tolerance", "0")))
        except InvalidOperation:
            raise where.error(at, "a check's tolerance is a number", "checks") from None
        if not tolerance.is_finite() or tolerance < 0:  # nan has no order; inf passes anything
            raise where.error(at, "a check's tolerance is a finite number, not negative", "checks")
        out.append(TableCheck(check.column, check.equals, check.opening, check.closing, tolerance))
    return tuple(out)


def _one_kind_per_name(types: Mapping[str, TypeDecl], where: Lines) -> None:
    seen: dict[str, tuple[str, str]] = {}
    for decl in types.values():
        for f in decl.fields:
            first = seen.setdefault(f.name, (decl.name, f.kind))
            if first[1] != f.kind:
                raise where.error(
                    f"fields.types.{decl.name}.fields.{f.name}",
                    f"kind {f.kind!r}, but fields.types.{first[0]} declares "
                    f"{f.name!r} as {first[1]!r}: one name, one kind",
                )
        for table in decl.tables:
            for check in table.checks:
                for name in check.fields():
                    other = decl.get(name)
                    if other is None or other.kind not in (AMOUNT, NUMBER):
                        raise where.error(
                            f"fields.types.{decl.name}.fields.{table.name}",
                            f"check names {name!r}: no amount or number field of "
                            f"{decl.name!r} so named",
                            "checks",
                        )


def _labels(raw: Any, at: str, where: Lines, near: str = "") -> dict[str, tuple[str, ...]]:
    if not isinstance(raw, Mapping):
        raise where.error(at, "labels = { en = [...], de = [...] }", near or "labels")
    out: dict[str, tuple[str, ...]] = {}
    for lang, labels in raw.items():
        if lang not in LANGUAGES:
            raise where.error(
                at, f"labels.{lang}: a language of {', '.join(LANGUAGES)}", near or "labels"
            )
        if not isinstance(labels, list) or not all(
            isinstance(x, str) and x.strip() for x in labels
        ):
            raise where.error(at, f"labels.{lang}: a list of labels", near or "labels")
        out[lang] = tuple(x.strip().lower() for x in labels)
    return out


def _pattern(raw: Any, at: str, where: Lines, near: str = "") -> str | None:
    if raw is None:
        return None
    try:
        re.compile(str(raw))
    except re.error as exc:
        raise where.error(at, f"pattern: {exc}", near or "pattern") from None
    return str(raw)


def _values(kind: str, raw: Any, at: str, where: Lines, near: str = "") -> tuple[str, ...]:
    if kind != ENUM:
        if raw is not None:
            raise where.error(at, "only an enum has values", near or "values")
        return ()
    if not isinstance(raw, list) or not raw or not all(isinstance(v, str) for v in raw):
        raise where.error(at, "an enum needs values = [...]", near or "kind")
    if len(set(raw)) != len(raw):
        raise where.error(at, "an enum's values are each named once", near or "values")
    return tuple(raw)


def _text(raw: Any, at: str, where: Lines, near: str = "") -> str:
    if not isinstance(raw, str):
        raise where.error(at, "description: a string", near or "description")
    return raw.strip()


def _flag(raw: Any, at: str, where: Lines, near: str = "", key: str = "required") -> bool:
    if not isinstance(raw, bool):
        raise where.error(at, f"{key}: true or false", near or key)
    return raw
