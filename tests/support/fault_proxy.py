"""A faulty network between a client and a real server: an HTTP proxy on 127.0.0.1 that forwards
every request to the upstream server unchanged, except the faults it is told to inject.

In:  the upstream base URL (the real vLLM server of ``support.vllm_server``) and a list of
     faults, consumed in order, one per forwarded ``POST``:
       ``("status", code, headers)`` answer ``code`` (429, 503, ...) without forwarding;
       ``("drop",)``                 close the connection without an answer (a connection error);
       ``("rename", model)``         forward, then rewrite the answer's ``model`` field;
     and ``refuse_marker``: a ``POST`` whose body contains it is answered HTTP 400 every time
     (a request the server refuses for good), without forwarding.
Out: :attr:`FaultProxy.base_url`; :attr:`FaultProxy.forwarded` - the bodies of the ``POST``
     requests that reached the upstream server (what the client really had generated), in order.

It never answers in the server's place: every answer a client accepts is the real server's.
"""
from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from support.hang_guard import HANG_GUARD_S


def forward(url: str, body: bytes | None) -> tuple[int, bytes]:
    """The upstream server's status and body for ``GET url`` (``body`` None) or ``POST url``."""
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=HANG_GUARD_S) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


class FaultProxy:
    def __init__(self, upstream: str, faults=(), refuse_marker: str | None = None):
        self.upstream = upstream.rstrip("/")
        self.faults = list(faults)
        self.refuse_marker = refuse_marker
        self.forwarded: list[dict] = []
        self.lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def do_GET(self):
                self._send(*forward(proxy.upstream + self.path.removeprefix("/v1"), None), {})

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if proxy.refuse_marker and proxy.refuse_marker in body.decode("utf-8", "replace"):
                    error = {"error": {"message": "refused by the test's proxy", "code": 400}}
                    return self._send(400, json.dumps(error).encode(), {})
                with proxy.lock:
                    fault = proxy.faults.pop(0) if proxy.faults else None
                if fault and fault[0] == "status":
                    return self._send(fault[1], b'{"error": {"message": "injected"}}', fault[2])
                if fault and fault[0] == "drop":
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                status, content = forward(proxy.upstream + self.path.removeprefix("/v1"), body)
                with proxy.lock:
                    proxy.forwarded.append(json.loads(body))
                if fault and fault[0] == "rename":
                    content = json.dumps({**json.loads(content), "model": fault[1]}).encode()
                self._send(status, content, {})

            def _send(self, status, content, headers):
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(content)))
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(content)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> "FaultProxy":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
