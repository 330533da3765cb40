#!/usr/bin/env python3
"""hostile_server.py MODE LOG: an HTTP server on 127.0.0.1 that answers S3
clients the way a broken or hostile store would. Prints "ready http://HOST:PORT"
once it listens, then serves (a thread per connection) until killed.

Every request is logged to LOG as one JSON line (method, path, headers), so a
test can see exactly what the client sent: its Authorization signature, its
session token, its presigned query.

MODE (what every request gets):
  echo-auth     403 SignatureDoesNotMatch with a body that quotes what was
                sent, as S3 does (<SignatureProvided>, <StringToSign>,
                <CanonicalRequest>, <AWSAccessKeyId>), plus the session token
  list-endless  200 to a listing: a ListBucketResult whose <Contents> never
                end (chunked, forever); other requests 404
  list-hugekey  200 to a listing with one <Key> of 64 MiB
  list-evilkeys a listing (encoding-type=url) of keys with line breaks and
                terminal escapes, one escaping the destination, and two plain
                keys, ok1 and ok2, whose GETs answer "content of KEY\n"
  list-deep     200 to a listing nested 1,000,000 elements deep
  list-garbage  200 to a listing that is not XML at all (64 KiB of noise)
  headers-endless  "200 OK" then header lines, forever
  header-huge   one response header line of 64 MiB
  length-lie    HEAD and GET claim Content-Length 1 PB; GET then sends 1 KiB and closes
  error-huge    500 with a 256 MiB error body
"""
import hashlib
import json
import socket
import socketserver
import sys
import threading
import urllib.parse

MODE = sys.argv[1]
LOG = open(sys.argv[2], "a", buffering=1)
LOCK = threading.Lock()
MIB = 1 << 20


