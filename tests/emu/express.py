#!/usr/bin/env python3
"""S3 Express One Zone checks of s3emu: directory buckets, CreateSession,
session-signed requests, expiry, ReadOnly sessions, unsorted listings, the
delimiter rules, ListDirectoryBuckets, checksums and the other differences
(tools/s3emu/README.md, "S3 Express One Zone"). Standard library only: it
signs SigV4 itself, so it runs where no SDK knows S3 Express.

usage: express.py URL ACCESS SECRET
Prints "ok NAME" or "FAIL NAME (detail)" per check; exit status 0 if none failed.
"""
import base64, datetime, hashlib, hmac, http.client, json, re, sys, threading, time, urllib.parse, zlib

URL, AK, SK = sys.argv[1:4]
REGION = "us-east-1"
HOST = urllib.parse.urlparse(URL).netloc
failed = 0


def check(name, cond, detail=""):
    global failed
    if cond:
        print("ok   express: " + name)
    else:
        failed += 1
        print("FAIL express: %s (%s)" % (name, str(detail)[:300]))


def hm(k, m):
    return hmac.new(k, m.encode(), hashlib.sha256).digest()


def q_encode(s):
    return urllib.parse.quote(s, safe="-_.~")


def request(method, path, query=None, body=b"", headers=None, ak=AK, sk=SK, token=None,
            service="s3express", host=HOST, sign=True):
    """One signed request; returns (status, headers dict (lower-case), body bytes)."""
    query = query or {}
    headers = dict(headers or {})
    now = datetime.datetime.now(datetime.timezone.utc)
    amz_date, day = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
    qs = "&".join("%s=%s" % (q_encode(k), q_encode(v)) for k, v in sorted(query.items()))
    epath = urllib.parse.quote(path, safe="/-_.~")
    headers["host"] = host
    headers["x-amz-date"] = amz_date
    headers["x-amz-content-sha256"] = hashlib.sha256(body).hexdigest()
    if token:
        headers["x-amz-s3session-token"] = token
    if sign:
        names = sorted(k.lower() for k in headers)
        lower = {k.lower(): str(v).strip() for k, v in headers.items()}
        creq = "\n".join([method, epath, qs, "".join("%s:%s\n" % (n, lower[n]) for n in names),
                          ";".join(names), headers["x-amz-content-sha256"]])
        scope = "%s/%s/%s/aws4_request" % (day, REGION, service)
        sts = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(creq.encode()).hexdigest()])
        key = hm(hm(hm(hm(("AWS4" + sk).encode(), day), REGION), service), "aws4_request")
        sig = hmac.new(key, sts.encode(), hashlib.sha256).hexdigest()
        headers["authorization"] = "AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=%s, Signature=%s" % (
            ak, scope, ";".join(names), sig)
    conn = http.client.HTTPConnection(HOST, timeout=30)
    conn.request(method, epath + ("?" + qs if qs else ""), body=body, headers=headers)
    r = conn.getresponse()
    data = r.read()
    conn.close()
    return r.status, {k.lower(): v for k, v in r.getheaders()}, data


def tag(xml, name):
    m = re.search(r"<%s>(.*?)</%s>" % (name, name), xml.decode() if isinstance(xml, bytes) else xml, re.S)
    return m.group(1) if m else None


def tags(xml, name):
    return re.findall(r"<%s>(.*?)</%s>" % (name, name), xml.decode())


def code(resp):
    return "%d %s" % (resp[0], tag(resp[2], "Code") or "")


def dir_config(zone, loc_type="AvailabilityZone", red="SingleAvailabilityZone"):
    return ('<CreateBucketConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">'
            "<Location><Name>%s</Name><Type>%s</Type></Location>"
            "<Bucket><DataRedundancy>%s</DataRedundancy><Type>Directory</Type></Bucket>"
            "</CreateBucketConfiguration>" % (zone, loc_type, red)).encode()


def admin(settings):
    conn = http.client.HTTPConnection(HOST, timeout=10)
    conn.request("POST", "/_s3emu/config", body=settings.encode())
    conn.getresponse().read()
    conn.close()


def stats():
    conn = http.client.HTTPConnection(HOST, timeout=10)
    conn.request("GET", "/_s3emu/stats")
    d = json.loads(conn.getresponse().read())
    conn.close()
    return d


