# docflow: the two commands a newcomer needs are `make run` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
SAM_VENV := .sam-venv
SAM := SAM_CLI_TELEMETRY=0 $(SAM_VENV)/bin/sam
STAMP := $(VENV)/.installed
# Python writes each module's bytecode once and every later process reads it. Some machines
# (CI's among them) export PYTHONDONTWRITEBYTECODE=1, and then every process compiles every
# module it imports from source: a third of a live-stack test module's CPU (22 CPU-s to 13).
unexport PYTHONDONTWRITEBYTECODE

.PHONY: run test test-fast test-durations screenshots lint build bench-smoke bench-smoke-stack bench-smoke-rest bench setup system-deps conformance-deps clean lambda-lock histories mutation

# Every environment is made and filled by uv (pinned, in its own environment): it installs from
# its cache in seconds where pip took a minute, which is most of a fresh machine's setup. `--seed`
# puts pip in .venv too, for the one package uv will not install (conformance-deps).
UV_VENV := .uv-venv
UV := $(UV_VENV)/bin/uv
HOST_PYTHON = "$$($(PYTHON) -c 'import sys; print(sys.executable)')"
$(UV):
	$(PYTHON) -m venv $(UV_VENV)
	$(UV_VENV)/bin/pip install -q uv==0.13.9

$(STAMP): pyproject.toml | $(UV)
	test -x $(BIN)/python || $(UV) venv -q --seed --python $(HOST_PYTHON) $(VENV)
	$(UV) pip install -q --python $(BIN)/python -e ".[dev]"
	touch $(STAMP)

setup: $(STAMP)

# AWS's conformance requirements for durable executions (bench/conformance.py and
# tests/live/test_conformance.py). The package declares Python >= 3.14 but imports and runs on 3.11,
# so it cannot be an ordinary dependency in pyproject.toml.
CONFORMANCE_STAMP := $(VENV)/.conformance-1.0.0
$(CONFORMANCE_STAMP): $(STAMP)
	$(BIN)/pip install -q --ignore-requires-python aws-durable-execution-conformance-tests==1.0.0
	touch $(CONFORMANCE_STAMP)

conformance-deps: $(CONFORMANCE_STAMP)

# Debian packages the pipeline and its tests use: tesseract for OCR with the language packs the
# rules file's `[ocr] languages` name, chromium for browser tests.
OCR_PACKS := tesseract-ocr tesseract-ocr-deu tesseract-ocr-fra tesseract-ocr-spa tesseract-ocr-ita tesseract-ocr-nld tesseract-ocr-por
system-deps:
	@command -v tesseract >/dev/null && command -v chromium >/dev/null && \
	  tesseract --list-langs 2>/dev/null | grep -qx por || \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(OCR_PACKS) chromium >/dev/null)

# Three workers (pytest-xdist), each given whole test files (a module's live stack starts once),
# in tests/conftest.py's order, the slowest first: xdist itself hands out the files with the
# most tests first (--no-loadscope-reorder keeps ours). `make test WORKERS=0`: one process.
WORKERS ?= 3
XDIST = -n $(WORKERS) --dist loadfile --no-loadscope-reorder
test: setup system-deps conformance-deps
	$(BIN)/ruff check .
	$(BIN)/pytest $(XDIST) --durations=15

# tests/durations.json: each module's seconds in a whole run, the order `make test` hands them
# out in (tests/support/ordering.py). Run it again when modules come or grow.
test-durations: setup system-deps conformance-deps
	$(BIN)/pytest $(XDIST) --record-durations

# The inner loop: everything but the live-stack (slow) and Chromium (browser) tests, with the
# slowest fifteen named. `make test` still runs everything.
test-fast: setup system-deps conformance-deps
	$(BIN)/pytest $(XDIST) -m "not slow and not browser" --durations=15

# The pictures the docs show (docs/screenshots/): the browser tests that take them, told to write
# there. Any other test run writes its screenshots under build/screenshots/ (git-ignored).
SHOT_TESTS := tests/browser/test_dashboard_page.py tests/browser/test_page_screens.py \
	tests/browser/test_review_boxes_browser.py tests/browser/test_review_browser.py \
	tests/browser/test_inbox_browser.py tests/browser/test_packets_stack.py tests/browser/test_trace_stack.py \
	tests/browser/test_einvoice_review_browser.py tests/browser/test_declared_fields_browser.py \
	tests/browser/test_run_page_screens.py
