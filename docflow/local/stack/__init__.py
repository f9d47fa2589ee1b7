"""The local stack's supervisor (`python -m docflow.local.stack.stackd`), process control for
`docflow up`/`down`/`status` (`control`), and the report of what a restart recovered
(`recovery`). The top room: it may import every other room of docflow/local; nothing else in
docflow/local imports it (the CLI and tests do).
"""
