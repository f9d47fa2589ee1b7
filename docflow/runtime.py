"""The collaborators a function needs, built once per process from settings.

Handlers call `runtime()`; tests call `use_runtime(...)` to run the same code with a different
collaborator (for example a reader that throttles on purpose).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from typing import Any

from docflow.classify import Classifier, RulesClassifier
from docflow.enrich import Enricher
from docflow.enrich.factory import build_enricher
from docflow.extract import FieldEngine, build_engine
from docflow.intake import Starter
from docflow.packets.engine import PageEngine
from docflow.packets.factory import build_page_engine
from docflow.readers import PageReader, PictureReader, build_picture_reader, build_reader
from docflow.reporting import Reporter, build_reporter
from docflow.review.notify.link_notifier import build_notifier
from docflow.review.stage.callbacks import CallbackSender, LambdaCallbackSender
from docflow.review.stage.requests import ReviewNotifier
from docflow.rules.model import Rules, check_against_settings, load_rules
from docflow.settings import Settings, load_settings
from docflow.storage import DocumentStore


@dataclass(frozen=True)
class Runtime:
    settings: Settings
    rules: Rules  # the rules file, read and checked once; the classifier applies the same
    store: DocumentStore
    reader: PageReader
    classifier: Classifier
    reporter: Reporter
    notifier: ReviewNotifier
    callbacks: CallbackSender  # ends older runs' reviews when a newer version arrives
    # The field-extraction engine; None builds it from settings when first needed.
    field_engine: FieldEngine | None = None
    # The enrichment engine and the tokens-per-minute budget (None: built from settings).
    enricher: Enricher | None = None
    token_budget: Any | None = None
    # A packet's page engine, and how its parts' runs start (the starter's way: Lambda's
    # invoke, or the local runner behind a name claim); None: built when first needed.
    page_engine: PageEngine | None = None
    starter: Starter | None = None
    # OCR of pictures on text-layer pages (readers/pictures); None: none are read.
    pictures: PictureReader | None = None

    def with_(self, **changes: Any) -> Runtime:
        return replace(self, **changes)


_current: Runtime | None = None
_lock = threading.Lock()


def build_runtime(settings: Settings | None = None) -> Runtime:
    settings = settings or load_settings()
    rules = load_rules(settings.rules_path or None, settings.stage_timeout_s)
    check_against_settings(rules, settings)
    return Runtime(
        settings=settings,
        rules=rules,
        store=DocumentStore(settings.artifact_bucket),
        reader=build_reader(settings, rules.ocr_languages, rules.ocr_identify),
        classifier=RulesClassifier(rules),
        reporter=build_reporter(settings),
        notifier=build_notifier(settings),
        callbacks=LambdaCallbackSender(),
        field_engine=build_engine(settings),
        enricher=build_enricher(settings),
        page_engine=build_page_engine(settings, rules),
        pictures=build_picture_reader(settings, rules.ocr_languages, rules.ocr_identify),
    )


def runtime() -> Runtime:
    global _current
    with _lock:
        if _current is None:
            _current = build_runtime()
        return _current


def use_runtime(value: Runtime | None) -> None:
    """Replace (or with None, forget) the process's runtime."""
    global _current
    with _lock:
        _current = value
