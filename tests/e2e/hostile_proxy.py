#!/usr/bin/env python3
"""hostile_proxy.py UPSTREAM MODES LOG: a relay on 127.0.0.1 in front of a real
store (UPSTREAM is http://HOST:PORT: an anonymous s3emu or moto's server, which
check no signature, so the relay may rewrite what the client signed) that
misbehaves the way broken S3-compatible stores and proxies do. Prints
"ready http://HOST:PORT" once it listens, then relays (a thread per client
connection, one upstream connection each) until killed.

Every request is logged to LOG as one JSON line: method, target, the status
sent back and the mode that acted on it (or null), so a test can count what
the client did.

MODES is a comma-separated list; each is NAME or NAME=VALUE:
  prefix-ignored       listings lose their `prefix` (and `delimiter` stays):
                       the store lists the whole bucket
  start-after-ignored  listings lose `start-after` and `marker`
  max-keys=N           listings (ListObjectVersions too) ask for at most N
                       keys a page (so a few keys make several pages, and
                       tokens to misbehave with)
  token-repeat         a listing page asked with a continuation token answers
                       with that same token as its next one, forever (and a
                       ListObjectVersions page asked with key-marker and
                       version-id-marker answers with those same markers)
  token-cycle          the page asked with the second token issued for a
                       listing answers with the first one again (A, B, A, B...)
  no-etag              PutObject and CompleteMultipartUpload are stored, but
                       their replies lose ETag, x-amz-checksum-* and the XML's
                       <ETag>/<Checksum*>
  put-blackhole        PutObject and CompleteMultipartUpload are answered 200
                       with no ETag and never reach the store
  get-no-etag          GetObject and HeadObject answers lose ETag and
                       x-amz-checksum-* (the bytes are the store's): a
                       download has nothing to be checked against
  region-pingpong      every request is answered 301 PermanentRedirect with an
                       x-amz-bucket-region that alternates us-west-2/eu-west-1
  region-evil          every request is answered 301 with x-amz-bucket-region
                       "evil.example/x?y" (a value no region can have)
  garble=N             the second answer on each connection (a reused one) is
                       a garbled status line, for the first N such answers
  stray=N              the first N answers carry 16 stray bytes after their
                       body, which the next answer on that connection meets
  stray-late=N         the same, but the stray bytes come 200 ms after the
                       answer (a client that read the answer whole already
                       reuses the connection and reads them as the next status)
  trickle=BPS          GET bodies are sent at BPS bytes a second
  stall                GET requests are read and never answered
  length-lie           GET answers claim twice their length, send the body,
                       then close
  reset=N              the first N GET bodies are cut in half by a reset
  only=SUBSTR          act only on requests whose target contains SUBSTR
                       (other requests are relayed untouched)
"""
import http.client
import json
import socket
import socketserver
import struct
import sys
import threading
import time
import urllib.parse

UP = urllib.parse.urlsplit(sys.argv[1])
MODES = {}
for m in sys.argv[2].split(","):
    if m:
        k, _, v = m.partition("=")
        MODES[k] = v
LOG = open(sys.argv[3], "a", buffering=1)
LOCK = threading.Lock()
COUNT = {"garble": 0, "stray": 0, "stray-late": 0, "reset": 0, "pingpong": 0}
TOKENS = {}                 # listing (path, prefix) -> tokens issued, in order
HEAD_MAX = 1 << 20


def take(name):
    """Whether the count-limited mode 'name' acts once more (and counts it)."""
    if name not in MODES:
        return False
    limit = int(MODES[name] or "1")
    with LOCK:
        if COUNT[name] >= limit:
            return False
        COUNT[name] += 1
        return True


def log(method, target, status, acted):
    with LOCK:
        LOG.write(json.dumps({"method": method, "target": target,
                              "status": status, "mode": acted}) + "\n")


def is_listing(method, path, query):
    """A ListObjects(V2) request: GET on a bucket with no key, no sub-resource."""
    if method != "GET":
        return False
    parts = path.lstrip("/").split("/", 1)
    if len(parts) == 2 and parts[1]:
        return False
    return not any(k in query for k in ("uploads", "versions", "location", "acl",
                                        "tagging", "versioning", "policy"))


def is_versions_listing(method, path, query):
    """A ListObjectVersions request: GET on a bucket with ?versions."""
    parts = path.lstrip("/").split("/", 1)
    return method == "GET" and not (len(parts) == 2 and parts[1]) and "versions" in query


def is_object_put(method, path, query):
    """PutObject (not a part, not a copy) or CompleteMultipartUpload."""
    parts = path.lstrip("/").split("/", 1)
    if len(parts) < 2 or not parts[1]:
        return False
    if method == "PUT":
        return "partNumber" not in query and "uploadId" not in query
    return method == "POST" and "uploadId" in query


def strip_tag(body, tag):
    """'body' without every <tag>...</tag> element (bytes, non-nested)."""
    out = body
    while True:
        a = out.find(b"<" + tag + b">")
        if a < 0:
            return out
        b = out.find(b"</" + tag + b">", a)
        if b < 0:
            return out
        out = out[:a] + out[b + len(tag) + 3:]


