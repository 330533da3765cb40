#!/usr/bin/env python3
"""ETags of bodies uploaded side by side, in pieces, in every framing.

usage: etags.py URL BUCKET ACCESS SECRET [REGION]

s3emu hashes the MD5 of the bodies it receives eight at a time after each
round of its loops, a body's bytes waiting in pieces meanwhile. This sends
128 PutObjects on 16 connections at once, each body written in pieces of
random sizes with short pauses, and every connection sends the first half
of its body and waits for all the others to have sent theirs (so the
emulator holds sixteen bodies half received at once), in three
framings: a plain Content-Length body (UNSIGNED-PAYLOAD), aws-chunked with
random chunk sizes from 1 byte to 200 KiB and a CRC32 trailer, and aws-chunked
with chunk signatures. Sizes run from 0 to 3 MiB, some of them on and
around block boundaries. Every ETag must be the MD5 of the bytes sent, and
the object read back must be those bytes; and the emulator's stats must
show every body's MD5 taken as it arrived (md5.bytes grew by the bytes sent:
none hashed a second time after decoding) and, on a CPU with AVX2, some of
it side by side. Prints "ok N" or what differed, and exits 1 on a
difference.
"""
import base64, datetime, hashlib, hmac, http.client, json, random, sys, threading, time, urllib.parse, zlib

url, bucket, ak, sk = sys.argv[1:5]
region = sys.argv[5] if len(sys.argv) > 5 else "us-east-1"
host = urllib.parse.urlparse(url).netloc
SHA_EMPTY = hashlib.sha256(b"").hexdigest()


def hm(k, m):
    return hmac.new(k, m.encode(), hashlib.sha256).digest()


def sign(method, path, headers, content_sha):
    now = datetime.datetime.now(datetime.timezone.utc)
    amz_date, day = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
    scope = f"{day}/{region}/s3/aws4_request"
    headers["x-amz-date"] = amz_date
    headers["x-amz-content-sha256"] = content_sha
    names = sorted(headers)
    creq = "\n".join([method, path, "", "".join(f"{n}:{headers[n]}\n" for n in names), ";".join(names), content_sha])
    sts = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(creq.encode()).hexdigest()])
    ksign = hm(hm(hm(hm(("AWS4" + sk).encode(), day), region), "s3"), "aws4_request")
    seed = hmac.new(ksign, sts.encode(), hashlib.sha256).hexdigest()
    headers["authorization"] = (f"AWS4-HMAC-SHA256 Credential={ak}/{scope}, "
                                f"SignedHeaders={';'.join(names)}, Signature={seed}")
    return ksign, seed, amz_date, scope


def chunk_sizes(rng, n):
    out = []
    while n > 0:
        c = min(n, rng.choice([1, 7, 63, 64, 65, 1000, 4096, 65536, rng.randint(1, 200 << 10)]))
        out.append(c)
        n -= c
    return out


def framed(rng, data, signed, headers, path):
    """aws-chunked body (signed chunks, or unsigned with a CRC32 trailer)."""
    headers["content-encoding"] = "aws-chunked"
    headers["x-amz-decoded-content-length"] = str(len(data))
    if not signed:
        headers["x-amz-trailer"] = "x-amz-checksum-crc32"
    sizes = chunk_sizes(rng, len(data)) + [0]
    # Content-Length is signed, so the body's length comes first (a signature is 64 hex digits).
    ext_len = len(";chunk-signature=") + 64 if signed else 0
    length = sum(len(f"{n:x}") + ext_len + 2 + n + (2 if n else 0) for n in sizes)
    crc = base64.b64encode(zlib.crc32(data).to_bytes(4, "big")).decode()
    length += 2 if signed else len(f"x-amz-checksum-crc32:{crc}\r\n\r\n")
    headers["content-length"] = str(length)
    content_sha = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD" if signed else "STREAMING-UNSIGNED-PAYLOAD-TRAILER"
    ksign, prev, amz_date, scope = sign("PUT", path, headers, content_sha)
    out, at = [], 0
    for n in sizes:
        c = data[at:at + n]
        at += n
        ext = ""
        if signed:
            s = "\n".join(["AWS4-HMAC-SHA256-PAYLOAD", amz_date, scope, prev, SHA_EMPTY, hashlib.sha256(c).hexdigest()])
            prev = hmac.new(ksign, s.encode(), hashlib.sha256).hexdigest()
            ext = f";chunk-signature={prev}"
        out.append(f"{n:x}{ext}\r\n".encode() + c + (b"\r\n" if n else b""))
    out.append(b"\r\n" if signed else f"x-amz-checksum-crc32:{crc}\r\n\r\n".encode())
    body = b"".join(out)
    assert len(body) == length
    return body


