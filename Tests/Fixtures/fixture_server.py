"""What vault's local test servers share: a JSON request handler and the start-up protocol.

A server listens on 127.0.0.1 (a free port), writes STATE_DIR/server.json ({"port", ...}) once
it listens, and stops when its stdin closes (PythonFixture.swift runs them that way).
"""
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class JSONHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body=None, content_type="application/json", headers=()):
        data = b"" if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        self.send_response(status)
        if data:
            self.send_header("Content-Type", content_type)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def body_text(self):
        return self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()


class CountingHandler(JSONHandler):
    """Answers GET /__count with the subclass's `counts`, read under its `lock`."""
    counts = {}
    lock = threading.Lock()

    def do_GET(self):
        with self.lock:
            self.reply(200, self.counts) if self.path == "/__count" else self.reply(404, {})


def serve(handler, info):
    """Serves `handler` until stdin closes; `info` goes into server.json beside the port."""
    state = sys.argv[1]
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    with open(os.path.join(state, "server.json.tmp"), "w") as out:
        json.dump(dict(info, port=server.server_port), out)
    os.rename(os.path.join(state, "server.json.tmp"), os.path.join(state, "server.json"))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()


def serve_wsgi(application, info):
    """serve() for a WSGI application (django, pypiserver), on a threading wsgiref server."""
    from socketserver import ThreadingMixIn
    from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

    class Quiet(WSGIRequestHandler):
        def log_message(self, *args):
            pass

    class ThreadingServer(ThreadingMixIn, WSGIServer):
        daemon_threads = True

    state = sys.argv[1]
    server = make_server("127.0.0.1", 0, application, server_class=ThreadingServer, handler_class=Quiet)
    with open(os.path.join(state, "server.json.tmp"), "w") as out:
        json.dump(dict(info, port=server.server_port), out)
    os.rename(os.path.join(state, "server.json.tmp"), os.path.join(state, "server.json"))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()  # until the test closes our stdin (or dies)