class Session:
    def __init__(self, bucket, mode=None):
        h = {"x-amz-create-session-mode": mode} if mode else {}
        self.resp = request("GET", "/" + bucket, {"session": ""}, headers=h)
        x = self.resp[2]
        self.ak, self.sk, self.token = tag(x, "AccessKeyId"), tag(x, "SecretAccessKey"), tag(x, "SessionToken")
        self.exp = tag(x, "Expiration")

    def __call__(self, method, path, query=None, body=b"", headers=None, **kw):
        return request(method, path, query, body, headers, ak=self.ak, sk=self.sk, token=self.token, **kw)


def crc_reflected(data, poly, bits):
    """A reflected CRC bit by bit (small bodies only): CRC32C and CRC64NVME, which zlib lacks."""
    ones = (1 << bits) - 1
    crc = ones
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (poly if crc & 1 else 0)
    return crc ^ ones


def crc32c(data):
    return crc_reflected(data, 0x82F63B78, 32)


def crc64nvme(data):
    return crc_reflected(data, 0x9A6C9329AC4BC9B5, 64)


def b64(n, size=4):
    return base64.b64encode(n.to_bytes(size, "big")).decode()


ZONE = "use1-az4"
B = "emu-x--%s--x-s3" % ZONE
B2 = "emu-y--%s--x-s3" % ZONE
P = "/" + B

# ---- directory buckets ----
check("CreateBucket of a directory bucket", request("PUT", P, body=dir_config(ZONE))[0] == 200)
r = request("PUT", "/" + B2, body=dir_config(ZONE))
check("a second one", r[0] == 200, code(r))
for bad in ("Bad--use1-az4--x-s3", "xn--b--use1-az4--x-s3", "b--use1--x-s3", "b.c--use1-az4--x-s3",
            "--use1-az4--x-s3", "b---use1-az4--x-s3"):
    r = request("PUT", "/" + bad, body=dir_config(ZONE))
    check("name %s refused" % bad, "InvalidBucketName" in code(r) or "InvalidArgument" in code(r), code(r))
r = request("PUT", "/emu-z--%s--x-s3" % ZONE)
check("CreateBucket without its configuration: 400", r[0] == 400, code(r))
r = request("PUT", "/emu-z--%s--x-s3" % ZONE, body=dir_config("use1-az5"))
check("CreateBucket with another zone than its name's: 400 InvalidArgument", code(r) == "400 InvalidArgument", code(r))
r = request("PUT", P, body=dir_config(ZONE))
check("CreateBucket again: 409", r[0] == 409, code(r))
r = request("PUT", "/emu-z--%s--x-s3" % ZONE, body=dir_config(ZONE), service="s3")
check("CreateBucket signed for s3, not s3express: 403", code(r) == "403 SignatureDoesNotMatch", code(r))
r = request("GET", "/", {"max-directory-buckets": "1000"})
names = tags(r[2], "Name")
check("ListDirectoryBuckets lists them", r[0] == 200 and B in names and B2 in names, r[2][:300])
check("ListDirectoryBuckets: root and BucketRegion", b"<ListAllMyDirectoryBucketsResult" in r[2] and
      tag(r[2], "BucketRegion") == REGION, r[2][:300])
r = request("GET", "/", service="s3")
check("ListBuckets does not list them", r[0] == 200 and B not in tags(r[2], "Name"), r[2][:300])
r = request("GET", "/")
check("GET / signed for s3express is ListDirectoryBuckets", b"ListAllMyDirectoryBucketsResult" in r[2], r[2][:200])
r = request("GET", "/", {"max-directory-buckets": "1"})
tok = tag(r[2], "ContinuationToken")
r2 = request("GET", "/", {"max-directory-buckets": "1", "continuation-token": tok or ""})
check("ListDirectoryBuckets pages", tok and tags(r[2], "Name") + tags(r2[2], "Name") == [B, B2] and
      not tag(r2[2], "ContinuationToken"), (r[2][:200], r2[2][:200]))
r = request("HEAD", P)
check("HeadBucket with IAM keys: zone headers", r[0] == 200 and r[1].get("x-amz-bucket-location-name") == ZONE, r)

# ---- CreateSession ----
before = stats()["ops"].get("CreateSession", 0)
s = Session(B)
check("CreateSession: 200 with credentials", s.resp[0] == 200 and s.ak and s.ak.startswith("ASIA") and s.sk and
      s.token and s.exp, s.resp[2][:300])
check("CreateSession counted in stats", stats()["ops"].get("CreateSession", 0) == before + 1)
r = request("GET", P, {"session": ""}, service="s3")
check("CreateSession signed for s3: 403", r[0] == 403, code(r))
r = s("GET", "/" + B2, {"session": ""})
check("CreateSession signed with session keys: 403", r[0] == 403, code(r))

