"""The durable runner's journal store, driven by the testing SDK's own runner: every saved state
read back from disk, a torn last record, reopening, several executions checkpointing at once."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from aws_durable_execution_sdk_python import DurableContext
from aws_durable_execution_sdk_python.config import Duration, MapConfig
from aws_durable_execution_sdk_python.execution import durable_execution
from aws_durable_execution_sdk_python_testing.execution import Execution
from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner
from aws_durable_execution_sdk_python_testing.stores.sqlite import SQLiteExecutionStore

from docflow.local.durability import execution_delta
from docflow.local.durability.execution_store import (
    JournalExecutionStore,
    read_executions,
    replay,
    status_of,
)
from docflow.local.durability.journal import frame, read_records


@durable_execution
def pipeline(event: Any, context: DurableContext) -> dict[str, Any]:
    """Steps, a map of steps, a wait and a child context: the shapes a document's run takes."""
    first = context.step(lambda _: {"pages": event["pages"]}, name="split")

    def read(ctx: DurableContext, page: int, index: int, items: Any) -> str:
        return ctx.step(lambda _: f"text of page {page}", name=f"read-{page}")

    pages: Any = context.map(
        list(range(first["pages"])), read, name="pages", config=MapConfig(max_concurrency=2)
    )
    context.wait(Duration.from_seconds(1), name="settle")
    summary = context.run_in_child_context(
        lambda child: child.step(lambda _: len(pages.get_results()), name="count"), name="sum"
    )
    return {"pages": summary}


class RecordingStore(JournalExecutionStore):
    """Keeps, after every save, the execution's file as it was then and the state saved."""

    def __init__(self, folder: Path) -> None:
        super().__init__(folder)
        self.saved: list[tuple[str, bytes, dict[str, Any]]] = []
        self._saved_lock = threading.Lock()

    def save(self, execution: Execution) -> None:
        super().save(execution)
        arn = execution.durable_execution_arn
        with self._saved_lock:
            self.saved.append((arn, self._path(arn).read_bytes(), execution.to_json_dict()))


def _run(store: JournalExecutionStore, name: str = "run", pages: int = 3) -> str:
    with DurableFunctionTestRunner(handler=pipeline, store=store) as runner:
        result = runner.run(input=json.dumps({"pages": pages}), execution_name=name)
    assert json.loads(result.result) == {"pages": pages}
    return next(e.durable_execution_arn for e in store.list_all() if _name(e) == name)


def _name(execution: Execution) -> str | None:
    return execution.start_input.execution_name


def test_the_field_table_names_everything_the_sdk_saves(tmp_path: Path) -> None:
    store = JournalExecutionStore(tmp_path / "executions")
    arn = _run(store)
    execution = store.load(arn)
    assert {f.key for f in execution_delta.FIELDS} == set(execution.to_json_dict())
    assert execution_delta.covers(execution)


def test_every_saved_state_reads_back_from_its_records(tmp_path: Path) -> None:
    """After each save, the execution's file replays to exactly what that save was given."""
    store = RecordingStore(tmp_path / "executions")
    arn = _run(store, pages=4)
    deltas = 0
    for n, (_, data, state) in enumerate(store.saved):
        cut = tmp_path / f"{n}.journal"
        cut.write_bytes(data)
        assert replay(cut)[0] == state
        records = read_records(cut)[0]
        deltas += "delta" in json.loads(records[-1])
    assert deltas >= 5  # the run checkpointed far more often than that, each a small record
    assert max(len(d) for _, d, _ in store.saved) < 4 * len(store.saved[-1][1])
    # The run ended: its file is one record, the whole execution.
    records = read_records(store._path(arn))[0]
    assert len(records) == 1 and json.loads(records[0])["full"] == store.saved[-1][2]


def test_a_torn_last_record_is_dropped_on_reopen(tmp_path: Path) -> None:
    folder = tmp_path / "executions"
    store = RecordingStore(folder)
    with DurableFunctionTestRunner(handler=pipeline, store=store) as runner:
        runner.run(input=json.dumps({"pages": 2}), execution_name="whole")
    arn = store.saved[-1][0]
    whole_state = store.load(arn).to_json_dict()
    path = store._path(arn)
    # A checkpoint being written when the process died: half of one more delta record.
    record = json.dumps({"arn": arn, "delta": {"TokenSequence": 999}}).encode()
    with path.open("ab") as out:
        out.write(frame(record)[:-5])
    reopened = JournalExecutionStore(folder)
    assert reopened.recovered == {"executions": 1, "tornRecordsDropped": 1, "imported": 0}
    assert reopened.load(arn).to_json_dict() == whole_state
    assert read_records(path)[2] is False  # compacted at start: the torn bytes are gone


