#!/usr/bin/env python3
"""fake_iam.py: the services that hand out temporary AWS credentials, on one
loopback port, issuing key pairs that s3emu accepts until they expire.

    fake_iam.py --access-key AK --secret-key SK [--lifetime SECONDS]
                [--config JSON] [--parent-pid PID] [--max-seconds N]

AK/SK are s3emu's static key pair: AssumeRole requests signed with them are
accepted, and SK is the master from which every issued secret and session
token is derived, so that s3emu checks issued keys without talking to this
server (the scheme is in tools/s3emu/README.md, "Temporary credentials").
Prints "ready http://127.0.0.1:PORT" once it listens; stops on SIGTERM, when
PID (default: its parent) is gone, or after --max-seconds (default 3600).

Endpoints:
  POST /  (form body, or GET with a query)   STS, Version 2011-06-15
      Action=AssumeRole                      SigV4 (service sts) with AK/SK or
                                             a key issued here, not expired
      Action=AssumeRoleWithWebIdentity       unsigned; WebIdentityToken must be
                                             one of config web_identity_tokens
  GET  /federation/credentials?role_name=R&account_id=A
                                             SSO GetRoleCredentials; header
                                             x-amz-sso_bearer_token in sso_tokens
  GET  /container/ANYTHING                   container credentials; header
                                             Authorization == container_token
                                             (when that is set)
  PUT  /latest/api/token                     IMDSv2 session token
  GET  /latest/meta-data/...                 IMDS: iam/security-credentials/[ROLE],
                                             placement/region, placement/availability-zone
  GET  /_fake/issued                         what was issued, and calls per provider
  POST /_fake/config                         merge a JSON object into the config
  POST /_fake/reset                          forget what was issued and counted

Config (JSON object; --config at start, POST /_fake/config later):
  lifetime             seconds an issued key lives (default --lifetime, 900);
                       AssumeRole's DurationSeconds wins when given
  token_lifetime       when set, the seconds the session token really lives
                       (s3emu refuses it after that with ExpiredToken), while
                       the Expiration told to the client stays 'lifetime': a
                       provider whose keys die before their time
  web_identity_tokens  list of accepted web identity tokens
  sso_tokens           list of accepted SSO access tokens
  container_token      the Authorization value the container endpoint wants
                       (null: any)
  external_ids         {"ROLE_ARN" or "*": "ID"}: AssumeRole of that role needs
                       ExternalId=ID
  mfa_code             when set, AssumeRole needs SerialNumber and this TokenCode
  imds_role, region    the instance's role name and region
  fail_next            [{"provider": P, "status": N, "count": K}]: the next K
                       calls of P fail with that status (P: assume-role,
                       assume-role-with-web-identity, sso, container-role,
                       iam-role, imds-token)
Providers are named as botocore names its credential methods.
"""
import argparse
import base64
import datetime
import hashlib
import hmac
import json
import os
import secrets
import signal
import string
import sys
import threading
import time
import urllib.parse
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MAX_BODY = 64 * 1024            # STS forms are small; anything larger is refused
MAX_HANDLERS = 64               # requests served at once; more get 503
MAX_ISSUED = 10000              # records kept for /_fake/issued
STS_NS = "https://sts.amazonaws.com/doc/2011-06-15/"
ALNUM = string.ascii_uppercase + string.digits

LOCK = threading.Lock()
SLOTS = threading.BoundedSemaphore(MAX_HANDLERS)
STATE = {
    "issued": [],               # dicts, oldest first
    "calls": {},                # provider -> requests answered (ok or not)
    "errors": {},               # provider -> requests refused
    "imds_tokens": {},          # token -> expiry (epoch s)
    "current": {},              # provider -> the issue IMDS/container hand out again
}
CONFIG = {
    "lifetime": 900,
    "web_identity_tokens": [],
    "sso_tokens": [],
    "container_token": None,
    "external_ids": {},
    "mfa_code": None,
    "imds_role": "s3c-test-role",
    "region": "us-east-1",
    "fail_next": [],
    "token_lifetime": None,
}
MASTER = b""                    # s3emu's secret key
STATIC = ("", "")               # s3emu's static key pair


# ------------------------------------------------------------ key scheme --

def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def derive_secret(akid):
    """The secret of an issued key: base64 of HMAC-SHA256(master, "secret:" + akid), 40 chars."""
    mac = hmac.new(MASTER, b"secret:" + akid.encode(), hashlib.sha256).digest()
    return base64.b64encode(mac).decode()[:40]