screenshots: setup system-deps
	DOCFLOW_SCREENSHOTS=$(abspath docs/screenshots) $(BIN)/pytest $(XDIST) $(SHOT_TESTS)

run: setup system-deps
	$(BIN)/python samples/make_samples.py samples
	@# samples/notes.txt is not a PDF and fails on purpose (not-a-pdf): run's status 5 (a
	@# document failed) is what the samples are meant to end with; any other status fails make,
	@# and so does any other sample that failed (samples/check_outcome.py says which).
	$(BIN)/docflow run samples/ || [ $$? -eq 5 ]
	@$(BIN)/python samples/check_outcome.py samples/
	@echo "next: $(BIN)/docflow pending | mail | dashboard | --help (source $(BIN)/activate puts docflow on the PATH)"

# SAM CLI pins an older boto3 than the durable SDK needs, so it gets its own environment.
$(SAM_VENV)/bin/sam: | $(UV)
	$(UV) venv -q --allow-existing --python $(HOST_PYTHON) $(SAM_VENV)
	$(UV) pip install -q --python $(SAM_VENV)/bin/python aws-sam-cli==1.170.0 cfn-lint==1.58.0

# checkov pins packages that clash with the project's (and with SAM CLI's): its own environment.
CHECKOV_VENV := .checkov-venv
$(CHECKOV_VENV)/bin/checkov: | $(UV)
	$(UV) venv -q --allow-existing --python $(HOST_PYTHON) $(CHECKOV_VENV)
	$(UV) pip install -q --python $(CHECKOV_VENV)/bin/python checkov==3.3.30

# checkov fails on any finding not in .checkov.baseline (each accepted one is listed there, with
# its reason; docs/security.md).
lint: setup $(SAM_VENV)/bin/sam $(CHECKOV_VENV)/bin/checkov
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(SAM) validate --lint --region us-east-1
	$(SAM_VENV)/bin/cfn-lint template.yaml
	$(CHECKOV_VENV)/bin/checkov -f template.yaml --framework cloudformation \
	  --baseline .checkov.baseline --quiet --compact --skip-download

build: $(SAM_VENV)/bin/sam $(UV)
	PATH="$(abspath $(SAM_VENV))/bin:$$PATH" $(SAM) build --region us-east-1

bench-smoke: bench-smoke-stack bench-smoke-rest

# The smoke runs in two parts: the reliability scenarios (local stacks, mostly waiting) and
# every other benchmark (CI runs both beside the tests).
bench-smoke-stack: setup system-deps conformance-deps
	@set -o pipefail; echo "== bench/reliability.py --smoke"; \
	  $(BIN)/python bench/reliability.py --smoke 2>/dev/null | tail -n 1

# Every other benchmark's smoke run, JOBS at a time (CI: JOBS=2), the longest first (about a
# minute or more each on this machine, in this order), then the rest by name: a job takes the
# next benchmark when it is done with one, so the jobs end together. Each one's output is
# printed whole when it ends: its name, the last line of its JSON, its seconds (a failure: the
# end of its error output too).
JOBS ?= 1
BENCH_FIRST := extraction throughput review_page ocr_languages trace
bench-smoke-rest: setup system-deps conformance-deps
	@set -o pipefail; { for b in $(BENCH_FIRST); do echo bench/$$b.py; done; \
	  for b in bench/*.py; do case $$b in */_*|*/reliability.py) continue;; esac; \
	    case " $(BENCH_FIRST) " in *" $$(basename $$b .py) "*) continue;; esac; echo $$b; done; } \
	  | xargs -P $(JOBS) -I{} bash -c 'set -o pipefail; began=$$SECONDS; \
	      err=$$(mktemp); last=$$($(BIN)/python {} --smoke 2>$$err | tail -n 1); status=$$?; \
	      printf "== %s --smoke\n%s\n   (%s s)\n" {} "$$last" $$((SECONDS - began)); \
	      [ $$status -eq 0 ] || { echo "   {} failed: exit $$status" >&2; tail -n 25 $$err >&2; rm -f $$err; exit 1; }; \
	      rm -f $$err'

