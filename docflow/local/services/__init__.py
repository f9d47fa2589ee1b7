"""The local stack's stand-ins for what AWS runs around the functions (its loops and frontends)."""
