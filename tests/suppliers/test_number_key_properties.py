"""What an uploader can vary in a printed invoice number, property-tested: case, accents,
separators, full-width forms, invisible format characters and leading zeros in each group of
digits never change the number's key; two numbers that differ in their letters or in any group
of digits never share one."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from docflow.suppliers.duplicate_keys import number_key

# A number as its issuer means it: letter runs and groups of digits, in order (two groups of
# digits side by side are two groups, printed with a separator between them).
Token = tuple[str, str | int]
LETTERS = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=1, max_size=4)
GROUP = st.integers(min_value=0, max_value=10**7)


def _letters(text: str) -> Token:
    return ("L", text)


def _digits(value: int) -> Token:
    return ("D", value)


ONE_TOKEN: st.SearchStrategy[Token] = st.one_of(LETTERS.map(_letters), GROUP.map(_digits))
TOKENS: st.SearchStrategy[list[Token]] = st.lists(ONE_TOKEN, min_size=1, max_size=5)
SEPARATORS = ["-", "/", " ", ".", "_", "#", ": ", " - ", "\u2013"]
INVISIBLE = ["\u200b", "\u200d", "\u2060", "\ufeff", "\u00ad"]


def meaning(tokens: list[Token]) -> list[Token]:
    """Letter runs printed side by side read as one run."""
    out: list[Token] = []
    for kind, value in tokens:
        if kind == "L" and out and out[-1][0] == "L":
            out[-1] = ("L", f"{out[-1][1]}{value}")
        else:
            out.append((kind, value))
    return out


@st.composite
def printed(draw: st.DrawFn, tokens: list[Token]) -> str:
    """One way to print `tokens`: any case, accents, leading zeros, separators (at least a
    visible one between two groups of digits), invisible characters, full-width forms."""
    parts: list[str] = []
    for i, (kind, value) in enumerate(tokens):
        if i:
            digits_apart = kind == "D" and tokens[i - 1][0] == "D"
            visible = st.sampled_from(SEPARATORS)
            parts.append(draw(visible if digits_apart else st.one_of(st.just(""), visible)))
        if kind == "L":
            for letter in str(value):
                cased = letter.lower() if draw(st.booleans()) else letter
                parts.append(cased + ("\u0301" if draw(st.booleans()) else ""))
        else:
            parts.append("0" * draw(st.integers(0, 3)) + str(value))
    text = "".join(parts)
    for _ in range(draw(st.integers(0, 2))):  # a format character anywhere is invisible
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(INVISIBLE)) + text[at:]
    if draw(st.booleans()):  # full-width forms
        text = "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)
    return text


@settings(max_examples=300, deadline=None)  # no wall clock: a slow machine is no failure
@given(st.data(), TOKENS)
def test_any_printing_of_one_number_has_one_key(data: st.DataObject, tokens: list[Token]) -> None:
    first, second = data.draw(printed(tokens)), data.draw(printed(tokens))
    assert number_key(first) == number_key(second), (first, second)


@st.composite
def another(draw: st.DrawFn, tokens: list[Token]) -> list[Token]:
    """A number close to `tokens`, as a forger or a typo makes one: a group's value changed,
    two groups of digits run together, one split in two, a letter changed, a group added."""
    out = list(tokens)
    at = draw(st.integers(0, len(out) - 1))
    kind, value = out[at]
    how = draw(st.sampled_from(["change", "join", "split", "add"]))
    if how == "join" and at + 1 < len(out) and kind == "D" and out[at + 1][0] == "D":
        out[at : at + 2] = [("D", int(f"{value}{out[at + 1][1]}"))]
    elif how == "split" and kind == "D" and len(str(value)) > 1:
        cut = draw(st.integers(1, len(str(value)) - 1))
        out[at : at + 1] = [("D", int(str(value)[:cut])), ("D", int(str(value)[cut:]))]
    elif how == "add":
        out.insert(at, draw(ONE_TOKEN))
    elif kind == "D":
        out[at] = ("D", draw(GROUP))
    else:
        out[at] = ("L", draw(LETTERS))
    return out


@settings(max_examples=300, deadline=None)
@given(st.data(), TOKENS)
def test_two_different_numbers_never_share_a_key(data: st.DataObject, tokens: list[Token]) -> None:
    other = data.draw(st.one_of(another(tokens), TOKENS))
    if meaning(tokens) == meaning(other):
        return
    a, b = data.draw(printed(tokens)), data.draw(printed(other))
    assert number_key(a) != number_key(b), (tokens, a, other, b)
