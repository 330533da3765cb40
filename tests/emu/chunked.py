#!/usr/bin/env python3
"""Upload one object with aws-chunked framing, as SDKs do, and print the HTTP status.

usage: chunked.py URL BUCKET KEY MODE ACCESS SECRET [REGION]
MODE: signed      STREAMING-AWS4-HMAC-SHA256-PAYLOAD (chunk signatures)
      badsig      the same with one chunk signature broken (expect 403)
      trailer     STREAMING-UNSIGNED-PAYLOAD-TRAILER with an x-amz-checksum-crc32 trailer
      badcrc      the same with a wrong trailer checksum (expect 400 BadDigest)
The payload is 66560 bytes of 'a' (AWS's published chunked-upload example size).
"""
import base64, datetime, hashlib, hmac, http.client, sys, urllib.parse, zlib

url, bucket, key, mode, ak, sk = sys.argv[1:7]
region = sys.argv[7] if len(sys.argv) > 7 else "us-east-1"
u = urllib.parse.urlparse(url)
host = u.netloc
data = b"a" * 66560
chunks = [data[i:i + 65536] for i in range(0, len(data), 65536)] + [b""]
now = datetime.datetime.now(datetime.timezone.utc)
amz_date, day = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
scope = f"{day}/{region}/s3/aws4_request"
path = "/" + bucket + "/" + urllib.parse.quote(key, safe="/~")
sha_empty = hashlib.sha256(b"").hexdigest()

def hm(k, m):
    return hmac.new(k, m.encode(), hashlib.sha256).digest()

kdate = hm(("AWS4" + sk).encode(), day)
ksign = hm(hm(hm(kdate, region), "s3"), "aws4_request")
signed_stream = mode in ("signed", "badsig")
content_sha = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD" if signed_stream else "STREAMING-UNSIGNED-PAYLOAD-TRAILER"

# Build the body first: Content-Length is signed.
def frame(sigs):
    out = b""
    for c, s in zip(chunks, sigs):
        ext = f";chunk-signature={s}" if s else ""
        out += f"{len(c):x}{ext}\r\n".encode() + c + (b"\r\n" if c else b"")
    if signed_stream:
        out += b"\r\n"
    else:
        crc = zlib.crc32(data)
        if mode == "badcrc":
            crc ^= 1
        b64 = base64.b64encode(crc.to_bytes(4, "big")).decode()
        out += f"x-amz-checksum-crc32:{b64}\r\n\r\n".encode()
    return out

sig_len = 64 if signed_stream else 0
body_len = len(frame(["0" * sig_len if sig_len else None] * len(chunks)))
headers = {
    "host": host,
    "x-amz-date": amz_date,
    "x-amz-content-sha256": content_sha,
    "content-encoding": "aws-chunked",
    "x-amz-decoded-content-length": str(len(data)),
    "content-length": str(body_len),
}
if not signed_stream:
    headers["x-amz-trailer"] = "x-amz-checksum-crc32"
names = sorted(headers)
creq = "\n".join(["PUT", path, "", "".join(f"{n}:{headers[n]}\n" for n in names), ";".join(names), content_sha])
sts = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(creq.encode()).hexdigest()])
seed = hmac.new(ksign, sts.encode(), hashlib.sha256).hexdigest()
sigs, prev = [], seed
for i, c in enumerate(chunks):
    if not signed_stream:
        sigs.append(None)
        continue
    s = "\n".join(["AWS4-HMAC-SHA256-PAYLOAD", amz_date, scope, prev, sha_empty, hashlib.sha256(c).hexdigest()])
    sig = hmac.new(ksign, s.encode(), hashlib.sha256).hexdigest()
    prev = sig
    if mode == "badsig" and i == 1:
        sig = ("0" if sig[0] != "0" else "1") + sig[1:]
    sigs.append(sig)
body = frame(sigs)
assert len(body) == body_len
headers["authorization"] = (f"AWS4-HMAC-SHA256 Credential={ak}/{scope}, "
                            f"SignedHeaders={';'.join(names)}, Signature={seed}")
conn = http.client.HTTPConnection(host, timeout=10)
conn.request("PUT", path, body=body, headers=headers)
r = conn.getresponse()
print(r.status, r.read().decode(errors="replace").replace("\n", " ")[:300])
