"""The printed labels the rules engine looks for, loaded from `labels.toml` (data apart from
code: a new language or label is a line in that file, not a change here).

Every table maps a label (lower case, accents folded) to what it means; `LANGUAGES` are the
languages the file covers.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

_DATA: dict[str, Any] = tomllib.loads(
    Path(__file__).with_name("labels.toml").read_text(encoding="utf-8")
)
LANGUAGES = ("en", "de", "fr", "es", "it", "nl", "pt")


def _by_field(table: dict[str, dict[str, list[str]]]) -> dict[str, list[str]]:
    return {
        name: [lbl for lang in LANGUAGES for lbl in per.get(lang, [])]
        for name, per in table.items()
    }


def _flat(table: dict[str, list[str]]) -> list[str]:
    return list(dict.fromkeys(lbl for lang in LANGUAGES for lbl in table.get(lang, [])))


STRONG: dict[str, list[str]] = _by_field(_DATA["strong"])
WEAK: dict[str, list[str]] = _by_field(_DATA["weak"])
CUSTOMER: list[str] = _flat(_DATA["customer"])
TAX_ID: list[str] = _flat(_DATA["tax_id"])
IGNORED: list[str] = [*_flat(_DATA["ignored"]), *TAX_ID, *(c for c in CUSTOMER if len(c) > 3)]
LANGUAGE_MARKERS: dict[str, list[str]] = {lang: _DATA["markers"][lang] for lang in LANGUAGES}
# The fields the rules engine has built-in labels for, and their kinds (`[kinds]`).
BUILTIN_KINDS: dict[str, str] = dict(_DATA["kinds"])
# How the engine reads each of them: a party or an address is read as free text.
READ_AS: dict[str, str] = {
    name: "text" if kind in ("party", "address") else kind for name, kind in BUILTIN_KINDS.items()
}