# ---- objects, session-signed ----
data = b"hello express\n" * 100
r = s("PUT", P + "/d/one.txt", body=data)
check("session-signed PUT", r[0] == 200, code(r))
etag = r[1].get("etag", "")
check("ETag is not the MD5", re.fullmatch(r'"[0-9a-f]{32}"', etag) and etag.strip('"') != hashlib.md5(data).hexdigest(), etag)
check("PUT answers the CRC32 it stored", r[1].get("x-amz-checksum-crc32") == b64(zlib.crc32(data)), r[1])
r = s("GET", P + "/d/one.txt", headers={"x-amz-checksum-mode": "ENABLED"})
check("session-signed GET", r[0] == 200 and r[2] == data, code(r))
check("GET: CRC32 with checksum mode", r[1].get("x-amz-checksum-crc32") == b64(zlib.crc32(data)), r[1])
check("GET: EXPRESS_ONEZONE", r[1].get("x-amz-storage-class") == "EXPRESS_ONEZONE", r[1])
r = s("PUT", P + "/d/c.txt", body=data, headers={"x-amz-checksum-crc32c": b64(crc32c(data))})
r2 = s("HEAD", P + "/d/c.txt", headers={"x-amz-checksum-mode": "ENABLED"})
check("the checksum the client sent is the one kept (CRC32C)", r[0] == 200 and
      r2[1].get("x-amz-checksum-crc32c") == b64(crc32c(data)) and "x-amz-checksum-crc32" not in r2[1], r2[1])
r = s("PUT", P + "/d/bad.txt", body=data, headers={"x-amz-checksum-crc32c": b64(crc32c(data) ^ 1)})
check("a wrong checksum: 400 BadDigest", code(r) == "400 BadDigest", code(r))
r = request("PUT", P + "/d/iam.txt", body=b"x")
check("IAM-signed PUT on a directory bucket: 403", code(r) == "403 AccessDenied", code(r))
r = request("PUT", P + "/d/copy.txt", headers={"x-amz-copy-source": B + "/d/one.txt"})
check("IAM-signed CopyObject is allowed", r[0] == 200 and b"<ETag>" in r[2], code(r))
r = s("PUT", P + "/d/s3.txt", body=b"x", service="s3")
check("session keys signed for s3: 403", r[0] == 403, code(r))
r = s("GET", "/" + B2 + "/d/one.txt")
check("a session of another bucket: 403", code(r) == "403 AccessDenied", code(r))
r = request("GET", P + "/d/one.txt", ak=s.ak, sk=s.sk)
check("session key without its token: 403 InvalidAccessKeyId", code(r) == "403 InvalidAccessKeyId", code(r))
r = request("GET", P + "/d/one.txt", ak=s.ak, sk=s.sk, token=s.token[:-1] + ("0" if s.token[-1] != "0" else "1"))
check("a forged token: 400 InvalidToken", code(r) == "400 InvalidToken", code(r))
r = s("GET", "/d/one.txt", host="%s.s3express-%s.%s.amazonaws.com" % (B, ZONE, REGION))
check("zonal virtual-hosted Host", r[0] == 200 and r[2] == data, code(r))

# ---- ReadOnly ----
ro = Session(B, "ReadOnly")
check("ReadOnly session created", ro.resp[0] == 200 and ro.ak, ro.resp[2][:200])
r = ro("GET", P + "/d/one.txt")
check("ReadOnly session reads", r[0] == 200 and r[2] == data, code(r))
r = ro("PUT", P + "/d/ro.txt", body=b"x")
check("ReadOnly session may not write: 403", code(r) == "403 AccessDenied", code(r))
r = ro("DELETE", P + "/d/one.txt")
check("ReadOnly session may not delete: 403", code(r) == "403 AccessDenied", code(r))
r = request("GET", P, {"session": ""}, headers={"x-amz-create-session-mode": "Sometimes"})
check("bad session mode: 400", r[0] == 400, code(r))

