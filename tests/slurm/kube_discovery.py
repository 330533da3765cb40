#!/usr/bin/env python3
"""A stub of the Kubernetes API's discovery endpoints, on a free loopback
port (printed on stdout), for `kubectl apply --dry-run=client` of
examples/kubernetes/indexed-job.yaml without a cluster: kubectl asks which
resources exist to map the manifest's kind, and nothing else. It knows the
core v1 group (no resources) and batch/v1 jobs only; every other path is 404.
"""
import json
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

DOCS = {
    "/api": {"kind": "APIVersions", "versions": ["v1"],
             "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1"}]},
    "/api/v1": {"kind": "APIResourceList", "groupVersion": "v1", "resources": []},
    "/apis": {"kind": "APIGroupList", "apiVersion": "v1", "groups": [{
        "name": "batch", "versions": [{"groupVersion": "batch/v1", "version": "v1"}],
        "preferredVersion": {"groupVersion": "batch/v1", "version": "v1"}}]},
    "/apis/batch/v1": {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": "batch/v1", "resources": [{
        "name": "jobs", "singularName": "job", "namespaced": True, "kind": "Job",
        "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"]}]},
    "/version": {"major": "1", "minor": "28", "gitVersion": "v1.28.0"},
}


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        doc = DOCS.get(self.path.split("?")[0])
        body = json.dumps(doc if doc is not None else {"kind": "Status", "code": 404}).encode()
        self.send_response(200 if doc is not None else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = HTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.timeout = 1
for _ in range(600):  # at most about 10 minutes, then go away by itself
    server.handle_request()
sys.exit(0)
