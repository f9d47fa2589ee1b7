"""Bedrock batch inference's JSON as the emulator (`bedrock_batch.py`) reads and answers it:
the control plane's CreateModelInvocationJob body and job description, as much of them as it
uses (the `mypy-boto3-bedrock` stubs are not a dependency), and a JSONL record in and out."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

if TYPE_CHECKING:
    from docflow.converse import ConverseRequest
    from docflow.local.emulators.bedrock import ConverseAnswer


class S3InputDataConfig(TypedDict):
    s3Uri: str


class InputDataConfig(TypedDict):
    s3InputDataConfig: S3InputDataConfig


class S3OutputDataConfig(TypedDict):
    s3Uri: str


class OutputDataConfig(TypedDict):
    s3OutputDataConfig: S3OutputDataConfig


class CreateJobRequest(TypedDict, total=False):
    """CreateModelInvocationJob's body, as the caller wrote it (checked field by field)."""

    jobName: str
    roleArn: str
    modelId: str
    clientRequestToken: str
    inputDataConfig: InputDataConfig
    outputDataConfig: OutputDataConfig
    timeoutDurationInHours: int


class RecordCounts(TypedDict, total=False):
    """A job's record counts: the total once its input is read, all four once answered."""

    totalRecordCount: int
    processedRecordCount: int
    successRecordCount: int
    errorRecordCount: int


class JobDescribed(RecordCounts, total=False):
    """A job as GetModelInvocationJob and ListModelInvocationJobs answer it."""

    jobArn: str
    jobName: str
    modelId: str
    clientRequestToken: str
    roleArn: str
    status: str
    submitTime: str
    lastModifiedTime: str
    inputDataConfig: InputDataConfig
    outputDataConfig: OutputDataConfig
    timeoutDurationInHours: int
    message: str
    endTime: str


class InputRecord(TypedDict, total=False):
    recordId: str
    modelInput: ConverseRequest  # a Converse request body, as the caller wrote it


class RecordError(TypedDict):
    errorCode: int
    errorMessage: str


class OutputRecord(TypedDict, total=False):
    """One line of a `.jsonl.out`: the record's id and input, and its answer or its error."""

    recordId: str | None
    modelInput: ConverseRequest | None
    modelOutput: ConverseAnswer
    error: RecordError
