"""What is sent to the model, and how its answer is read back.

On-demand (`build_request`): a Converse request body whose one tool has the enrichment schema
as its input schema and is forced, so the answer is the tool's input. Batch inference
(`build_batch_model_input`): the same prompt in the Converse shape without tools, asking for
one JSON object, because batch answers are prompted JSON, not tool use; `parse_batch_answer`
holds that JSON to the schema. Both bound the document's text to `MAX_CHARS`, so a
5,000-page document costs what a 10-page one does.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence

from docflow.converse import ConverseRequest, forced_tool_request
from docflow.enrich.base import PageText
from docflow.enrich.schema import ABSTRACT_MAX, SCHEMA, Enrichment, validate_enrichment

TOOL = "record_enrichment"
MAX_CHARS = 24_000  # about 6,000 tokens of document
PAGE_MAX_CHARS = 6_000  # so one dense page does not crowd out the rest
MAX_TOKENS = 1_500
# Characters per token for the admission estimate: conservative, so the budget errs on
# admitting too little rather than overrunning the quota.
CHARS_PER_TOKEN = 3

SYSTEM = (
    "You read business documents and record a summary and a risk assessment with the "
    f"{TOOL} tool. Use only what the document says. summary.title names the document; "
    f"summary.abstract says in at most {ABSTRACT_MAX} characters what it is about; parties are "
    "the organisations or people it binds or names as parties; keyDates are dates the document "
    "states, as YYYY-MM-DD, each with a short label. risk.level is low, medium or high; each "
    "reason has a short kebab-case code (for example automatic-renewal, unlimited-liability, "
    "long-payment-terms, missing-signature, sensitive-data), one sentence, and the page it is on."
)
BATCH_INSTRUCTIONS = (
    "Answer with one JSON object and nothing else (no prose, no code fence). It must match "
    "this JSON schema:\n"
)


def prompt_text(pages: Sequence[PageText]) -> str:
    parts = [f"--- page {p.page} ---\n{p.text[:PAGE_MAX_CHARS]}" for p in pages]
    return "Summarize this document and assess its risk.\n\n" + "\n".join(parts)[:MAX_CHARS]


def build_request(pages: Sequence[PageText]) -> ConverseRequest:
    """A Converse body (without `modelId`) whose answer is the forced tool's input."""
    return forced_tool_request(
        system=SYSTEM,
        prompt=prompt_text(pages),
        tool=TOOL,
        description="Record the document's summary and risk.",
        schema=SCHEMA,
        max_tokens=MAX_TOKENS,
    )


def build_batch_model_input(pages: Sequence[PageText]) -> ConverseRequest:
    """A batch record's `modelInput` (Converse shape, no tools): prompted JSON."""
    schema = json.dumps(SCHEMA, separators=(",", ":"))
    return {
        "system": [{"text": SYSTEM.replace(f"with the {TOOL} tool", "as JSON")}],
        "messages": [
            {
                "role": "user",
                "content": [{"text": f"{prompt_text(pages)}\n\n{BATCH_INSTRUCTIONS}{schema}"}],
            }
        ],
        "inferenceConfig": {"maxTokens": MAX_TOKENS, "temperature": 0.0},
    }


def estimate_tokens(request: ConverseRequest) -> int:
    """Tokens a call may spend, for admission: its text over-counted, plus the output cap."""
    sent = {k: v for k, v in request.items() if k in ("system", "messages", "toolConfig")}
    chars = len(json.dumps(sent, separators=(",", ":")))
    config = request.get("inferenceConfig")
    cap = int(config.get("maxTokens", MAX_TOKENS)) if config else MAX_TOKENS
    return math.ceil(chars / CHARS_PER_TOKEN) + cap


class InvalidAnswer(ValueError):
    """A batch answer that is not one JSON object matching the schema."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems)[:500])
        self.problems = problems


_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$")


def parse_batch_answer(model_output: Mapping[str, object]) -> Enrichment:
    """The enrichment in a batch record's `modelOutput` (any JSON object, checked here);
    raises InvalidAnswer otherwise.

    Accepts the Converse shape (`output.message.content[].text`) and the Anthropic
    InvokeModel shape (`content[].text`), and tolerates a code fence around the JSON.
    """
    texts = [b["text"] for b in _content(model_output) if isinstance(b, dict) and "text" in b]
    if not texts:
        raise InvalidAnswer(["the answer has no text"])
    raw = _FENCE.sub("", "".join(texts).strip())
    try:
        value = json.loads(raw)
    except ValueError as exc:
        raise InvalidAnswer([f"the answer is not JSON: {exc}"]) from exc
    problems = validate_enrichment(value)
    if problems:
        raise InvalidAnswer(problems)
    valid: Enrichment = value.copy()  # the JSON's object, held to the schema above
    return valid


def _content(answer: Mapping[str, object]) -> list[object]:
    output = answer.get("output")
    message = output.get("message") if isinstance(output, Mapping) else None
    # Converse nests the content in the output's message; InvokeModel has it on top.
    if isinstance(message, Mapping) and message:
        content = message.get("content")
    else:
        content = answer.get("content")
    return list(content) if isinstance(content, list) else []
