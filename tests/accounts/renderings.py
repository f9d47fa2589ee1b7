"""Hypothesis strategies for what an attacker can vary in how an account is printed: the
separators between its characters (any space, dash, dot, slash, or none), its grouping, its
case, and a line break inside it."""

from __future__ import annotations

from hypothesis import strategies as st

# Valid IBANs of several countries (each passes mod 97 and its country's structure).
IBANS = (
    "GB82WEST12345698765432",
    "FR1420041010050500013M02606",
    "NL91ABNA0417164300",
    "ES9121000418450200051332",
    "IT60X0542811101000000123456",
    "BE68539007547034",
    "CH9300762011623852957",
    "AT611904300234573201",
    "PL61109010140000071219812874",
    "DK5000400440116243",
    "NO9386011117947",
)
# Between two groups: a space of any kind, a dash of any kind, a dot, a slash, or nothing.
SEPARATORS = (" ", "  ", "-", ".", "/", " - ", "", "\u00a0", "\u2009", "\u202f", "\u2013", "\u2011")
# What a PDF's standard fonts can print (reportlab's Helvetica: WinAnsi).
PRINTABLE_SEPARATORS = (" ", "  ", "-", ".", "/", " - ", "", "\u00a0")


@st.composite
def rendering(draw: st.DrawFn, value: str, separators: tuple[str, ...] = SEPARATORS) -> str:
    """`value` printed some way: grouped, separated, cased, perhaps broken over two lines
    (a `\\n` between two groups, after the country code at least)."""
    groups: list[str] = []
    rest = value
    while rest:
        size = draw(st.integers(min_value=1, max_value=7))
        groups.append(rest[:size])
        rest = rest[size:]
    case = draw(st.sampled_from(("upper", "lower", "mixed")))
    if case == "lower":
        groups = [g.lower() for g in groups]
    elif case == "mixed":
        flips = draw(st.lists(st.booleans(), min_size=len(value), max_size=len(value)))
        at = 0
        cased = []
        for group in groups:
            cased.append("".join(c.lower() if flips[at + i] else c for i, c in enumerate(group)))
            at += len(group)
        groups = cased
    out = groups[0]
    taken = len(groups[0])
    broken = False
    for group in groups[1:]:
        if not broken and taken >= 2 and draw(st.integers(0, 9)) == 0:
            out += "\n"
            broken = True
        else:
            out += draw(st.sampled_from(separators))
        out += group
        taken += len(group)
    return out
