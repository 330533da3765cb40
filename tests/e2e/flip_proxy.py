#!/usr/bin/env python3
"""flip_proxy.py UPSTREAM MODE N LOG: a relay on 127.0.0.1 in front of a store
(UPSTREAM is http://HOST:PORT) that damages upload bodies on the way, as a bad
network card or middlebox would. Prints "ready http://HOST:PORT" once it
listens, then relays (two threads per connection) until killed.

Requests from the client are read as HTTP/1.1 (headers, then Content-Length
bytes of body) and passed on; answers go back untouched. One bit is flipped in
the body of the first N PUT requests (N < 0: every one) that MODE picks:
  chunked   aws-chunked bodies: a byte inside the first chunk's data, so the
            framing stays valid and only the trailing checksum can tell
  plain     other bodies of more than 1 KiB: the middle byte
or, with MODE
  get       in the body of the first N answers to GETs (200 or 206, with a
            body): the middle byte, on the way back to the client
Each flip is logged to LOG as one line: "flip METHOD TARGET".
A signature does not cover these bytes (UNSIGNED-PAYLOAD and
STREAMING-UNSIGNED-PAYLOAD-TRAILER): only a checksum can catch the damage.
"""
import collections
import socket
import sys
import threading
import urllib.parse

UP = urllib.parse.urlsplit(sys.argv[1])
MODE = sys.argv[2]
LEFT = [int(sys.argv[3])]
LOG = open(sys.argv[4], "a", buffering=1)
LOCK = threading.Lock()
HEAD_MAX = 1 << 20


def take_flip(method, target, headers, length):
    """Whether this request's body gets a flipped bit (counts it)."""
    if MODE == "get" or method != "PUT" or length == 0:
        return False
    chunked = "aws-chunked" in headers.get("content-encoding", "").lower()
    if MODE == "chunked" and not chunked:
        return False
    if MODE == "plain" and (chunked or length <= 1024):
        return False
    with LOCK:
        if LEFT[0] == 0:
            return False
        if LEFT[0] > 0:
            LEFT[0] -= 1
    LOG.write("flip %s %s\n" % (method, target))
    return True


def relay_answers(up, down):
    try:
        while True:
            b = up.recv(65536)
            if not b:
                break
            down.sendall(b)
    except OSError:
        pass
    for s in (up, down):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def take_get_flip(method, target):
    """Whether the answer to this GET gets a flipped bit (counts it)."""
    if MODE != "get" or method != "GET":
        return False
    with LOCK:
        if LEFT[0] == 0:
            return False
        if LEFT[0] > 0:
            LEFT[0] -= 1
    LOG.write("flip %s %s\n" % (method, target))
    return True


def recv_exact(sock, buf, n):
    """n bytes: those in buf first, then from sock. (bytes, rest of buf), or (None, buf)."""
    while len(buf) < n:
        b = sock.recv(65536)
        if not b:
            return None, buf
        buf += b
    return buf[:n], buf[n:]


def relay_answers_flipping(up, down, asked):
    """MODE get: answers read one by one (the request each answers, in order,
    from 'asked'), bodies of Content-Length or chunked; a GET's may be flipped."""
    buf = b""
    try:
        while True:
            head, buf = recv_until_headers(up, buf)
            if head is None:
                break
            lines = head.decode("latin-1").split("\r\n")
            status = int(lines[0].split(" ")[1])
            headers = {}
            for h in lines[1:]:
                name, _, value = h.partition(":")
                headers[name.strip().lower()] = value.strip()
            if 100 <= status < 200:
                down.sendall(head)  # (the final answer to the same request follows)
                continue
            method, target = asked.popleft() if asked else ("?", "?")
            if method == "HEAD" or status in (204, 304):
                down.sendall(head)
                continue
            if "chunked" in headers.get("transfer-encoding", "").lower():
                down.sendall(head)
                while True:
                    line, buf = recv_until_crlf(up, buf)
                    if line is None:
                        return
                    size = int(line.split(b";")[0], 16)
                    data, buf = recv_exact(up, buf, size + 2)
                    if data is None:
                        return
                    down.sendall(line + data)
                    if size == 0:
                        break  # (no trailers from these stores)
                continue
            length = int(headers.get("content-length", "0") or 0)
            body, buf = recv_exact(up, buf, length)
            if body is None:
                return
            if length and status in (200, 206) and take_get_flip(method, target):
                body = bytearray(body)
                body[length // 2] ^= 0x01
                body = bytes(body)
            down.sendall(head + body)
    except (OSError, ValueError, IndexError):
        pass
    for s in (up, down):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def recv_until_crlf(sock, buf):
    while b"\r\n" not in buf:
        b = sock.recv(65536)
        if not b:
            return None, buf
        buf += b
    end = buf.index(b"\r\n") + 2
    return buf[:end], buf[end:]


def recv_until_headers(sock, buf):
    while b"\r\n\r\n" not in buf:
        if len(buf) > HEAD_MAX:
            return None, buf
        b = sock.recv(65536)
        if not b:
            return None, buf
        buf += b
    end = buf.index(b"\r\n\r\n") + 4
    return buf[:end], buf[end:]


def relay_requests(down, up, asked):
    buf = b""
    try:
        while True:
            head, buf = recv_until_headers(down, buf)
            if head is None:
                break
            lines = head.decode("latin-1").split("\r\n")
            method, target = lines[0].split(" ")[:2]
            headers = {}
            for h in lines[1:]:
                name, _, value = h.partition(":")
                headers[name.strip().lower()] = value.strip()
            length = int(headers.get("content-length", "0") or 0)
            asked.append((method, target))
            up.sendall(head)
            flip = take_flip(method, target, headers, length)
            body = bytearray()
            while len(body) < length:
                if buf:
                    take = buf[: length - len(body)]
                    buf = buf[len(take):]
                    body += take
                    if not flip:
                        up.sendall(take)
                    continue
                b = down.recv(65536)
                if not b:
                    return
                buf = b
            if flip:
                if MODE == "chunked":
                    at = body.index(b"\r\n") + 2 + 10
                else:
                    at = length // 2
                body[at] ^= 0x01
                up.sendall(bytes(body))
    except OSError:
        pass
    finally:
        for s in (up, down):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def serve(down):
    up = socket.create_connection((UP.hostname, UP.port))
    asked = collections.deque()  # (method, target) of each request sent, for MODE get
    if MODE == "get":
        t = threading.Thread(target=relay_answers_flipping, args=(up, down, asked), daemon=True)
    else:
        t = threading.Thread(target=relay_answers, args=(up, down), daemon=True)
    t.start()
    relay_requests(down, up, asked)
    t.join()
    up.close()
    down.close()


def main():
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", 0))
    ls.listen(64)
    print("ready http://127.0.0.1:%d" % ls.getsockname()[1], flush=True)
    while True:
        c, _ = ls.accept()
        threading.Thread(target=serve, args=(c,), daemon=True).start()


main()
