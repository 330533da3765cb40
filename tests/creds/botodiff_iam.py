#!/usr/bin/python3
"""botodiff_iam: s3c's server-backed credential providers against botocore's.

For generated combinations of assume role (source_profile, credential_source,
chains, external_id, role_session_name, duration_seconds), web identity
(environment and profile), SSO (sso_session and the legacy form), container
credentials (full URI, token or token file), IMDSv2, credential_process and
static keys beside them, it asks botocore (Debian's python3-botocore, in this
process) which provider it picks and which key it gets, runs
`s3c configure list` on the same files and environment, and compares the
provider method and the key: static keys by their last 4 characters, keys
issued by tests/creds/fake_iam.py by what the fake issued them for
(provider, role or account, the key that signed the AssumeRole, session
name). Both failing, or both finding nothing, also agree.

    tests/creds/botodiff_iam.py [--s3c build/s3c] [-n 120] [--seed 1] [-v]

botocore 1.29 predates AWS_ENDPOINT_URL_STS and _SSO: its STS and SSO clients
are pointed at the fake by wrapping Session.create_client. Prints one line
per mismatch and `botodiff-iam: N passed, N failed`; exits 1 on any failure.
"""
import argparse
import datetime
import hashlib
import json
import os
import random
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, '/usr/lib/python3/dist-packages')
import botocore.credentials  # noqa: E402  (Debian's, the version the tests compare with)
import botocore.session  # noqa: E402
import botocore.tokens  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ENV_KEEP = ('PATH', 'LANG', 'LC_ALL')
STATIC_AK, STATIC_SK = 'AKIDBOTODIFFSTATIC01', 'botodiff/static+secret'
ACCOUNT = '123456789012'
EXT_ROLE = 'arn:aws:iam::%s:role/needs-external-id' % ACCOUNT
EXT_ID = 'ext-42'
WEB_TOKEN = 'eyJhbGciOiJSUzI1NiJ9.botodiff-oidc'
CONTAINER_TOKEN = 'Bearer botodiff-pod'


class Fake:
    """tests/creds/fake_iam.py, started once, reset between the two sides of a case."""

    def __init__(self):
        self.proc = subprocess.Popen(
            [sys.executable, os.path.join(HERE, 'fake_iam.py'), '--access-key', STATIC_AK,
             '--secret-key', STATIC_SK, '--lifetime', '3600', '--parent-pid', str(os.getpid()),
             '--max-seconds', '900', '--config', json.dumps({
                 'web_identity_tokens': [WEB_TOKEN], 'container_token': CONTAINER_TOKEN,
                 'external_ids': {EXT_ROLE: EXT_ID}})],
            stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        if not line.startswith('ready '):
            raise SystemExit('botodiff-iam: fake_iam.py did not start')
        self.url = line.split()[1]

    def call(self, path, body=None):
        req = urllib.request.Request(self.url + path, data=body, method='POST' if body is not None else 'GET')
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())

    def sso_tokens(self, tokens):
        self.call('/_fake/config', json.dumps({'sso_tokens': tokens}).encode())

    def reset(self):
        self.call('/_fake/reset', b'')

    def issued(self):
        return self.call('/_fake/issued')['issued']

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=5)


class Case:
    """One combination: file texts, environment, --profile, helper scripts, SSO tokens."""

    def __init__(self, name):
        self.name = name
        self.config = []            # sections of ~/.aws/config
        self.credentials = []       # sections of ~/.aws/credentials
        self.env = {}
        self.profile = None         # --profile value
        self.scripts = {}           # file name -> shell script text (0700, in HOME)
        self.files = {}             # file name -> text (in HOME)
        self.sso_cache = {}         # session name or start URL -> expiresAt
        self.sso_tokens = []        # tokens the fake accepts

    def describe(self):
        return json.dumps({'config': self.config, 'credentials': self.credentials, 'env': self.env,
                           'profile': self.profile, 'files': sorted(self.files),
                           'sso_cache': self.sso_cache}, indent=1)


