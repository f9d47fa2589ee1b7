"""A review stage's JSON, as checkpoints and review links carry it (`model.Stage.to_dict`;
`routed.RoutedStageJson` adds what routing said)."""

from __future__ import annotations

from typing import TypedDict


class StageJson(TypedDict, total=False):
    """A review stage as checkpoints and review links carry it (`Stage.to_dict`): its name,
    reviewers and timeouts, then each policy only when it is set."""

    name: str
    reviewers: list[str]
    timeoutSeconds: int
    heartbeatSeconds: int
    quorum: int
    remindAfterSeconds: int
    maxReminders: int
    escalateAfterSeconds: int
    escalateTo: list[str]
    notify: str
    digest: list[str]
