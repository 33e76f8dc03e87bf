"""One POST with Python's `requests` or `httpx`, as bidscan's client tests run it (tests/clients.rs).

Usage: post.py CLIENT URL BODY_FILE [HEADER:VALUE ...]
CLIENT is `requests`, `httpx` (HTTP/1.1) or `httpx-h2` (HTTP/2 with prior knowledge over http://, as h2c).
Prints one JSON line: {"status": int, "version": str, "body": str, "seconds": float} or {"error": "Type: text"}.
Pinned versions (installed by .ci/run): httpx[http2]==0.28.1, h2==4.2.0, requests==2.32.5.
"""

import json
import sys
import time


def main() -> None:
    client, url, path = sys.argv[1:4]
    headers = dict(h.split(":", 1) for h in sys.argv[4:])
    with open(path, "rb") as f:
        body = f.read()
    began = time.monotonic()
    try:
        if client == "requests":
            import requests

            res = requests.post(url, data=body, headers=headers, timeout=30)
            out = {"status": res.status_code, "version": "1.1", "body": res.text}
        else:
            import httpx

            h2 = client == "httpx-h2"
            with httpx.Client(http1=not h2, http2=h2, timeout=30) as c:
                res = c.post(url, content=body, headers=headers)
                out = {"status": res.status_code, "version": res.http_version, "body": res.text}
    except Exception as e:  # noqa: BLE001 - the test asserts on the error's name
        out = {"error": f"{type(e).__name__}: {e}"}
    out["seconds"] = time.monotonic() - began
    print(json.dumps(out))


if __name__ == "__main__":
    main()