def make_token(akid, exp):
    """base64url(JSON {"akid","exp"}) "." hex HMAC-SHA256(master, "token:" + that base64url)."""
    payload = b64url(json.dumps({"akid": akid, "exp": exp}, separators=(",", ":")).encode())
    mac = hmac.new(MASTER, b"token:" + payload.encode(), hashlib.sha256).hexdigest()
    return payload + "." + mac


def check_token(token, akid):
    """The expiry the token carries for akid, or None if it is not one of ours for it."""
    payload, _, mac = (token or "").partition(".")
    want = hmac.new(MASTER, b"token:" + payload.encode(), hashlib.sha256).hexdigest()
    if not payload or not hmac.compare_digest(mac, want):
        return None
    try:
        d = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except ValueError:
        return None
    if d.get("akid") != akid:
        return None
    return int(d.get("exp", 0))


def iso(t):
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def issue(provider, lifetime, **extra):
    """A new temporary key pair, recorded; returns its dict."""
    akid = "ASIA" + "".join(secrets.choice(ALNUM) for _ in range(16))
    exp = int(time.time()) + int(lifetime)
    with LOCK:
        token_lifetime = CONFIG.get("token_lifetime")
    token_exp = int(time.time()) + int(token_lifetime) if token_lifetime else exp
    cred = {"provider": provider, "access_key_id": akid, "secret": derive_secret(akid),
            "token": make_token(akid, token_exp), "expiration": exp, "expiration_iso": iso(exp),
            "token_expiration": token_exp, "issued_at": time.time()}
    cred.update(extra)
    with LOCK:
        STATE["issued"].append(cred)
        del STATE["issued"][:-MAX_ISSUED]
    return cred


def reusable(provider):
    """IMDS and the container agent hand out the same key until it is half spent."""
    with LOCK:
        c = STATE["current"].get(provider)
        lifetime = CONFIG["lifetime"]
    if c and c["expiration"] - time.time() > lifetime / 2:
        return c
    c = issue(provider, lifetime)
    with LOCK:
        STATE["current"][provider] = c
    return c


def count(provider, ok=True):
    with LOCK:
        STATE["calls"][provider] = STATE["calls"].get(provider, 0) + 1
        if not ok:
            STATE["errors"][provider] = STATE["errors"].get(provider, 0) + 1


def take_failure(provider):
    """The status of an injected failure for this call of provider, or 0."""
    with LOCK:
        for rule in CONFIG["fail_next"]:
            if rule.get("provider") == provider and rule.get("count", 1) > 0:
                rule["count"] = rule.get("count", 1) - 1
                return int(rule.get("status", 500))
    return 0


# ---------------------------------------------------------------- SigV4 --

def uri_encode(s):
    return urllib.parse.quote(s, safe="-_.~")


def canonical_query(raw):
    pairs = []
    for item in raw.split("&") if raw else []:
        k, _, v = item.partition("=")
        pairs.append((uri_encode(urllib.parse.unquote_plus(k)), uri_encode(urllib.parse.unquote_plus(v))))
    return "&".join("%s=%s" % p for p in sorted(pairs))