def prepare(case, home, fake):
    aws = os.path.join(home, '.aws')
    os.makedirs(os.path.join(aws, 'sso', 'cache'))
    env = {k: os.environ[k] for k in ENV_KEEP if k in os.environ}
    env.update({'HOME': home, 'AWS_EC2_METADATA_DISABLED': 'true', 'AWS_DEFAULT_REGION': 'us-east-1',
                'AWS_ENDPOINT_URL_STS': fake.url, 'AWS_ENDPOINT_URL_SSO': fake.url})
    for name, sections in (('config', case.config), ('credentials', case.credentials)):
        if sections:
            with open(os.path.join(aws, name), 'w') as f:
                f.write('\n'.join(sections).replace('$HOME', home).replace('$FAKE', fake.url))
    for name, text in case.scripts.items():
        p = os.path.join(home, name)
        with open(p, 'w') as f:
            f.write(text)
        os.chmod(p, stat.S_IRWXU)
    for name, text in case.files.items():
        with open(os.path.join(home, name), 'w') as f:
            f.write(text)
    for key, expires in case.sso_cache.items():
        name = hashlib.sha1(key.encode()).hexdigest() + '.json'
        with open(os.path.join(aws, 'sso', 'cache', name), 'w') as f:
            json.dump({'accessToken': 'sso-token-' + key, 'expiresAt': expires,
                       'region': 'us-east-1', 'startUrl': 'https://d-000.awsapps.com/start'}, f)
    for k, v in case.env.items():
        env[k] = v.replace('$HOME', home).replace('$FAKE', fake.url)
    return env


# ---- the two sides ---------------------------------------------------------

def botocore_side(case, env, fake):
    """('ok', method, access key id) | ('none',) | ('error', why)."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    # botocore fixes its SSO token cache directory at import, from the HOME of then.
    sso_dir = os.path.join(env['HOME'], '.aws', 'sso', 'cache')
    botocore.credentials.SSOProvider._SSO_TOKEN_CACHE_DIR = sso_dir
    botocore.tokens.SSOTokenProvider._SSO_TOKEN_CACHE_DIR = sso_dir
    try:
        s = botocore.session.Session(profile=case.profile)
        create = s.create_client

        def create_client(name, *args, **kwargs):
            if name in ('sts', 'sso'):
                kwargs['endpoint_url'] = fake.url
            return create(name, *args, **kwargs)
        s.create_client = create_client
        c = s.get_credentials()
        if c is None:
            return ('none',)
        return ('ok', c.method, c.get_frozen_credentials().access_key)
    except Exception as e:      # botocore's ClientError is no BotoCoreError: any failure counts
        return ('error', type(e).__name__ + ': ' + (str(e).splitlines() or [''])[0])
    finally:
        os.environ.clear()
        os.environ.update(saved)


def s3c_side(case, env, s3c):
    """('ok', method, last 4 of the key) | ('none',) | ('error', why)."""
    argv = [s3c, 'configure', 'list']
    if case.profile is not None:
        argv += ['--profile', case.profile]
    p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=30)
    if p.returncode != 0:
        return ('error', (p.stderr.strip().splitlines() or ['exit %d' % p.returncode])[-1])
    for line in p.stdout.splitlines():
        words = line.split()
        if words and words[0] == 'access_key':
            if '<not set>' in line:
                return ('none',)
            return ('ok', words[2], words[1][-4:])
    return ('error', 'no access_key line in: ' + p.stdout)


def origin(key_tail, issued):
    """What the fake issued the key ending in key_tail for, or the key's tail when it did not."""
    by_id = {r['access_key_id']: r for r in issued}
    mine = [r for r in issued if r['access_key_id'].endswith(key_tail)]
    if not mine:
        return 'static ' + key_tail[-4:]
    r = mine[-1]
    d = [r['provider']]
    if r.get('role_arn') or r.get('account_id'):
        d.append(r.get('role_arn') or '%s/%s' % (r['account_id'], r.get('role_name')))
    if r.get('session_name') is not None:
        d.append(re.sub(r'\d+$', 'N', r['session_name']))
    for k in ('external_id', 'duration_seconds'):
        if r.get(k):
            d.append('%s=%s' % (k, r[k]))
    signer = r.get('signed_by')
    if signer:
        d.append('signed by (%s)' % (origin(signer, [x for x in issued if x is not r])
                                     if signer in by_id else 'static ' + signer[-4:]))
    return ' '.join(d)


def run_case(case, fake, s3c):
    home = tempfile.mkdtemp(prefix='botodiff-iam-')
    try:
        env = prepare(case, home, fake)
        fake.sso_tokens(case.sso_tokens)
        fake.reset()
        want = botocore_side(case, env, fake)
        if want[0] == 'ok':
            want = ('ok', want[1], origin(want[2], fake.issued()))
        fake.reset()
        got = s3c_side(case, env, s3c)
        if got[0] == 'ok':
            got = ('ok', got[1], origin(got[2], fake.issued()))
    finally:
        shutil.rmtree(home, ignore_errors=True)
    agree = want[0] == got[0] and (want[0] != 'ok' or want[1:] == got[1:])
    return agree, want, got