def test_an_unfinished_execution_comes_back_and_carries_on(tmp_path: Path) -> None:
    """A store dropped mid-run (no close, as a SIGKILL leaves it): a new store on the same
    folder has every record, compacts it into one, and appends after it."""
    folder = tmp_path / "executions"
    store = JournalExecutionStore(folder)
    arn = _run(store, name="done")
    execution = store.load(arn)
    # An unfinished copy, saved under a new ARN as the runner saves a started run.
    data = execution.to_json_dict()
    data["DurableExecutionArn"] = arn + "-open"
    data["IsComplete"], data["CloseStatus"], data["Result"] = False, None, None
    data["StartInput"]["ExecutionName"] = "open"
    unfinished = Execution.from_json_dict(data)
    store.save(unfinished)
    unfinished.advance_token_sequence()
    unfinished.updated_operation_ids = ["a", "b"]
    store.save(unfinished)
    del store

    reopened = JournalExecutionStore(folder)
    assert reopened.recovered["executions"] == 2
    back = reopened.load(arn + "-open")
    assert back.to_json_dict() == unfinished.to_json_dict()
    assert reopened._records[arn + "-open"] == 1  # compacted at start
    back.updated_operation_ids = []
    reopened.save(back)
    assert JournalExecutionStore(folder).load(arn + "-open").to_json_dict() == back.to_json_dict()
    names = {(d["StartInput"]["ExecutionName"], status_of(d)) for d in read_executions(folder)}
    assert names == {("done", "SUCCEEDED"), ("open", "RUNNING")}


def test_a_loaded_execution_is_a_copy(tmp_path: Path) -> None:
    store = JournalExecutionStore(tmp_path / "executions")
    arn = _run(store)
    first = store.load(arn)
    first.operations.clear()
    first.operation_size_bytes.clear()
    assert store.load(arn).operations and store.load(arn).operation_size_bytes


def test_executions_checkpointing_at_once_each_keep_their_own_records(tmp_path: Path) -> None:
    folder = tmp_path / "executions"
    store = JournalExecutionStore(folder)
    with DurableFunctionTestRunner(handler=pipeline, store=store) as runner:
        errors: list[BaseException] = []

        def run(n: int) -> None:
            try:
                result = runner.run(input=json.dumps({"pages": 3 + n}), execution_name=f"doc-{n}")
                assert json.loads(result.result) == {"pages": 3 + n}
            except BaseException as exc:  # reported below, in the test's thread
                errors.append(exc)

        threads = [threading.Thread(target=run, args=(n,)) for n in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert not errors
    reopened = JournalExecutionStore(folder)
    assert reopened.recovered["executions"] == 6
    for execution in store.list_all():
        assert (
            reopened.load(execution.durable_execution_arn).to_json_dict()
            == execution.to_json_dict()
        )
    found, more = reopened.query(status_filter="SUCCEEDED", limit=4)
    assert len(found) == 4 and more == "4"
    named, _ = reopened.query(execution_name="doc-2")
    assert [_name(e) for e in named] == ["doc-2"]


def test_a_state_folder_from_the_sqlite_store_is_imported_once(tmp_path: Path) -> None:
    ran = JournalExecutionStore(tmp_path / "ran")
    before = ran.load(_run(ran, name="before"))
    # Saved by hand, not by a runner on it: a runner's threads may still touch its store.
    state = tmp_path / "state"
    legacy = SQLiteExecutionStore.create_and_initialize(state / "executions.sqlite")
    legacy.save(before)
    store = JournalExecutionStore(state / "executions")
    assert store.recovered["imported"] == 1
    assert not (state / "executions.sqlite").exists()
    assert (state / "executions.sqlite.imported").exists()
    arn = before.durable_execution_arn
    assert store.load(arn).to_json_dict() == before.to_json_dict()
    assert JournalExecutionStore(state / "executions").recovered["imported"] == 0
