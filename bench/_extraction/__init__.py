"""The extraction benchmark's labelled sets (generated and real) and its scoring."""