# ---- generators --------------------------------------------------------------

def iso_in(seconds):
    t = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=seconds)
    return t.strftime('%Y-%m-%dT%H:%M:%SZ')


def static_section(name, tag):
    """Keys the fake does not know (they never sign an AssumeRole that works)."""
    return '[%s]\naws_access_key_id = AKIDBD%s%04d\naws_secret_access_key = s-%s\n' % (
        name, tag.upper(), random.randint(0, 9999), tag)


def source_section(name):
    """The keys the fake knows: a source profile whose AssumeRole works."""
    return '[%s]\naws_access_key_id = %s\naws_secret_access_key = %s\n' % (name, STATIC_AK, STATIC_SK)


def head(profile):
    return '[default]' if profile == 'default' else '[profile %s]' % profile


def role_body(rng, case, chain_from=None):
    """role_arn and its options; the source is the caller's."""
    role = EXT_ROLE if rng.random() < 0.25 else 'arn:aws:iam::%s:role/r%d' % (ACCOUNT, rng.randint(1, 9))
    body = 'role_arn = %s\n' % role
    if role == EXT_ROLE:
        body += 'external_id = %s\n' % (EXT_ID if rng.random() < 0.8 else 'wrong')
    if rng.random() < 0.3:
        body += 'role_session_name = sess-%d\n' % rng.randint(1, 99)
    if rng.random() < 0.2:
        body += 'duration_seconds = %d\n' % rng.choice([1800, 7200, 100])
    return body


def add_container(case, rng):
    # botocore 1.29 predates AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE (EKS Pod
    # Identity): that form is left to tests/e2e/test_creds.sh.
    case.env['AWS_CONTAINER_CREDENTIALS_FULL_URI'] = '$FAKE/container/v2/credentials'
    r = rng.random()
    if r < 0.8:
        case.env['AWS_CONTAINER_AUTHORIZATION_TOKEN'] = CONTAINER_TOKEN
    elif r < 0.9:
        case.env['AWS_CONTAINER_AUTHORIZATION_TOKEN'] = 'Bearer wrong'


def add_imds(case):
    case.env['AWS_EC2_METADATA_DISABLED'] = 'false'
    case.env['AWS_EC2_METADATA_SERVICE_ENDPOINT'] = '$FAKE/'


def add_web_identity_env(case, rng):
    case.files['oidc-token'] = WEB_TOKEN
    case.env['AWS_WEB_IDENTITY_TOKEN_FILE'] = '$HOME/oidc-token' if rng.random() < 0.9 else '$HOME/missing'
    case.env['AWS_ROLE_ARN'] = 'arn:aws:iam::%s:role/web-env' % ACCOUNT
    if rng.random() < 0.5:
        case.env['AWS_ROLE_SESSION_NAME'] = 'pod-%d' % rng.randint(1, 99)


