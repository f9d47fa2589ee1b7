"""Key fields of documents, by the fields each type declares: one interface (`base`: what an
engine gets and answers) and the one place that builds the configured engine (`factory`), over
four rooms, each of whose `__init__` says what it holds and may import:

    declarations/  what a type declares and each kind's normal form (the lowest room)
    rules_engine/  the local `rules` engine: labels, positions, reconciled amounts
    engines/       the engines that ask AWS: `bedrock`, `textract`, `textract-expense`
    checks/        what sends fields to a person, and reviewers' corrections

Imports run downward: factory -> engines -> rules_engine -> base -> declarations, and checks
-> declarations. The package may import docflow.readers (the `Word` a reader returns, the
throttle policy and the cross-execution cap), docflow.aws, docflow.converse, docflow.names and
docflow.settings; never docflow.pipeline or docflow.classify."""

from docflow.extract.base import Extraction, FieldEngine, FoundField, PageInput
from docflow.extract.factory import build_engine

__all__ = ["Extraction", "FieldEngine", "FoundField", "PageInput", "build_engine"]
