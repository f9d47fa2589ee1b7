"""The house's sizes (#27): no product module over 400 lines, the callback API's routes under
200, and a README that is a front door (under 300 lines, the two commands near its top)."""

from __future__ import annotations

from tests.support.imports import PRODUCT, ROOT


def _lines(path: str) -> int:
    return len((ROOT / path).read_text(encoding="utf-8").splitlines())


def test_no_product_module_is_over_400_lines() -> None:
    over = {
        str(p.relative_to(ROOT)): n
        for top in PRODUCT
        for p in (ROOT / top).rglob("*.py")
        if (n := _lines(str(p.relative_to(ROOT)))) > 400
    }
    assert over == {}


def test_the_orchestrator_reads_as_the_pipeline_in_under_260_lines() -> None:
    assert _lines("orchestrator/app.py") < 260


def test_the_callback_apis_routes_stay_under_200_lines() -> None:
    assert _lines("callback_api/app.py") < 200


def test_the_readme_is_a_front_door_with_the_two_commands_near_its_top() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(text) < 300
    top = "\n".join(text[:30])
    assert "make run" in top and "make test" in top
    assert (ROOT / "docs" / "index.md").is_file()