# ---- what differs ----
r = s("PUT", P + "/d/std.txt", body=b"x", headers={"x-amz-storage-class": "STANDARD"})
check("storage class other than EXPRESS_ONEZONE: 400 InvalidStorageClass", code(r) == "400 InvalidStorageClass", code(r))
r = s("PUT", P + "/d/ez.txt", body=b"x", headers={"x-amz-storage-class": "EXPRESS_ONEZONE"})
check("EXPRESS_ONEZONE accepted", r[0] == 200, code(r))
r = s("PUT", P + "/d/acl.txt", body=b"x", headers={"x-amz-acl": "public-read"})
check("ACL: 400 AccessControlListNotSupported", code(r) == "400 AccessControlListNotSupported", code(r))
r = s("GET", P + "/d/one.txt", {"acl": ""})
check("GetObjectAcl: 501", r[0] == 501, code(r))
r = s("GET", P)
check("ListObjects v1: 501", r[0] == 501, code(r))
r = s("GET", P, {"versions": ""})
check("ListObjectVersions: 501", r[0] == 501, code(r))
r = s("GET", P + "/d/one.txt", {"tagging": ""})
check("GetObjectTagging: 501", r[0] == 501, code(r))
r = s("PUT", P + "/d/tag.txt", body=b"x", headers={"x-amz-tagging": "a=b"})
check("x-amz-tagging on PutObject: 501", r[0] == 501, code(r))
r = s("GET", P + "/d/one.txt", {"versionId": "abc"})
check("versionId other than null: 400", r[0] == 400, code(r))

# ---- listings ----
keys = ["k%03d" % i for i in range(40)] + ["dir/a/%d" % i for i in range(5)] + ["dir/b", "top.txt"]
for k in keys:
    s("PUT", P + "/" + k, body=k.encode())
allkeys = set(keys) | {"d/one.txt", "d/c.txt", "d/copy.txt", "d/ez.txt"}
got, tok, pages = [], None, 0
while True:
    q = {"list-type": "2", "max-keys": "7"}
    if tok:
        q["continuation-token"] = tok
    r = s("GET", P, q)
    got += [urllib.parse.unquote(k) for k in tags(r[2], "Key")]
    tok = tag(r[2], "NextContinuationToken")
    pages += 1
    if not tok or pages > 50:
        break
check("ListObjectsV2 pages return every key once", sorted(got) == sorted(allkeys) and len(got) == len(allkeys),
      (len(got), len(allkeys)))
check("ListObjectsV2 is not in key order", got != sorted(got), got[:8])
r1 = s("GET", P, {"list-type": "2"})
r2 = s("GET", P, {"list-type": "2"})
check("its order is deterministic", tags(r1[2], "Key") == tags(r2[2], "Key"))
r = s("GET", P, {"list-type": "2", "delimiter": "/"})
check("delimiter '/': CommonPrefixes", sorted(tags(r[2], "Prefix"))[1:] == ["d/", "dir/"] and "top.txt" in tags(r[2], "Key"),
      r[2][:400])
r = s("GET", P, {"list-type": "2", "delimiter": "/", "prefix": "dir/"})
check("prefix dir/ with delimiter", sorted(tags(r[2], "Prefix"))[1:] == ["dir/a/"] and tags(r[2], "Key") == ["dir/b"],
      r[2][:400])
r = s("GET", P, {"list-type": "2", "delimiter": "/", "prefix": "di"})
check("prefix not ending in / with a delimiter: 400", code(r) == "400 InvalidArgument", code(r))
r = s("GET", P, {"list-type": "2", "delimiter": ","})
check("delimiter other than /: 400", code(r) == "400 InvalidArgument", code(r))
r = s("GET", P, {"list-type": "2", "prefix": "k01"})
check("prefix without delimiter may be any", sorted(tags(r[2], "Key")) == ["k%03d" % i for i in range(10, 20)], r[2][:300])
r = s("GET", P, {"list-type": "2", "start-after": "k001"})
check("start-after: 400", r[0] == 400, code(r))
for i in range(5):
    s("DELETE", P + "/dir/a/%d" % i)
r = s("GET", P, {"list-type": "2", "delimiter": "/", "prefix": "dir/"})
check("deleting the last object of a directory removes it", tags(r[2], "Prefix")[1:] == [] and
      tags(r[2], "Key") == ["dir/b"], r[2][:400])

# ---- DeleteObjects ----
def delete_xml(ks):
    return ("<Delete>" + "".join("<Object><Key>%s</Key></Object>" % k for k in ks) + "</Delete>").encode()


body = delete_xml(["k000", "   "])
r = s("POST", P, {"delete": ""}, body=body, headers={"content-md5": base64.b64encode(hashlib.md5(body).digest()).decode()})
check("DeleteObjects: a key of only white space: 400", code(r) == "400 InvalidArgument", code(r))
body = delete_xml(["k000", "k001"])
r = s("POST", P, {"delete": ""}, body=body, headers={"content-md5": base64.b64encode(hashlib.md5(body).digest()).decode()})
check("DeleteObjects", r[0] == 200 and sorted(tags(r[2], "Key")) == ["k000", "k001"], code(r))