class Relay(socketserver.StreamRequestHandler):
    def read_request(self):
        line = self.rfile.readline(HEAD_MAX)
        if not line:
            return None
        method, target, _ = line.decode("latin-1").split(" ", 2)
        headers = []
        while True:
            h = self.rfile.readline(HEAD_MAX).decode("latin-1")
            if h in ("\r\n", "\n", ""):
                break
            name, _, value = h.partition(":")
            headers.append((name.strip(), value.strip()))
        hmap = {k.lower(): v for k, v in headers}
        if hmap.get("expect", "").lower() == "100-continue":
            self.wfile.write(b"HTTP/1.1 100 Continue\r\n\r\n")
            self.wfile.flush()
        body = b""
        if "chunked" in hmap.get("transfer-encoding", "").lower():
            while True:
                size = int(self.rfile.readline(HEAD_MAX).split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline(HEAD_MAX) not in (b"\r\n", b"\n", b""):
                        pass
                    break
                body += self.rfile.read(size)
                self.rfile.readline(HEAD_MAX)
        else:
            n = int(hmap.get("content-length", "0") or 0)
            while len(body) < n:
                chunk = self.rfile.read(n - len(body))
                if not chunk:
                    return None
                body += chunk
        keep = [(k, v) for k, v in headers
                if k.lower() not in ("expect", "transfer-encoding", "content-length", "connection")]
        return method, target, keep, body

    def send(self, status, headers, body=b"", send_body=True):
        head = "HTTP/1.1 %s\r\n" % status
        for k, v in headers:
            head += "%s: %s\r\n" % (k, v)
        self.wfile.write(head.encode("latin-1") + b"\r\n" + (body if send_body else b""))
        self.wfile.flush()

    def upstream(self, method, target, headers, body):
        if self.conn is None:
            self.conn = http.client.HTTPConnection(UP.hostname, UP.port, timeout=60)
        self.conn.putrequest(method, target, skip_host=True, skip_accept_encoding=True)
        for k, v in headers:
            self.conn.putheader(k, v)
        if body or method in ("PUT", "POST"):
            self.conn.putheader("Content-Length", str(len(body)))
        self.conn.endheaders(body if body else None)
        resp = self.conn.getresponse()
        data = resp.read()
        hdrs = [(k, v) for k, v in resp.getheaders()
                if k.lower() not in ("transfer-encoding", "connection", "content-length")]
        clen = resp.getheader("Content-Length")
        return resp.status, resp.reason, hdrs, data, clen

    def handle(self):
        self.conn = None
        served = 0
        try:
            while True:
                req = self.read_request()
                if req is None:
                    return
                served += 1
                if not self.serve_one(served, *req):
                    return
        except (OSError, ValueError, http.client.HTTPException):
            return
        finally:
            if self.conn is not None:
                self.conn.close()

    def serve_one(self, served, method, target, headers, body):
        """Answer one request; False when the connection is to be closed."""
        split = urllib.parse.urlsplit(target)
        query = urllib.parse.parse_qs(split.query, keep_blank_values=True)
        acted = None
        if "only" in MODES and MODES["only"] not in target:
            st, reason, hdrs, data, clen = self.upstream(method, target, headers, body)
            self.reply(method, target, st, reason, hdrs, data, clen, None, plain=True)
            return True

        if "region-pingpong" in MODES or "region-evil" in MODES:
            with LOCK:
                COUNT["pingpong"] += 1
                n = COUNT["pingpong"]
            region = ("us-west-2" if n % 2 else "eu-west-1") if "region-pingpong" in MODES \
                else "evil.example/x?y"
            msg = (b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>PermanentRedirect"
                   b"</Code><Message>The bucket you are attempting to access must be addressed "
                   b"using the specified endpoint.</Message></Error>")
            self.send("301 Moved Permanently", [("x-amz-bucket-region", region),
                                                ("Content-Type", "application/xml"),
                                                ("Content-Length", str(len(msg)))],
                      msg, method != "HEAD")
            log(method, target, 301, "region")
            return True

        if "stall" in MODES and method == "GET" and not is_listing(method, split.path, query):
            log(method, target, None, "stall")
            time.sleep(3600)
            return False

        if is_listing(method, split.path, query):
            drop = []
            if "prefix-ignored" in MODES:
                drop.append("prefix")
            if "start-after-ignored" in MODES:
                drop += ["start-after", "marker"]
            if drop and any(k in query for k in drop):
                acted = "+".join(d for d in drop if d in query)
                q = [(k, v) for k, vs in query.items() for v in vs if k not in drop]
                target = split.path + ("?" + urllib.parse.urlencode(q) if q else "")
        if is_listing(method, split.path, query) or is_versions_listing(method, split.path, query):
            if "max-keys" in MODES:
                n = int(MODES["max-keys"] or "1")
                asked = int(query.get("max-keys", ["1000"])[0])
                q = [(k, v) for k, vs in urllib.parse.parse_qs(urllib.parse.urlsplit(target).query,
                                                               keep_blank_values=True).items()
                     for v in vs if k != "max-keys"] + [("max-keys", str(min(n, asked)))]
                target = split.path + "?" + urllib.parse.urlencode(q)

        if "put-blackhole" in MODES and is_object_put(method, split.path, query):
            self.send("200 OK", [("Content-Length", "0")])
            log(method, target, 200, "put-blackhole")
            return True

        st, reason, hdrs, data, clen = self.upstream(method, target, headers, body)

        if is_listing(method, split.path, query) and st == 200 and \
                ("token-repeat" in MODES or "token-cycle" in MODES):
            data, changed = self.rewrite_token(split.path, query, data)
            if changed:
                acted = "token"
        if is_versions_listing(method, split.path, query) and st == 200 and "token-repeat" in MODES \
                and "key-marker" in query:
            for tag, param in ((b"NextKeyMarker", "key-marker"), (b"NextVersionIdMarker", "version-id-marker")):
                a = data.find(b"<" + tag + b">")
                b = data.find(b"</" + tag + b">", a)
                if a >= 0 and b >= 0:
                    asked = query.get(param, [""])[0]
                    if query.get("encoding-type", [""])[0] == "url" and tag == b"NextKeyMarker":
                        asked = urllib.parse.quote(asked, safe="/")
                    data = data[:a + len(tag) + 2] + asked.encode() + data[b:]
                    acted = "token"

        if "no-etag" in MODES and is_object_put(method, split.path, query) and st == 200:
            hdrs = [(k, v) for k, v in hdrs
                    if k.lower() != "etag" and not k.lower().startswith("x-amz-checksum")]
            for tag in (b"ETag", b"ChecksumCRC32", b"ChecksumCRC32C", b"ChecksumCRC64NVME",
                        b"ChecksumSHA1", b"ChecksumSHA256", b"ChecksumType"):
                data = strip_tag(data, tag)
            acted = "no-etag"

        if "get-no-etag" in MODES and method in ("GET", "HEAD") and st in (200, 206) and \
                not is_listing(method, split.path, query):
            hdrs = [(k, v) for k, v in hdrs
                    if k.lower() != "etag" and not k.lower().startswith("x-amz-checksum")]
            acted = "get-no-etag"

        if served == 2 and take("garble"):
            self.wfile.write(b"HTTP/1.1 2\x0000 OK\x07garbage\r\n\r\n")
            self.wfile.flush()
            log(method, target, None, "garble")
            return False

        return self.reply(method, target, st, reason, hdrs, data, clen, acted)

    def rewrite_token(self, path, query, data):
        """Apply token-repeat / token-cycle to a listing page's next token."""
        a = data.find(b"<NextContinuationToken>")
        if a < 0:
            return data, False
        b = data.find(b"</NextContinuationToken>", a)
        nxt = data[a + 23:b].decode()
        asked = query.get("continuation-token", [None])[0]
        key = (path, query.get("prefix", [""])[0])
        with LOCK:
            issued = TOKENS.setdefault(key, [])
            if nxt not in issued:
                issued.append(nxt)
            replace = None
            if "token-repeat" in MODES and asked is not None:
                replace = asked
            elif "token-cycle" in MODES and len(issued) >= 2 and asked == issued[1]:
                replace = issued[0]
        if replace is None:
            return data, False
        new = data[:a + 23] + replace.encode() + data[b:]
        return new, True

    def reply(self, method, target, st, reason, hdrs, data, clen, acted, plain=False):
        """Send an upstream answer, as the modes that touch bodies want it
        (none of them when 'plain': a request that only= leaves alone)."""
        head_only = method == "HEAD"
        is_get = method == "GET" and st in (200, 206) and not plain
        length = len(data) if not head_only else int(clen or 0)
        if is_get and "length-lie" in MODES:
            self.send("%d %s" % (st, reason), hdrs + [("Content-Length", str(2 * len(data)))], data)
            log(method, target, st, "length-lie")
            return False
        if is_get and len(data) > 1 and take("reset"):
            self.send("%d %s" % (st, reason), hdrs + [("Content-Length", str(len(data)))],
                      data[:len(data) // 2])
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            log(method, target, st, "reset")
            return False
        if is_get and "trickle" in MODES:
            bps = max(1, int(MODES["trickle"] or "1"))
            self.send("%d %s" % (st, reason), hdrs + [("Content-Length", str(len(data)))], b"")
            log(method, target, st, "trickle")
            for i in range(0, len(data), bps):
                self.wfile.write(data[i:i + bps])
                self.wfile.flush()
                time.sleep(1)
            return True
        extra = b""
        late = not plain and take("stray-late")
        if not plain and take("stray"):
            extra = b"\r\nHTTP/1.1 200\r\n"
            acted = "stray"
        self.send("%d %s" % (st, reason), hdrs + [("Content-Length", str(length))],
                  data + extra, not head_only)
        if late:
            acted = "stray-late"
            time.sleep(0.2)
            self.wfile.write(b"\r\nHTTP/1.1 200\r\n")
            self.wfile.flush()
        log(method, target, st, acted)
        return True


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    srv = Server(("127.0.0.1", 0), Relay)
    print("ready http://127.0.0.1:%d" % srv.server_address[1], flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