def sigv4_check(method, path, query, headers, body):
    """(None, akid) when the request is signed for sts with a key we know,
    else ((status, code, message), akid)."""
    authz = headers.get("authorization", "")
    if not authz.startswith("AWS4-HMAC-SHA256 "):
        return (400, "MissingAuthenticationToken", "Request is missing Authentication Token"), None
    fields = {}
    for part in authz[len("AWS4-HMAC-SHA256 "):].split(","):
        k, _, v = part.strip().partition("=")
        fields[k] = v
    try:
        akid, date, region, service, term = fields["Credential"].split("/")
        signed = fields["SignedHeaders"].split(";")
        sig = fields["Signature"]
    except (KeyError, ValueError):
        return (400, "IncompleteSignature", "Authorization header requires Credential, "
                "SignedHeaders and Signature."), None
    if service != "sts" or term != "aws4_request":
        return (403, "SignatureDoesNotMatch",
                "Credential should be scoped to correct service: 'sts'."), akid
    if akid == STATIC[0]:
        secret = STATIC[1]
    elif akid.startswith("ASIA"):
        exp = check_token(headers.get("x-amz-security-token"), akid)
        if exp is None:
            return (403, "InvalidClientTokenId", "The security token included in the request is invalid."), akid
        if exp <= time.time():
            return (400, "ExpiredToken", "The security token included in the request is expired"), akid
        secret = derive_secret(akid)
    else:
        return (403, "InvalidClientTokenId", "The security token included in the request is invalid."), akid
    amz_date = headers.get("x-amz-date", "")
    if not amz_date.startswith(date):
        return (403, "SignatureDoesNotMatch", "Date in Credential scope does not match YYYYMMDD "
                "from ISO-8601 version of date from HTTP"), akid
    try:
        t = datetime.datetime.strptime(amz_date, "%Y%m%dT%H%M%SZ").replace(tzinfo=datetime.timezone.utc)
    except ValueError:
        return (400, "IncompleteSignature", "Date must be in ISO-8601 'basic format'."), akid
    if abs(t.timestamp() - time.time()) > 900:
        return (403, "SignatureDoesNotMatch", "Signature expired: the request time is too skewed."), akid
    canon_headers = "".join("%s:%s\n" % (h, " ".join(headers.get(h, "").split())) for h in signed)
    payload_hash = headers.get("x-amz-content-sha256") or hashlib.sha256(body).hexdigest()
    creq = "\n".join([method, path or "/", canonical_query(query), canon_headers,
                      ";".join(signed), payload_hash])
    scope = "/".join([date, region, service, term])
    sts = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(creq.encode()).hexdigest()])
    key = ("AWS4" + secret).encode()
    for part in (date, region, service, term):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    want = hmac.new(key, sts.encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(want, sig):
        return (403, "SignatureDoesNotMatch", "The request signature we calculated does not match "
                "the signature you provided. Check your AWS Secret Access Key and signing method."), akid
    return None, akid


# ----------------------------------------------------------- the server --

def xml_esc(s):
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def sts_credentials_xml(c):
    return ("<Credentials><AccessKeyId>%s</AccessKeyId><SecretAccessKey>%s</SecretAccessKey>"
            "<SessionToken>%s</SessionToken><Expiration>%s</Expiration></Credentials>"
            % (c["access_key_id"], xml_esc(c["secret"]), c["token"], c["expiration_iso"]))


def role_user_xml(role_arn, session):
    parts = role_arn.split(":")
    account = parts[4] if len(parts) > 5 else "123456789012"
    role = parts[5].split("/", 1)[-1] if len(parts) > 5 else "role"
    return ("<AssumedRoleUser><AssumedRoleId>AROAFAKEROLEID000000:%s</AssumedRoleId>"
            "<Arn>arn:aws:sts::%s:assumed-role/%s/%s</Arn></AssumedRoleUser>"
            % (xml_esc(session), xml_esc(account), xml_esc(role), xml_esc(session)))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 10                # an idle keep-alive connection is closed
    server_version = "fake-iam"

    def log_message(self, fmt, *args):
        pass

    # -- plumbing --
    def send(self, status, body, ctype="application/json", headers=()):
        if isinstance(body, (dict, list)):
            body = json.dumps(body)
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("x-amzn-RequestId", str(uuid.uuid4()))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def read_body(self):
        n = int(self.headers.get("Content-Length") or 0)
        if n > MAX_BODY:
            self.close_connection = True
            return None
        return self.rfile.read(n) if n else b""

    def hdrs(self):
        return {k.lower(): v.strip() for k, v in self.headers.items()}

    def dispatch(self):
        if not SLOTS.acquire(blocking=False):
            self.close_connection = True
            return self.send(503, {"message": "busy"})
        try:
            body = self.read_body()
            if body is None:
                return self.send(413, {"message": "body too large"})
            url = urllib.parse.urlsplit(self.path)
            route = url.path
            if route.startswith("/_fake/"):
                return self.admin(route, body)
            if route == "/federation/credentials" and self.command == "GET":
                return self.sso(url.query)
            if route.startswith("/container/") and self.command == "GET":
                return self.container()
            if route.startswith("/latest/"):
                return self.imds(route)
            if route == "/":
                return self.sts(url.query, body)
            self.send(404, {"message": "no such endpoint: %s %s" % (self.command, route)})
        except (ValueError, KeyError, TypeError) as err:
            self.send(400, {"message": "bad request: %s" % err})
        finally:
            SLOTS.release()

    do_GET = do_POST = do_PUT = do_DELETE = dispatch

    # -- admin --
    def admin(self, route, body):
        if route == "/_fake/issued" and self.command == "GET":
            with LOCK:
                out = {"issued": [{k: v for k, v in c.items() if k not in ("secret",)}
                                  for c in STATE["issued"]],
                       "calls": dict(STATE["calls"]), "errors": dict(STATE["errors"])}
            return self.send(200, out)
        if route == "/_fake/config" and self.command == "POST":
            new = json.loads(body or b"{}")
            if not isinstance(new, dict) or not set(new) <= set(CONFIG):
                return self.send(400, {"error": "unknown keys: %s" % sorted(set(new) - set(CONFIG))})
            with LOCK:
                CONFIG.update(new)
                out = dict(CONFIG)
            return self.send(200, out)
        if route == "/_fake/config" and self.command == "GET":
            with LOCK:
                return self.send(200, dict(CONFIG))
        if route == "/_fake/reset" and self.command == "POST":
            with LOCK:
                for k in ("issued",):
                    STATE[k] = []
                for k in ("calls", "errors", "current", "imds_tokens"):
                    STATE[k] = {}
            return self.send(200, {"ok": True})
        return self.send(404, {"error": "no such admin request"})

    # -- STS --
    def sts_error(self, provider, status, code, msg):
        count(provider, ok=False)
        body = ('<ErrorResponse xmlns="%s"><Error><Type>%s</Type><Code>%s</Code><Message>%s</Message>'
                "</Error><RequestId>%s</RequestId></ErrorResponse>"
                % (STS_NS, "Sender" if status < 500 else "Receiver", code, xml_esc(msg), uuid.uuid4()))
        self.send(status, body, "text/xml")

    def sts(self, query, body):
        params = dict(urllib.parse.parse_qsl(query, keep_blank_values=True))
        if self.command == "POST":
            params.update(urllib.parse.parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))
        action = params.get("Action", "")
        if action == "AssumeRole":
            return self.assume_role(params, query, body)
        if action == "AssumeRoleWithWebIdentity":
            return self.assume_role_web_identity(params)
        return self.sts_error("sts", 400, "InvalidAction", "Could not find operation %s for version "
                              "2011-06-15" % action)

    def role_params(self, provider, params):
        """Validated (role_arn, session, lifetime) or None after an error answer."""
        role, session = params.get("RoleArn", ""), params.get("RoleSessionName", "")
        if not role or not session:
            self.sts_error(provider, 400, "ValidationError", "RoleArn and RoleSessionName are required")
            return None
        if not role.startswith("arn:aws:iam::") or ":role/" not in role:
            self.sts_error(provider, 400, "ValidationError", "%s is invalid" % role)
            return None
        if not all(ch.isalnum() or ch in "=,.@-_" for ch in session) or len(session) > 64:
            self.sts_error(provider, 400, "ValidationError", "1 validation error detected: Value '%s' at "
                           "'roleSessionName' failed to satisfy constraint" % session)
            return None
        lifetime = CONFIG["lifetime"]
        if "DurationSeconds" in params:
            d = int(params["DurationSeconds"])
            if d < 900 or d > 43200:
                self.sts_error(provider, 400, "ValidationError", "1 validation error detected: Value '%d' "
                               "at 'durationSeconds' failed to satisfy constraint: Member must have "
                               "value less than or equal to 43200 and greater than or equal to 900" % d)
                return None
            lifetime = d
        return role, session, lifetime

    def assume_role(self, params, query, body):
        provider = "assume-role"
        status = take_failure(provider)
        if status:
            return self.sts_error(provider, status, "InternalFailure" if status >= 500 else "Throttling",
                                  "injected failure")
        err, signer = sigv4_check(self.command, urllib.parse.urlsplit(self.path).path,
                                  query, self.hdrs(), body)
        if err:
            return self.sts_error(provider, *err)
        rp = self.role_params(provider, params)
        if rp is None:
            return None
        role, session, lifetime = rp
        want_ext = CONFIG["external_ids"].get(role, CONFIG["external_ids"].get("*"))
        if want_ext is not None and params.get("ExternalId") != want_ext:
            return self.sts_error(provider, 403, "AccessDenied", "User: %s is not authorized to perform: "
                                  "sts:AssumeRole on resource: %s" % (signer, role))
        mfa = CONFIG["mfa_code"]
        if "SerialNumber" in params or mfa:
            code = params.get("TokenCode", "")
            if not params.get("SerialNumber") or not (code.isdigit() and len(code) == 6) or \
                    (mfa and code != mfa):
                return self.sts_error(provider, 403, "AccessDenied", "MultiFactorAuthentication failed "
                                      "with invalid MFA one time pass code.")
        c = issue(provider, lifetime, role_arn=role, session_name=session, signed_by=signer,
                  external_id=params.get("ExternalId"), serial_number=params.get("SerialNumber"),
                  duration_seconds=params.get("DurationSeconds"))
        count(provider)
        self.send(200, '<AssumeRoleResponse xmlns="%s"><AssumeRoleResult>%s%s'
                  "</AssumeRoleResult><ResponseMetadata><RequestId>%s</RequestId></ResponseMetadata>"
                  "</AssumeRoleResponse>" % (STS_NS, role_user_xml(role, session),
                                             sts_credentials_xml(c), uuid.uuid4()), "text/xml")

    def assume_role_web_identity(self, params):
        provider = "assume-role-with-web-identity"
        status = take_failure(provider)
        if status:
            return self.sts_error(provider, status, "InternalFailure" if status >= 500 else
                                  "IDPCommunicationError", "injected failure")
        rp = self.role_params(provider, params)
        if rp is None:
            return None
        role, session, lifetime = rp
        token = params.get("WebIdentityToken", "")
        if not token or token not in CONFIG["web_identity_tokens"]:
            return self.sts_error(provider, 400, "InvalidIdentityToken",
                                  "Couldn't retrieve verification key from your identity provider")
        c = issue(provider, lifetime, role_arn=role, session_name=session,
                  web_identity_token_sha256=hashlib.sha256(token.encode()).hexdigest())
        count(provider)
        self.send(200, '<AssumeRoleWithWebIdentityResponse xmlns="%s"><AssumeRoleWithWebIdentityResult>'
                  "<SubjectFromWebIdentityToken>system:serviceaccount:default:s3c</SubjectFromWebIdentityToken>"
                  "<Audience>sts.amazonaws.com</Audience>%s%s<Provider>fake-oidc.example</Provider>"
                  "</AssumeRoleWithWebIdentityResult><ResponseMetadata><RequestId>%s</RequestId>"
                  "</ResponseMetadata></AssumeRoleWithWebIdentityResponse>"
                  % (STS_NS, role_user_xml(role, session), sts_credentials_xml(c), uuid.uuid4()),
                  "text/xml")

    # -- SSO --
    def sso(self, query):
        provider = "sso"
        params = dict(urllib.parse.parse_qsl(query))
        status = take_failure(provider)
        if status:
            count(provider, ok=False)
            return self.send(status, {"message": "injected failure"},
                             headers=[("x-amzn-ErrorType", "TooManyRequestsException" if status == 429
                                       else "InternalServerException")])
        token = self.headers.get("x-amz-sso_bearer_token", "")
        if not token or token not in CONFIG["sso_tokens"]:
            count(provider, ok=False)
            return self.send(401, {"message": "Session token not found or invalid"},
                             headers=[("x-amzn-ErrorType", "UnauthorizedException")])
        if not params.get("role_name") or not params.get("account_id"):
            count(provider, ok=False)
            return self.send(400, {"message": "role_name and account_id are required"},
                             headers=[("x-amzn-ErrorType", "InvalidRequestException")])
        c = issue(provider, CONFIG["lifetime"], role_name=params["role_name"],
                  account_id=params["account_id"])
        count(provider)
        self.send(200, {"roleCredentials": {"accessKeyId": c["access_key_id"], "secretAccessKey": c["secret"],
                                            "sessionToken": c["token"],
                                            "expiration": c["expiration"] * 1000}})

    # -- container --
    def container(self):
        provider = "container-role"
        status = take_failure(provider)
        if status:
            count(provider, ok=False)
            return self.send(status, {"code": "InternalError", "message": "injected failure"})
        want = CONFIG["container_token"]
        if want is not None and self.headers.get("Authorization", "") != want:
            count(provider, ok=False)
            return self.send(401, {"code": "AccessDeniedException", "message": "invalid authorization token"})
        c = reusable(provider)
        count(provider)
        self.send(200, {"RoleArn": "arn:aws:iam::123456789012:role/s3c-task-role",
                        "AccessKeyId": c["access_key_id"], "SecretAccessKey": c["secret"],
                        "Token": c["token"], "Expiration": c["expiration_iso"]})

    # -- IMDSv2 --
    def imds(self, route):
        now = time.time()
        if route == "/latest/api/token" and self.command == "PUT":
            if take_failure("imds-token"):
                count("imds-token", ok=False)
                return self.send(500, "", "text/plain")
            ttl = self.headers.get("X-aws-ec2-metadata-token-ttl-seconds", "")
            if not ttl.isdigit() or not 1 <= int(ttl) <= 21600:
                count("imds-token", ok=False)
                return self.send(400, "", "text/plain")
            tok = b64url(secrets.token_bytes(32))
            with LOCK:
                toks = STATE["imds_tokens"]
                for k in [k for k, exp in toks.items() if exp < now]:
                    del toks[k]
                if len(toks) < 10000:
                    toks[tok] = now + int(ttl)
            count("imds-token")
            return self.send(200, tok, "text/plain",
                             headers=[("X-aws-ec2-metadata-token-ttl-seconds", ttl)])
        if self.command != "GET":
            return self.send(405, "", "text/plain")
        with LOCK:
            exp = STATE["imds_tokens"].get(self.headers.get("X-aws-ec2-metadata-token", ""), 0)
        if exp < now:
            count("imds-unauthorized", ok=False)
            return self.send(401, "", "text/plain")
        role = CONFIG["imds_role"]
        base = "/latest/meta-data/iam/security-credentials/"
        if route == base:
            return self.send(200, role, "text/plain")
        if route == base + role:
            provider = "iam-role"
            status = take_failure(provider)
            if status:
                count(provider, ok=False)
                return self.send(status, "", "text/plain")
            c = reusable(provider)
            count(provider)
            return self.send(200, json.dumps({
                "Code": "Success", "LastUpdated": iso(int(c["issued_at"])), "Type": "AWS-HMAC",
                "AccessKeyId": c["access_key_id"], "SecretAccessKey": c["secret"],
                "Token": c["token"], "Expiration": c["expiration_iso"]}, indent=2), "text/plain")
        # botocore asks for the zone with a trailing slash
        if route.rstrip("/") == "/latest/meta-data/placement/region":
            return self.send(200, CONFIG["region"], "text/plain")
        if route.rstrip("/") == "/latest/meta-data/placement/availability-zone":
            return self.send(200, CONFIG["region"] + "a", "text/plain")
        return self.send(404, "", "text/plain")


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 64


