"""Schemathesis hooks for bidscan (loaded by scripts/schemathesis.sh through SCHEMATHESIS_HOOKS).

Schemathesis has no serializer for NDJSON, the body of POST /decode/batch: a generated string is sent as its text
(one or more lines), any other value as one line of compact JSON, so every generated body reaches the server.
"""

import json

import schemathesis


@schemathesis.serializer("application/x-ndjson")
def ndjson(ctx, value):
    if value is None:
        return None
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    return (json.dumps(value, separators=(",", ":")) + "\n").encode("utf-8")