# ---- multipart ----
r = s("POST", P + "/mp.bin", {"uploads": ""})
uid = tag(r[2], "UploadId")
check("CreateMultipartUpload", r[0] == 200 and uid, code(r))
part1, part2 = b"a" * (5 << 20), b"b" * 1000
e1 = s("PUT", P + "/mp.bin", {"partNumber": "1", "uploadId": uid}, body=part1)[1].get("etag")
e3 = s("PUT", P + "/mp.bin", {"partNumber": "3", "uploadId": uid}, body=part2)[1].get("etag")
cx = lambda ps: ("<CompleteMultipartUpload>" + "".join(
    "<Part><PartNumber>%d</PartNumber><ETag>%s</ETag></Part>" % p for p in ps) + "</CompleteMultipartUpload>").encode()
r = s("POST", P + "/mp.bin", {"uploadId": uid}, body=cx([(1, e1), (3, e3)]))
check("parts 1, 3: 400 InvalidPartOrder", code(r) == "400 InvalidPartOrder", code(r))
e2 = s("PUT", P + "/mp.bin", {"partNumber": "2", "uploadId": uid}, body=part2)[1].get("etag")
r = s("POST", P + "/mp.bin", {"uploadId": uid}, body=cx([(1, e1), (2, e2)]))
check("parts 1, 2: completed, ETag without -N", r[0] == 200 and re.fullmatch(r'"[0-9a-f]{32}"', tag(r[2], "ETag").replace("&quot;", '"')),
      r[2][:300])
r = s("HEAD", P + "/mp.bin", headers={"x-amz-checksum-mode": "ENABLED"})
check("multipart object: full-object CRC32", r[1].get("x-amz-checksum-crc32") == b64(zlib.crc32(part1 + part2)), r[1])

# ---- appends: PutObject with x-amz-write-offset-bytes ----
def append(key, off, body, headers=None):
    h = {"x-amz-write-offset-bytes": str(off)}
    h.update(headers or {})
    return s("PUT", P + "/" + key, body=body, headers=h)


def head_ck(key):
    return s("HEAD", P + "/" + key, headers={"x-amz-checksum-mode": "ENABLED"})[1]


ops_before = stats()["ops"].get("AppendObject", 0)
a1, a2, a3 = b"first bytes|", b"second, longer bytes|" * 3, b"third"
r = append("ap/log.txt", 0, a1, {"x-amz-meta-origin": "emu", "content-type": "text/x-log"})
check("append at 0 with no object creates it", r[0] == 200 and re.fullmatch(r'"[0-9a-f]{32}"', r[1].get("etag", "")),
      (code(r), r[1]))
check("... and answers its CRC32", r[1].get("x-amz-checksum-crc32") == b64(zlib.crc32(a1)), r[1])
r = append("ap/log.txt", len(a1), a2)
check("append at its size: 200, ETag -2", r[0] == 200 and re.fullmatch(r'"[0-9a-f]{32}-2"', r[1].get("etag", "")),
      (code(r), r[1]))
r = append("ap/log.txt", len(a1 + a2), a3)
whole = a1 + a2 + a3
check("a second append: ETag -3, the CRC32 of the whole, FULL_OBJECT",
      r[0] == 200 and r[1].get("etag", "").endswith('-3"') and
      r[1].get("x-amz-checksum-crc32") == b64(zlib.crc32(whole)) and
      r[1].get("x-amz-checksum-type") == "FULL_OBJECT", (code(r), r[1]))
etag3 = r[1].get("etag")
check("the AppendObject counter: exactly 3", stats()["ops"].get("AppendObject", 0) == ops_before + 3,
      stats()["ops"])
r = s("GET", P + "/ap/log.txt")
check("GET: the whole, in order", r[0] == 200 and r[2] == whole, (code(r), r[2][:80]))
check("GET: metadata and Content-Type of the first PUT kept, the last ETag",
      r[1].get("x-amz-meta-origin") == "emu" and r[1].get("content-type") == "text/x-log" and
      r[1].get("etag") == etag3 and r[1].get("x-amz-storage-class") == "EXPRESS_ONEZONE", r[1])
r = s("GET", P + "/ap/log.txt", headers={"range": "bytes=%d-%d" % (len(a1) - 3, len(a1 + a2) + 1)})
check("GET of a range across the appends", r[0] == 206 and r[2] == whole[len(a1) - 3:len(a1 + a2) + 2],
      (code(r), r[2][:80]))