def watch(parent, deadline):
    """Leave when the watched process is gone, when we are re-parented (our
    parent died), or when the time is up: a test killed with -9 leaves no
    fake behind."""
    ppid = os.getppid()
    while time.time() < deadline:
        try:
            os.kill(parent, 0)
        except ProcessLookupError:
            os._exit(0)
        except PermissionError:
            pass
        if os.getppid() != ppid:
            os._exit(0)
        time.sleep(0.5)
    os._exit(0)


def main():
    global MASTER, STATIC
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--access-key", required=True, help="s3emu's access key id")
    ap.add_argument("--secret-key", required=True, help="s3emu's secret key (the master)")
    ap.add_argument("--lifetime", type=int, default=900)
    ap.add_argument("--config", default="{}", help="a JSON object merged into the config")
    ap.add_argument("--parent-pid", type=int, default=os.getppid())
    ap.add_argument("--max-seconds", type=int, default=3600)
    ap.add_argument("--port", type=int, default=0)
    args = ap.parse_args()
    MASTER = args.secret_key.encode()
    STATIC = (args.access_key, args.secret_key)
    CONFIG["lifetime"] = args.lifetime
    extra = json.loads(args.config)
    unknown = set(extra) - set(CONFIG)
    if unknown:
        sys.exit("fake_iam: unknown config keys %s" % sorted(unknown))
    CONFIG.update(extra)
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    httpd = Server(("127.0.0.1", args.port), Handler)
    threading.Thread(target=watch, args=(args.parent_pid, time.time() + args.max_seconds),
                     daemon=True).start()
    print("ready http://127.0.0.1:%d" % httpd.server_address[1], flush=True)
    httpd.serve_forever()


if __name__ == "__main__":
    main()