def put(conn, rng, key, data, mode):
    path = f"/{bucket}/{key}"
    headers = {"host": host}
    if mode == "plain":
        headers["content-length"] = str(len(data))
        sign("PUT", path, headers, "UNSIGNED-PAYLOAD")
        body = data
    else:
        body = framed(rng, data, mode == "signed", headers, path)
    conn.putrequest("PUT", path, skip_host=True, skip_accept_encoding=True)
    for k, v in headers.items():
        conn.putheader(k, v)
    conn.endheaders()
    at = len(body) // 2  # the first half, then every connection waits for the others
    conn.send(body[:at])
    barrier.wait()
    while at < len(body):  # in pieces, now and then a pause, so bodies interleave
        n = rng.choice([1, 100, 4096, 65536, 300000])
        conn.send(body[at:at + n])
        at += n
        if rng.random() < 0.1:
            time.sleep(0.002)
    r = conn.getresponse()
    r.read()
    return r.status, (r.getheader("ETag") or "").strip('"')


def get(conn, key):
    path = f"/{bucket}/{key}"
    headers = {"host": host}
    sign("GET", path, headers, SHA_EMPTY)
    conn.request("GET", path, headers=headers)
    r = conn.getresponse()
    return r.status, r.read()


def md5_stats():
    conn = http.client.HTTPConnection(host, timeout=10)
    conn.request("GET", "/_s3emu/stats")
    return json.loads(conn.getresponse().read())["md5"]


N_CONNS = 16
barrier = threading.Barrier(N_CONNS, timeout=60)
errors, done, sent = [], [0], [0]
lock = threading.Lock()


def worker(w):
    rng = random.Random(1000 + w)
    conn = http.client.HTTPConnection(host, timeout=60)
    for i in range(8):
        size = rng.choice([0, 1, 63, 64, 65, 4095, 65536, 65537, 1 << 20, rng.randint(1, 3 << 20)])
        if i == 0:  # every connection holds half of 200,000 bytes at the first barrier: bodies to hash side by side
            size = 200000
        data = rng.randbytes(size)
        mode = ["plain", "trailer", "signed"][(w + i) % 3]
        key = f"etags/{w}/{i}"
        st, etag = put(conn, rng, key, data, mode)
        want = hashlib.md5(data).hexdigest()
        problem = None
        if st != 200:
            problem = f"PUT status {st}"
        elif etag != want:
            problem = f"ETag {etag}, want {want}"
        else:
            st, got = get(conn, key)
            if st != 200 or got != data:
                problem = f"GET status {st}, {len(got)} bytes back (want the {size} sent)"
        with lock:
            sent[0] += size
            if problem:
                errors.append(f"{key} ({mode}, {size} bytes): {problem}")
            else:
                done[0] += 1


before = md5_stats()
threads = [threading.Thread(target=worker, args=(w,)) for w in range(N_CONNS)]
for t in threads:
    t.start()
for t in threads:
    t.join()
after = md5_stats()
hashed = after["bytes"] - before["bytes"]
side = after["side_by_side"] - before["side_by_side"]
if hashed != sent[0]:
    errors.append(f"the emulator hashed {hashed} bytes as they arrived, {sent[0]} were sent")
avx2 = any(ln.startswith("flags") and " avx2" in ln for ln in open("/proc/cpuinfo"))
if avx2 and side <= 0:
    errors.append("no MD5 was taken side by side (this CPU has AVX2)")
print(f"{hashed} bytes hashed as they arrived, {side} of them side by side")
for e in errors:
    print("bad", e)
print(f"ok {done[0]}" if not errors else f"{len(errors)} of {len(errors) + done[0]} differ")
sys.exit(1 if errors else 0)