r = s("GET", P + "/ap/log.txt", headers={"range": "bytes=-4"})
check("GET of the last bytes", r[0] == 206 and r[2] == whole[-4:], (code(r), r[2]))
r = s("GET", P + "/ap/log.txt", {"partNumber": "3"})
check("GET ?partNumber=3: the second append, of 3 parts", r[0] == 206 and r[2] == a3 and
      r[1].get("x-amz-mp-parts-count") == "3", (code(r), r[1]))
h = head_ck("ap/log.txt")
check("HEAD: size, and the full-object CRC32 of the whole (zlib)", h.get("content-length") == str(len(whole)) and
      h.get("x-amz-checksum-crc32") == b64(zlib.crc32(whole)) and h.get("x-amz-checksum-type") == "FULL_OBJECT", h)
for off in (len(whole) - 1, len(whole) + 1, 0):
    r = append("ap/log.txt", off, b"x")
    check("append at %d of %d bytes: 400 InvalidWriteOffset" % (off, len(whole)), code(r) == "400 InvalidWriteOffset",
          code(r))
r = append("ap/none.txt", 5, b"x")
check("append at 5 with no object: 400 InvalidWriteOffset", code(r) == "400 InvalidWriteOffset", code(r))
for bad in ("-1", "abc", "1.5", ""):
    r = append("ap/log.txt", bad, b"x")
    check("write offset %r: 400 InvalidArgument" % bad, code(r) == "400 InvalidArgument", code(r))
r = append("ap/log.txt", len(whole), b"x", {"x-amz-meta-more": "1"})
check("metadata on an append to an object: 400 InvalidRequest", code(r) == "400 InvalidRequest" and
      b"user-defined object metadata" in r[2], code(r))
r = append("ap/log.txt", len(whole), b"")
check("an empty body: 400 InvalidRequest", code(r) == "400 InvalidRequest" and b"cannot be empty" in r[2], code(r))
r = append("ap/log.txt", len(whole), b"x", {"x-amz-checksum-crc32": b64(zlib.crc32(b"y"))})
check("a wrong checksum of the appended bytes: 400 BadDigest", code(r) == "400 BadDigest", code(r))
r = append("ap/log.txt", len(whole), b"x", {"x-amz-checksum-crc32c": b64(crc32c(b"x"))})
check("another CRC than the object's: 400 InvalidRequest, Checksum Type mismatch", code(r) == "400 InvalidRequest" and
      b"expected checksum Type: crc32, actual checksum Type: crc32c" in r[2], (code(r), r[2][:300]))
r = append("ap/log.txt", len(whole), b"x", {"x-amz-checksum-sha256": base64.b64encode(hashlib.sha256(b"x").digest()).decode()})
check("a SHA-256 on a CRC32 object: 400 InvalidRequest", code(r) == "400 InvalidRequest", code(r))
h = head_ck("ap/log.txt")
check("refused appends changed nothing", h.get("content-length") == str(len(whole)) and h.get("etag") == etag3, h)
r = append("ap/log.txt", len(whole), b"+ok", {"x-amz-checksum-crc32": b64(zlib.crc32(b"+ok"))})
whole += b"+ok"
check("an append with its own CRC32", r[0] == 200 and r[1].get("x-amz-checksum-crc32") == b64(zlib.crc32(whole)),
      (code(r), r[1]))

# Other CRCs: the append names the same or none (then s3emu takes it), and the whole's goes on.
c1, c2, c3 = b"crc32c " * 50, b"next ", b"and more"
append("ap/c.txt", 0, c1, {"x-amz-checksum-crc32c": b64(crc32c(c1))})
r = append("ap/c.txt", len(c1), c2, {"x-amz-checksum-crc32c": b64(crc32c(c2))})
check("CRC32C object, CRC32C append", r[0] == 200 and r[1].get("x-amz-checksum-crc32c") == b64(crc32c(c1 + c2)),
      (code(r), r[1]))
r = append("ap/c.txt", len(c1 + c2), c3)
check("CRC32C object, an append with no checksum: the whole's CRC32C", r[0] == 200 and
      head_ck("ap/c.txt").get("x-amz-checksum-crc32c") == b64(crc32c(c1 + c2 + c3)), (code(r), head_ck("ap/c.txt")))
r = append("ap/c.txt", len(c1 + c2 + c3), b"x", {"x-amz-checksum-crc32": b64(zlib.crc32(b"x"))})
check("CRC32C object, a CRC32 append: 400 InvalidRequest", code(r) == "400 InvalidRequest" and
      b"expected checksum Type: crc32c, actual checksum Type: crc32" in r[2], (code(r), r[2][:300]))
