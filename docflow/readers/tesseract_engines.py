"""Two ways to run tesseract on a page image, both answering with tesseract's TSV.

`ApiEngine` keeps tesseract loaded in this process through tesserocr: a subprocess per page
loads every language model again (0.7 s of CPU for the seven the rules file names, more than
a three-line page's recognition), an API object loads them once. tesserocr's API objects are
not safe to share between threads, so they live in a pool keyed by languages: a page takes
one (or makes one) and gives it back; `OCR_SLOTS` bounds how many are in use at once, and the
pool keeps at most `IDLE_CAP` idle ones (a seven-language API holds about 120 MB).
`CliEngine` is the subprocess, for a machine without tesserocr.
"""

from __future__ import annotations

import io
import os
import subprocess
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any, Protocol

from docflow.errors import PageReadError

TSV_HEADER = (
    "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\t"
    "left\ttop\twidth\theight\tconf\ttext\n"
)
# Sauvola's local threshold (see readers/tesseract for why).
VARIABLES = {"thresholding_method": "2"}
# Several tesseracts side by side are many times slower when each also starts OpenMP
# threads; one thread each lets page concurrency do the parallel work.
_ENV = {**os.environ, "OMP_THREAD_LIMIT": "1"}
TESSDATA_DIRS = ("/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata")
IDLE_CAP = 8


class TsvEngine(Protocol):
    name: str

    def tsv(self, png: bytes, languages: str, psm: int, timeout_s: float) -> str:
        """Tesseract's TSV for the image (with its header row); PageReadError on failure."""
        ...


class CliEngine:
    name = "cli"

    def tsv(self, png: bytes, languages: str, psm: int, timeout_s: float) -> str:
        command = ["tesseract", "stdin", "stdout", "-l", languages, "--psm", f"{psm}"]
        for key, value in VARIABLES.items():
            command += ["-c", f"{key}={value}"]
        try:
            done = subprocess.run(
                [*command, "tsv"],
                input=png,
                capture_output=True,
                timeout=timeout_s,
                env=_ENV,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise PageReadError(f"tesseract did not run: {exc}") from exc
        if done.returncode != 0:
            detail = done.stderr.decode("utf-8", "replace").strip()[:200]
            raise PageReadError(f"tesseract exited {done.returncode}: {detail}")
        return done.stdout.decode("utf-8", "replace")


def tessdata_dir() -> str | None:
    """Where Debian's language packs are (TESSDATA_PREFIX wins): tesserocr's wheel carries
    its own tesseract but no models."""
    named = os.environ.get("TESSDATA_PREFIX")
    if named:
        return named
    found = next((d for d in TESSDATA_DIRS if Path(d, "eng.traineddata").exists()), None)
    return f"{found}/" if found else None


class ApiEngine:
    name = "tesserocr"

    def __init__(self, tessdata: str) -> None:
        self.tessdata = tessdata
        self._idle: OrderedDict[int, tuple[tuple[str, int], Any]] = OrderedDict()
        self._lock = threading.Lock()
        self._serial = 0

    def _take(self, key: tuple[str, int]) -> Any:
        with self._lock:
            for serial, (held, api) in reversed(self._idle.items()):
                if held == key:
                    del self._idle[serial]
                    return api
        import tesserocr

        try:
            api = tesserocr.PyTessBaseAPI(
                path=self.tessdata, lang=key[0], psm=key[1], variables=VARIABLES
            )
        except RuntimeError as exc:
            raise PageReadError(f"tesseract could not load {key[0]}: {exc}") from exc
        return api

    def _give(self, key: tuple[str, int], api: Any) -> None:
        with self._lock:
            self._serial += 1
            self._idle[self._serial] = (key, api)
            while len(self._idle) > IDLE_CAP:
                _, (_, oldest) = self._idle.popitem(last=False)
                oldest.End()

    def tsv(self, png: bytes, languages: str, psm: int, timeout_s: float) -> str:
        from PIL import Image

        key = (languages, psm)
        api = self._take(key)
        try:
            with Image.open(io.BytesIO(png)) as image:
                api.SetImage(image)
            if not api.Recognize(int(timeout_s * 1000)):
                raise PageReadError(f"tesseract did not finish within {timeout_s:.0f} s")
            rows = api.GetTSVText(0)
        except RuntimeError as exc:
            raise PageReadError(f"tesseract failed: {exc}") from exc
        finally:
            api.Clear()
            self._give(key, api)
        return TSV_HEADER + rows


def default_engine() -> TsvEngine:
    """tesserocr where it imports and the language packs are found; else the binary.
    DOCFLOW_OCR_BINDING=cli forces the binary (the benchmark compares the two)."""
    if os.environ.get("DOCFLOW_OCR_BINDING", "") != "cli":
        tessdata = tessdata_dir()
        try:
            import tesserocr  # noqa: F401
        except ImportError:
            tessdata = None
        if tessdata:
            return ApiEngine(tessdata)
    return CliEngine()