def xml_escape(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class Handler(socketserver.StreamRequestHandler):
    def read_request(self):
        line = self.rfile.readline(65536)
        if not line:
            return None
        method, target, _ = line.decode("latin-1").split(" ", 2)
        headers = {}
        while True:
            h = self.rfile.readline(65536).decode("latin-1")
            if h in ("\r\n", "\n", ""):
                break
            name, _, value = h.partition(":")
            headers[name.strip().lower()] = value.strip()
        n = int(headers.get("content-length", "0") or 0)
        if headers.get("expect", "").lower() == "100-continue":
            self.wfile.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        while n > 0:
            chunk = self.rfile.read(min(n, MIB))
            if not chunk:
                break
            n -= len(chunk)
        with LOCK:
            LOG.write(json.dumps({"method": method, "target": target, "headers": headers}) + "\n")
        return method, target, headers

    def send(self, status, headers, body=b""):
        head = "HTTP/1.1 %s\r\n" % status
        for k, v in headers:
            head += "%s: %s\r\n" % (k, v)
        self.wfile.write(head.encode() + b"\r\n" + body)

    def chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

    def handle(self):
        try:
            while True:
                req = self.read_request()
                if req is None:
                    return
                if not getattr(self, "answer_" + MODE.replace("-", "_"))(*req):
                    return
        except (BrokenPipeError, ConnectionResetError, ValueError):
            return

    def answer_echo_auth(self, method, target, headers):
        q = urllib.parse.parse_qs(urllib.parse.urlsplit(target).query)
        sig = headers.get("authorization", "").rpartition("Signature=")[2] or q.get("X-Amz-Signature", [""])[0]
        body = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>SignatureDoesNotMatch</Code>"
                "<Message>The request signature we calculated does not match the signature you provided."
                "</Message><AWSAccessKeyId>%s</AWSAccessKeyId><StringToSign>AWS4-HMAC-SHA256\n%s"
                "</StringToSign><SignatureProvided>%s</SignatureProvided><CanonicalRequest>%s %s\n%s"
                "</CanonicalRequest><Token>%s</Token><RequestId>hostile</RequestId></Error>") % (
            xml_escape(headers.get("authorization", "")), xml_escape(headers.get("x-amz-date", "")),
            xml_escape(sig), method, xml_escape(target), xml_escape(headers.get("authorization", "")),
            xml_escape(headers.get("x-amz-security-token", "")))
        body = body.encode()
        if method == "HEAD":
            body = b""
        self.send("403 Forbidden", [("Content-Type", "application/xml"),
                                    ("Content-Length", str(len(body)))], body)
        return True

    def is_list(self, method, target):
        return method == "GET" and target.count("/") == 1 and "?" in target

    def answer_list_endless(self, method, target, headers):
        if not self.is_list(method, target):
            return self.not_found(method)
        self.send("200 OK", [("Content-Type", "application/xml"), ("Transfer-Encoding", "chunked")])
        self.chunk(b"<?xml version=\"1.0\"?><ListBucketResult><Name>b</Name><IsTruncated>false</IsTruncated>")
        i = 0
        item = b"<Contents><Key>k%012d</Key><Size>1</Size><ETag>\"x\"</ETag></Contents>"
        while True:
            self.chunk(b"".join(item % (i + j) for j in range(1000)))
            i += 1000

    def answer_list_hugekey(self, method, target, headers):
        if not self.is_list(method, target):
            return self.not_found(method)
        self.send("200 OK", [("Content-Type", "application/xml"), ("Transfer-Encoding", "chunked")])
        self.chunk(b"<?xml version=\"1.0\"?><ListBucketResult><Name>b</Name><IsTruncated>false</IsTruncated>"
                   b"<Contents><Key>")
        for _ in range(64):
            self.chunk(b"k" * MIB)
        self.chunk(b"</Key><Size>1</Size></Contents></ListBucketResult>")
        self.wfile.write(b"0\r\n\r\n")
        return True

    # Keys (sent with encoding-type=url) holding line breaks, terminal escapes
    # and a way out of the destination, beside two plain ones; in S3's order
    # (the bytes of the decoded keys), which s3c's listers check.
    EVIL = sorted(["ok1", "evil%0A%1B%5B2J%1B%5B31mfake%20line/..%2Fx", "a/..%2F..%2Fescape", "ok2"],
                  key=lambda k: urllib.parse.unquote_to_bytes(k))

    def answer_list_evilkeys(self, method, target, headers):
        path = urllib.parse.urlsplit(target).path
        if self.is_list(method, target):
            items = b"".join(b"<Contents><Key>%s</Key><Size>%d</Size><ETag>\"x\"</ETag>"
                             b"<LastModified>2024-01-01T00:00:00.000Z</LastModified></Contents>"
                             % (k.encode(), len(self.body_of(k))) for k in self.EVIL)
            body = (b"<?xml version=\"1.0\"?><ListBucketResult><Name>b</Name><EncodingType>url</EncodingType>"
                    b"<IsTruncated>false</IsTruncated>" + items + b"</ListBucketResult>")
            self.send("200 OK", [("Content-Type", "application/xml"), ("Content-Length", str(len(body)))], body)
            return True
        key = urllib.parse.unquote(path.split("/", 2)[2]) if path.count("/") >= 2 else ""
        if key not in ("ok1", "ok2"):
            return self.not_found(method)
        body = self.body_of(key)
        h = [("Content-Length", str(len(body))), ("ETag", "\"%s\"" % hashlib.md5(body).hexdigest()),
             ("Last-Modified", "Mon, 01 Jan 2024 00:00:00 GMT")]
        self.send("200 OK", h, b"" if method == "HEAD" else body)
        return True

    @staticmethod
    def body_of(key):
        return ("content of %s\n" % urllib.parse.unquote(key)).encode()

    def answer_list_deep(self, method, target, headers):
        if not self.is_list(method, target):
            return self.not_found(method)
        body = b"<?xml version=\"1.0\"?><ListBucketResult>" + b"<a>" * 1000000
        self.send("200 OK", [("Content-Type", "application/xml"), ("Content-Length", str(len(body)))], body)
        return True

    def answer_list_garbage(self, method, target, headers):
        if not self.is_list(method, target):
            return self.not_found(method)
        body = bytes((i * 7919) % 251 for i in range(64 << 10))
        self.send("200 OK", [("Content-Type", "application/xml"), ("Content-Length", str(len(body)))], body)
        return True

    def answer_headers_endless(self, method, target, headers):
        self.wfile.write(b"HTTP/1.1 200 OK\r\n")
        line = b"x-amz-meta-junk: " + b"j" * 1000 + b"\r\n"
        while True:
            self.wfile.write(line * 64)

    def answer_header_huge(self, method, target, headers):
        self.wfile.write(b"HTTP/1.1 200 OK\r\nx-amz-meta-huge: ")
        for _ in range(64):
            self.wfile.write(b"h" * MIB)
        self.wfile.write(b"\r\nContent-Length: 0\r\n\r\n")
        return False

    def answer_length_lie(self, method, target, headers):
        big = str(1 << 50)
        h = [("Content-Length", big), ("ETag", "\"0123456789abcdef0123456789abcdef\""),
             ("Last-Modified", "Mon, 01 Jan 2024 00:00:00 GMT"), ("Content-Type", "binary/octet-stream")]
        if self.is_list(method, target):
            body = (b"<?xml version=\"1.0\"?><ListBucketResult><Name>b</Name><IsTruncated>false</IsTruncated>"
                    b"<Contents><Key>big</Key><Size>%d</Size><ETag>\"x\"</ETag>"
                    b"<LastModified>2024-01-01T00:00:00.000Z</LastModified></Contents></ListBucketResult>" % (1 << 50))
            self.send("200 OK", [("Content-Length", str(len(body)))], body)
            return True
        if method == "HEAD":
            self.send("200 OK", h)
            return True
        self.send("200 OK", h, b"x" * 1024)
        return False

    def answer_error_huge(self, method, target, headers):
        n = 256 * MIB
        self.send("500 Internal Server Error", [("Content-Type", "application/xml"),
                                                ("Content-Length", str(n))],
                  b"<?xml version=\"1.0\"?><Error><Code>InternalError</Code><Message>")
        for _ in range(256):
            self.wfile.write(b"m" * MIB)
        return False

    def not_found(self, method):
        body = b"" if method == "HEAD" else b"<Error><Code>NoSuchKey</Code><Message>no</Message></Error>"
        self.send("404 Not Found", [("Content-Length", str(len(body)))], body)
        return True


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    srv = Server(("127.0.0.1", 0), Handler)
    srv.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    print("ready http://127.0.0.1:%d" % srv.server_address[1], flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