n1, n2 = b"nvme" * 40, b"tail"
append("ap/n.txt", 0, n1, {"x-amz-checksum-crc64nvme": b64(crc64nvme(n1), 8)})
r = append("ap/n.txt", len(n1), n2)
check("CRC64NVME object: the whole's after an append", r[0] == 200 and
      head_ck("ap/n.txt").get("x-amz-checksum-crc64nvme") == b64(crc64nvme(n1 + n2), 8), head_ck("ap/n.txt"))
sh1 = b"sha" * 10
append("ap/sha.txt", 0, sh1, {"x-amz-checksum-sha256": base64.b64encode(hashlib.sha256(sh1).digest()).decode()})
r = append("ap/sha.txt", len(sh1), b"more")
h = head_ck("ap/sha.txt")
check("SHA-256 object: appended, and no full-object checksum after", r[0] == 200 and
      not any(k.startswith("x-amz-checksum-") for k in h) and h.get("content-length") == str(len(sh1) + 4), (code(r), h))

# A multipart object has its parts: an append is one more.
r = append("mp.bin", len(part1 + part2), b"appended")
check("append to a 2-part object: ETag -3, the whole's CRC32", r[0] == 200 and r[1].get("etag", "").endswith('-3"') and
      head_ck("mp.bin").get("x-amz-checksum-crc32") == b64(zlib.crc32(part1 + part2 + b"appended")), (code(r), r[1]))
r = s("GET", P + "/mp.bin", headers={"range": "bytes=%d-" % (len(part1 + part2) - 2)})
check("... read back from the multipart bytes on", r[2] == (part2 + b"appended")[-10:], r[2])

# TooManyParts: the limit lowered to 3 (append_max_parts) so it is reached in two appends.
admin("append_max_parts=3")
append("ap/parts.txt", 0, b"1")
r2, r3 = append("ap/parts.txt", 1, b"2"), append("ap/parts.txt", 2, b"3")
r4 = append("ap/parts.txt", 3, b"4")
check("append_max_parts=3: parts 2 and 3 appended, the 4th 400 TooManyParts",
      r2[0] == 200 and r3[0] == 200 and code(r4) == "400 TooManyParts", (code(r2), code(r3), code(r4)))
admin("append_max_parts=10000")
r = append("ap/parts.txt", 3, b"4")
check("... and with 10,000 the 4th goes in", r[0] == 200 and r[1].get("etag", "").endswith('-4"'), code(r))

# Two appends at the same offset at once: exactly one wins, the other is InvalidWriteOffset. 4 MiB
# each, so that both are in before either is done (appends under the shared lock crashed s3emu here).
append("ap/race.txt", 0, b"r")
size, rounds_ok = 1, True
for rnd in range(8):
    bodies = [bytes([65 + rnd]) * (4 << 20), bytes([97 + rnd]) * (4 << 20)]
    res, go = [None, None], threading.Barrier(2)

    def racer(i, off=size):
        go.wait()
        res[i] = append("ap/race.txt", off, bodies[i])

    ts = [threading.Thread(target=racer, args=(i,)) for i in range(2)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    codes = sorted(code(x) for x in res)
    rounds_ok &= codes == ["200 ", "400 InvalidWriteOffset"]
    size += 4 << 20
r = s("GET", P + "/ap/race.txt")
check("racing appends: one 200 and one InvalidWriteOffset each round", rounds_ok, codes)
check("... the object holds the winners only", len(r[2]) == size and
      all(len(set(r[2][1 + i * (4 << 20):1 + (i + 1) * (4 << 20)])) == 1 for i in range(8)), len(r[2]))

# lost-reply: the 2nd append lands but answers 500; the client's retry then finds InvalidWriteOffset.
admin("faults=lost-reply@op=AppendObject,nth=2&reset_stats=1")
l1, l2 = b"lost-1 ", b"lost-2 "
r1, r2 = append("ap/lost.txt", 0, l1), append("ap/lost.txt", len(l1), l2)
r3 = append("ap/lost.txt", len(l1), l2)
check("lost-reply@op=AppendObject,nth=2: 200, then 500 InternalError", r1[0] == 200 and code(r2) == "500 InternalError",
      (code(r1), code(r2)))
check("... its bytes are there: the retry is 400 InvalidWriteOffset", code(r3) == "400 InvalidWriteOffset" and
      s("GET", P + "/ap/lost.txt")[2] == l1 + l2, code(r3))
st = stats()
check("... counted: faults lost-reply 1, AppendObject 3", st["faults"].get("lost-reply") == 1 and
      st["ops"].get("AppendObject") == 3, (st["faults"], st["ops"]))
admin("faults=")

# General purpose buckets have no appends.
G = "/emu-gp-append"
request("PUT", G, service="s3")
r = request("PUT", G + "/k", body=b"x", headers={"x-amz-write-offset-bytes": "0"}, service="s3")
check("append on a general purpose bucket: 501 NotImplemented", code(r) == "501 NotImplemented", code(r))
check("... and nothing stored", request("HEAD", G + "/k", service="s3")[0] == 404)
request("DELETE", G, service="s3")

# ---- presigned with the session token ----
now = datetime.datetime.now(datetime.timezone.utc)
amz_date, day = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
scope = "%s/%s/s3express/aws4_request" % (day, REGION)
pq = {"X-Amz-Algorithm": "AWS4-HMAC-SHA256", "X-Amz-Credential": "%s/%s" % (s.ak, scope), "X-Amz-Date": amz_date,
      "X-Amz-Expires": "60", "X-Amz-SignedHeaders": "host", "X-Amz-S3session-Token": s.token}
qs = "&".join("%s=%s" % (q_encode(k), q_encode(v)) for k, v in sorted(pq.items()))
creq = "\n".join(["GET", P + "/d/one.txt", qs, "host:%s\n" % HOST, "host", "UNSIGNED-PAYLOAD"])
sts = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(creq.encode()).hexdigest()])
key = hm(hm(hm(hm(("AWS4" + s.sk).encode(), day), REGION), "s3express"), "aws4_request")
conn = http.client.HTTPConnection(HOST, timeout=10)
conn.request("GET", P + "/d/one.txt?" + qs + "&X-Amz-Signature=" + hmac.new(key, sts.encode(), hashlib.sha256).hexdigest())
pr = conn.getresponse()
check("presigned GET with X-Amz-S3session-Token", pr.status == 200 and pr.read() == data, pr.status)
conn.close()