def gen(rng, i):
    kind = KINDS[i % len(KINDS)]
    case = Case('%s-%d' % (kind, i))
    sel = rng.choice(['default', 'env', 'flag'])
    prof = 'default' if sel == 'default' else 'p%d' % rng.randint(1, 3)
    if sel == 'env':
        case.env['AWS_PROFILE'] = prof
    elif sel == 'flag':
        case.profile = prof
    body = ''
    if kind == 'role-source-profile':
        case.credentials.append(source_section('base') if rng.random() < 0.9 else static_section('base', 'base'))
        body = role_body(rng, case) + 'source_profile = base\n'
    elif kind == 'role-chain':
        case.credentials.append(source_section('base'))
        case.config.append('[profile hop]\n' + role_body(rng, case) + 'source_profile = base\n')
        body = role_body(rng, case) + 'source_profile = hop\n'
    elif kind == 'role-credential-source':
        src = rng.choice(['Environment', 'EcsContainer', 'Ec2InstanceMetadata'])
        body = role_body(rng, case) + 'credential_source = %s\n' % src
        if src == 'Environment' and rng.random() < 0.85:
            case.env['AWS_ACCESS_KEY_ID'], case.env['AWS_SECRET_ACCESS_KEY'] = STATIC_AK, STATIC_SK
        elif src == 'EcsContainer':
            add_container(case, rng)
        elif src == 'Ec2InstanceMetadata':
            add_imds(case)
    elif kind == 'web-identity-profile':
        case.files['oidc-token'] = WEB_TOKEN if rng.random() < 0.9 else 'not-the-token'
        body = 'role_arn = arn:aws:iam::%s:role/web\nweb_identity_token_file = $HOME/oidc-token\n' % ACCOUNT
        if rng.random() < 0.3:
            body += 'role_session_name = gh-%d\n' % rng.randint(1, 99)
    elif kind == 'web-identity-env':
        add_web_identity_env(case, rng)
    elif kind in ('sso-session', 'sso-legacy'):
        account, role = str(rng.randint(10**11, 10**12 - 1)), rng.choice(['Admin', 'ReadOnly'])
        if kind == 'sso-session':
            key = 'corp%d' % rng.randint(1, 3)
            body = 'sso_session = %s\n' % key
            case.config.append('[sso-session %s]\nsso_start_url = https://d-000.awsapps.com/start\n'
                               'sso_region = us-east-1\n' % key)
        else:
            key = 'https://d-%03d.awsapps.com/start' % rng.randint(0, 999)
            body = 'sso_start_url = %s\nsso_region = us-east-1\n' % key
        body += 'sso_account_id = %s\nsso_role_name = %s\n' % (account, role)
        r = rng.random()
        if r < 0.8:
            case.sso_cache[key] = iso_in(3600)
            case.sso_tokens = ['sso-token-' + key]
        elif r < 0.9:
            # Expired: s3c says so without asking; botocore 1.29's legacy form
            # asks, and the service refuses an expired token as it does.
            case.sso_cache[key] = iso_in(-3600)
        else:
            case.sso_cache[key] = iso_in(3600)       # the service no longer knows it
    elif kind == 'container':
        add_container(case, rng)
    elif kind == 'imds':
        add_imds(case)
    elif kind == 'process':
        name = 'proc.sh'
        ok = rng.random() < 0.85
        case.scripts[name] = ("#!/bin/sh\ncat <<'END'\n%s\nEND\n" % json.dumps(
            {'Version': 1, 'AccessKeyId': 'AKIDPROC%04d' % rng.randint(0, 9999), 'SecretAccessKey': 'sp',
             'SessionToken': 'tp', 'Expiration': iso_in(7200)})) if ok else \
            '#!/bin/sh\necho "helper: no session" >&2\nexit 1\n'
        body = 'credential_process = $HOME/%s\n' % name
    # Neighbours that must lose (or win) by botocore's order.
    if body and rng.random() < 0.2:
        case.credentials.append(static_section(prof, 'beside'))     # keys in the same profile
    if 'AWS_ACCESS_KEY_ID' not in case.env and rng.random() < 0.1:
        case.env['AWS_ACCESS_KEY_ID'], case.env['AWS_SECRET_ACCESS_KEY'] = 'AKIDENVBESIDE01', 'senv'
    if kind != 'web-identity-env' and rng.random() < 0.1:
        add_web_identity_env(case, rng)
    if kind != 'container' and 'AWS_CONTAINER_CREDENTIALS_FULL_URI' not in case.env and rng.random() < 0.1:
        add_container(case, rng)
    if case.env.get('AWS_EC2_METADATA_DISABLED') != 'false' and rng.random() < 0.1:
        add_imds(case)
    if body:
        case.config.append(head(prof) + '\n' + body)
    elif rng.random() < (0.3 if prof == 'default' else 0.85):
        case.config.append(head(prof) + '\nregion = us-east-1\n')
    return case


KINDS = ['role-source-profile', 'role-chain', 'role-credential-source', 'web-identity-profile',
         'web-identity-env', 'sso-session', 'sso-legacy', 'container', 'imds', 'process']


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--s3c', default='build/s3c')
    ap.add_argument('-n', type=int, default=120)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('-v', action='store_true', help='print every case')
    a = ap.parse_args()
    s3c = os.path.abspath(a.s3c)
    rng = random.Random(a.seed)
    random.seed(a.seed)
    if subprocess.run([s3c, 'configure', 'list'], capture_output=True,
                      env={'HOME': '/nonexistent', 'PATH': os.environ.get('PATH', '')}).returncode not in (0, 1):
        print('botodiff-iam: %s has no `configure list`' % s3c)
        print('botodiff-iam: 0 passed, 1 failed')
        return 1
    fake = Fake()
    passed = failed = 0
    t0 = time.time()
    try:
        for i in range(a.n):
            case = gen(rng, i)
            agree, want, got = run_case(case, fake, s3c)
            if agree:
                passed += 1
                if a.v:
                    print('ok   %s: %s' % (case.name, want))
            else:
                failed += 1
                print('FAIL %s: botocore %s, s3c %s\n%s' % (case.name, want, got, case.describe()))
    finally:
        fake.stop()
    print('botodiff-iam: %d passed, %d failed (%.1f s)' % (passed, failed, time.time() - t0))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
