#!/usr/bin/env python3
"""s3check.py: look at a bucket without s3c, to check what s3c did to it.

An independent reader (Python's standard library: its own SigV4, http.client,
xml.etree), so a bug in s3c cannot hide in the check. Talks to the store
named by S3CHECK_ENDPOINT (http://host:port), S3CHECK_ACCESS_KEY,
S3CHECK_SECRET_KEY, S3CHECK_REGION (default us-east-1); path-style.

  s3check.py sums BUCKET PREFIX    "SHA256  KEY-WITHOUT-PREFIX" per object,
                                   sorted by key (as sha256sum over a tree)
  s3check.py keys BUCKET PREFIX    the keys under PREFIX, one a line
  s3check.py uploads BUCKET        "UPLOAD-ID KEY" of every multipart upload
                                   in progress (ListMultipartUploads)

Exit 0 on success; any HTTP error is fatal (exit 1, one line on stderr).
"""
import concurrent.futures
import datetime
import hashlib
import hmac
import http.client
import os
import sys
import threading
import urllib.parse
import xml.etree.ElementTree as ET

EP = urllib.parse.urlparse(os.environ["S3CHECK_ENDPOINT"])
AK = os.environ["S3CHECK_ACCESS_KEY"]
SK = os.environ["S3CHECK_SECRET_KEY"]
REGION = os.environ.get("S3CHECK_REGION", "us-east-1")
NS = "{http://s3.amazonaws.com/doc/2006-03-01/}"
EMPTY_SHA = hashlib.sha256(b"").hexdigest()


def quote(s, safe="-_.~"):
    return urllib.parse.quote(s, safe=safe)


def sign(method, path, query):
    """Headers for a SigV4-signed request; path is already encoded."""
    now = datetime.datetime.now(datetime.timezone.utc)
    amz_date, day = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
    host = EP.netloc
    canon_q = "&".join("%s=%s" % (quote(k), quote(v)) for k, v in sorted(query.items()))
    hdrs = {"host": host, "x-amz-content-sha256": EMPTY_SHA, "x-amz-date": amz_date}
    signed = ";".join(sorted(hdrs))
    creq = "\n".join([method, path, canon_q] + ["%s:%s" % (k, hdrs[k]) for k in sorted(hdrs)] +
                     ["", signed, EMPTY_SHA])
    scope = "%s/%s/s3/aws4_request" % (day, REGION)
    sts = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(creq.encode()).hexdigest()])
    k = ("AWS4" + SK).encode()
    for part in (day, REGION, "s3", "aws4_request"):
        k = hmac.new(k, part.encode(), hashlib.sha256).digest()
    sig = hmac.new(k, sts.encode(), hashlib.sha256).hexdigest()
    hdrs["Authorization"] = "AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=%s, Signature=%s" % (
        AK, scope, signed, sig)
    del hdrs["host"]
    return path + ("?" + canon_q if canon_q else ""), hdrs


_local = threading.local()


def request(method, path, query=None, sink=None):
    """One request on this thread's kept-alive connection; returns the body
    (or feeds it to sink and returns b""). Retries once on a dropped connection."""
    for attempt in (0, 1):
        conn = getattr(_local, "conn", None)
        if conn is None:
            conn = _local.conn = http.client.HTTPConnection(EP.hostname, EP.port, timeout=60)
        url, hdrs = sign(method, path, query or {})
        try:
            conn.request(method, url, headers=hdrs)
            resp = conn.getresponse()
            if resp.status >= 300:
                body = resp.read()
                sys.exit("s3check: %s %s: HTTP %d %s" % (method, path, resp.status, body[:300]))
            if sink is None:
                return resp.read()
            while True:
                chunk = resp.read(1 << 20)
                if not chunk:
                    return b""
                sink(chunk)
        except (http.client.HTTPException, ConnectionError):
            conn.close()
            _local.conn = None
            if attempt:
                raise
    return b""


def list_keys(bucket, prefix):
    keys, token = [], None
    while True:
        q = {"list-type": "2", "prefix": prefix}
        if token:
            q["continuation-token"] = token
        root = ET.fromstring(request("GET", "/" + quote(bucket), q))
        keys += [c.find(NS + "Key").text for c in root.findall(NS + "Contents")]
        if root.findtext(NS + "IsTruncated") != "true":
            return keys
        token = root.findtext(NS + "NextContinuationToken")


def list_uploads(bucket):
    out, q = [], {"uploads": ""}
    while True:
        root = ET.fromstring(request("GET", "/" + quote(bucket), q))
        out += ["%s %s" % (u.findtext(NS + "UploadId"), u.findtext(NS + "Key"))
                for u in root.findall(NS + "Upload")]
        if root.findtext(NS + "IsTruncated") != "true":
            return out
        q = {"uploads": "", "key-marker": root.findtext(NS + "NextKeyMarker") or "",
             "upload-id-marker": root.findtext(NS + "NextUploadIdMarker") or ""}


def sha256_of(bucket, key):
    h = hashlib.sha256()
    request("GET", "/" + quote(bucket) + "/" + quote(key, safe="-_.~/"), sink=h.update)
    return h.hexdigest()


def main():
    cmd, bucket = sys.argv[1], sys.argv[2]
    if cmd == "uploads":
        for u in list_uploads(bucket):
            print(u)
        return
    prefix = sys.argv[3] if len(sys.argv) > 3 else ""
    keys = sorted(list_keys(bucket, prefix), key=lambda k: k.encode())
    if cmd == "keys":
        for k in keys:
            print(k)
        return
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        sums = list(pool.map(lambda k: sha256_of(bucket, k), keys))
    for k, s in zip(keys, sums):
        print("%s  %s" % (s, k[len(prefix):]))


if __name__ == "__main__":
    main()