# ---- expiry ----
admin("express_session_s=2")
short = Session(B)
r = short("GET", P + "/d/one.txt")
check("short session works", r[0] == 200, code(r))
time.sleep(2.5)
r = short("GET", P + "/d/one.txt")
check("expired session: 400 ExpiredToken", code(r) == "400 ExpiredToken", code(r))
fresh = Session(B)
r = fresh("GET", P + "/d/one.txt")
check("a new session works again", r[0] == 200, code(r))
admin("express_session_s=300")

# ---- session not required ----
admin("express_session_required=0")
r = request("PUT", P + "/d/iam2.txt", body=b"x")
check("express_session_required=0: IAM keys accepted", r[0] == 200, code(r))
admin("express_session_required=1")

# ---- latency profile ----
admin("latency_ms=200")
t0 = time.time()
s("GET", P + "/d/one.txt")
t_express = time.time() - t0
check("Express first byte: a tenth of latency_ms", 0.015 <= t_express < 0.1, t_express)
admin("express_latency_ms=0")
t0 = time.time()
s("GET", P + "/d/one.txt")
check("express_latency_ms=0: no delay", time.time() - t0 < 0.015, time.time() - t0)
admin("latency_ms=0&express_latency_ms=-1")

# ---- populate ----
conn = http.client.HTTPConnection(HOST, timeout=10)
conn.request("POST", "/_s3emu/populate?bucket=%s&prefix=pop/&count=3&size=5" % B)
conn.getresponse().read()
conn.close()
r = s("HEAD", P + "/pop/000000002", headers={"x-amz-checksum-mode": "ENABLED"})
check("populate in a directory bucket: CRC32, EXPRESS_ONEZONE, no MD5 ETag",
      r[1].get("x-amz-checksum-crc32") == b64(zlib.crc32(bytes(5))) and
      r[1].get("x-amz-storage-class") == "EXPRESS_ONEZONE" and
      r[1].get("etag", "").strip('"') != hashlib.md5(bytes(5)).hexdigest(), r[1])

# ---- delete buckets ----
r = request("DELETE", P)
check("DeleteBucket of a non-empty one: 409", code(r) == "409 BucketNotEmpty", code(r))
r = request("DELETE", "/" + B2)
check("DeleteBucket", r[0] == 204, code(r))
r = request("GET", "/", {"max-directory-buckets": "10"})
check("deleted bucket gone from ListDirectoryBuckets", B2 not in tags(r[2], "Name") and B in tags(r[2], "Name"), r[2][:300])

sys.exit(1 if failed else 0)