clean:
	rm -rf .aws-sam .docflow

# Mutation testing of the controls (bench/README.md, "Mutation testing"): mutmut over the modules
# `[tool.mutmut]` names (the mutants not yet tested, and every survivor again), then the
# hand-made mutants (bench/mutation_hand.toml); prints the score as JSON. It takes hours on two
# cores, so it is part of neither `make test` nor CI. `make mutation MODULES="docflow/names.py"`
# re-tests those modules' mutants and hand-made mutants only.
MODULES ?=
mutation: setup
	$(BIN)/python bench/mutation.py --run --hand $(if $(MODULES),--modules "$(MODULES)")

# requirements/lambda.txt: requirements/lambda.in's ranges compiled for python3.13 manylinux
# x86_64, every dependency pinned with its hashes (uv, in its own environment). Pins already in
# lambda.txt stay; `make lambda-lock LOCK_FLAGS=--upgrade` moves them to the newest in range.
LOCK_FLAGS ?=
lambda-lock: $(UV)
	$(UV) pip compile requirements/lambda.in -o requirements/lambda.txt -q \
	  --generate-hashes --python-version 3.13 --python-platform x86_64-manylinux2014 \
	  --only-binary :all: --custom-compile-command "make lambda-lock" $(LOCK_FLAGS)
	$(UV) pip compile requirements/einvoice-rules.in -o requirements/einvoice-rules.txt \
	  -q --generate-hashes --python-version 3.13 --python-platform x86_64-manylinux_2_28 \
	  --only-binary :all: --custom-compile-command "make lambda-lock" $(LOCK_FLAGS)

# Executions suspended at each kind of wait, recorded from this release into
# tests/data/histories/<version>-<commit>/: tests/orchestrator/test_replay_histories.py replays
# every set against the current code. Run it when a release ships (docs/upgrading.md).
histories: setup
	$(BIN)/python -m tests.support.record_histories $(if $(RELEASE),--release $(RELEASE))

# ---- sam build (BuildMethod: makefile). Each function gets its handler package and the shared
# library, with python3.13 manylinux wheels installed by uv for that platform (works from any
# Python), each checked against its hash in requirements/lambda.txt.
LAMBDA_PIP := $(UV) pip install -q --python-platform x86_64-manylinux2014 --python-version 3.13 \
	--only-binary :all: --require-hashes -r requirements/lambda.txt

# uv leaves its lock file in the target: not part of the package.
define lambda_build
	$(LAMBDA_PIP) --target "$(ARTIFACTS_DIR)"
	rm -f "$(ARTIFACTS_DIR)/.lock"
	tar -C . --exclude='__pycache__' --exclude='docflow/local' -cf - docflow $(1) \
	  | tar -C "$(ARTIFACTS_DIR)" -xf -
endef

build-OrchestratorFunction:
	$(call lambda_build,orchestrator)
build-StarterFunction:
	$(call lambda_build,starter)
build-StatusRecorderFunction:
	$(call lambda_build,status_recorder)
build-CallbackApiFunction:
	$(call lambda_build,callback_api)
build-DashboardWidgetFunction:
	$(call lambda_build,status_recorder)
build-BatcherFunction:
	$(call lambda_build,batcher)
build-BatchJobEventsFunction:
	$(call lambda_build,batcher)
build-BatcherScheduleFunction:
	$(call lambda_build,batcher)
build-ReviewDigestFunction:
	$(call lambda_build,callback_api)
# Saxon and the e-invoice library only: its own lock (requirements/einvoice-rules.txt), for
# manylinux_2_28 (Saxon 13 has no manylinux2014 wheel; python3.13's Amazon Linux 2023 has glibc 2.34).
build-EInvoiceRulesFunction:
	$(subst x86_64-manylinux2014,x86_64-manylinux_2_28,$(subst requirements/lambda.txt,requirements/einvoice-rules.txt,$(LAMBDA_PIP))) \
	  --target "$(ARTIFACTS_DIR)"
	rm -f "$(ARTIFACTS_DIR)/.lock"
	tar -C . --exclude='__pycache__' -cf - docflow/__init__.py docflow/aws.py docflow/einvoice \
	  einvoice_rules | tar -C "$(ARTIFACTS_DIR)" -xf -
