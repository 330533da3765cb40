#!/usr/bin/python3
"""botodiff: s3c's credential chain against botocore's, case by case.

For generated combinations of ~/.aws/config, ~/.aws/credentials, the
environment and --profile, it asks botocore (Debian's python3-botocore, run
in this process) which provider it picks and which access key it gets, runs
`s3c configure list` on the same files, and compares the provider method and
the masked key id (or that both fail, or that both find nothing).

    tests/creds/botodiff.py [--s3c build/s3c] [-n 300] [--seed 1] [-v]

Prints one line per mismatch and `botodiff: N passed, N failed`; exits 1 on
any failure. To add providers that need servers (STS, SSO, container,
IMDS), write a generator that returns a Case with the servers' endpoints in
its env (AWS_ENDPOINT_URL_STS, ...) and append it to GENERATORS.
"""
import argparse
import json
import os
import random
import shutil
import stat
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, '/usr/lib/python3/dist-packages')
import botocore.session  # noqa: E402  (Debian's, the version the tests compare with)
from botocore.credentials import (AssumeRoleCredentialFetcher,  # noqa: E402
                                  SSOCredentialFetcher, JSONFileCache)
from botocore.exceptions import BotoCoreError  # noqa: E402

ENV_KEEP = ('PATH', 'LANG', 'LC_ALL')


class Case:
    """One combination: file texts, environment, --profile, helper scripts."""

    def __init__(self, name):
        self.name = name
        self.config = None          # text of the config file, None: no file
        self.credentials = None     # text of the credentials file
        self.env = {}               # extra environment ('HOME' is set by the runner)
        self.profile = None         # --profile value
        self.scripts = {}           # file name -> shell script text (0755, in HOME)
        self.files_via_env = False  # AWS_CONFIG_FILE / AWS_SHARED_CREDENTIALS_FILE
        self.cache = {}             # ~/.aws/cli/cache entries: file name -> access key id

    def describe(self):
        return json.dumps({'config': self.config, 'credentials': self.credentials,
                           'env': self.env, 'profile': self.profile}, indent=1)


# ---- the two sides ---------------------------------------------------------

def prepare(case, home):
    aws = os.path.join(home, '.aws')
    os.makedirs(aws, exist_ok=True)
    env = {k: os.environ[k] for k in ENV_KEEP if k in os.environ}
    env['HOME'] = home
    env['AWS_EC2_METADATA_DISABLED'] = 'true'   # no instance here: never wait for one
    cfg = os.path.join(home, 'alt-config' if case.files_via_env else '.aws/config')
    cred = os.path.join(home, 'alt-credentials' if case.files_via_env else '.aws/credentials')
    if case.config is not None:
        with open(cfg, 'w') as f:
            f.write(case.config.replace('$HOME', home))
    if case.credentials is not None:
        with open(cred, 'w') as f:
            f.write(case.credentials.replace('$HOME', home))
    if case.files_via_env:
        env['AWS_CONFIG_FILE'] = cfg
        env['AWS_SHARED_CREDENTIALS_FILE'] = cred
    for name, text in case.scripts.items():
        p = os.path.join(home, name)
        with open(p, 'w') as f:
            f.write(text)
        os.chmod(p, stat.S_IRWXU)
    for k, v in case.env.items():
        env[k] = v.replace('$HOME', home)
    if case.cache:
        d = os.path.join(home, '.aws', 'cli', 'cache')
        os.makedirs(d, exist_ok=True)
        for name, ak in case.cache.items():
            with open(os.path.join(d, name + '.json'), 'w') as f:
                json.dump({'Credentials': {'AccessKeyId': ak, 'SecretAccessKey': 's',
                                           'SessionToken': 't', 'Expiration': FAR}}, f)
    return env


def mask(key):
    return '*' * 16 + key[-4:]


def cli_caches(session, home):
    """What the AWS CLI does at start: its JSONFileCache for roles and SSO."""
    cache = JSONFileCache(os.path.join(home, '.aws', 'cli', 'cache'))
    chain = session.get_component('credential_provider')
    for method in ('assume-role', 'assume-role-with-web-identity', 'sso'):
        chain.get_provider(method).cache = cache


def botocore_side(case, env):
    """('ok', method, masked key) | ('none',) | ('error', why)."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        s = botocore.session.Session(profile=case.profile)
        cli_caches(s, env['HOME'])
        c = s.get_credentials()
        if c is None:
            return ('none',)
        return ('ok', c.method, mask(c.access_key))
    except (BotoCoreError, ValueError, KeyError, OSError) as e:
        return ('error', type(e).__name__ + ': ' + str(e).splitlines()[0])
    finally:
        os.environ.clear()
        os.environ.update(saved)


def s3c_side(case, env, s3c):
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
            return ('ok', words[2], words[1])
    return ('error', 'no access_key line in: ' + p.stdout)


def same(a, b):
    if a[0] != b[0]:
        return False
    return a[0] != 'ok' or a[1:] == b[1:]


# ---- generators --------------------------------------------------------------

PROFILES = ['default', 'dev', 'cfgonly', 'credonly', 'missing']


def keys(rng, tag):
    """Static key lines: full, partial, token, empty values."""
    ak = 'AKID' + tag.upper() + str(rng.randint(1000, 9999))
    choice = rng.choice(['full', 'full', 'full', 'token', 'akonly', 'skonly', 'emptyak'])
    if choice == 'full':
        return 'aws_access_key_id = %s\naws_secret_access_key = s-%s\n' % (ak, tag)
    if choice == 'token':
        return ('aws_access_key_id = %s\naws_secret_access_key = s-%s\naws_session_token = t\n'
                % (ak, tag))
    if choice == 'akonly':
        return 'aws_access_key_id = %s\n' % ak
    if choice == 'skonly':
        return 'aws_secret_access_key = s-%s\n' % tag
    return 'aws_access_key_id =\naws_secret_access_key = s-%s\n' % tag


def process_lines(rng, case, tag):
    kind = rng.choice(['ok', 'ok', 'exp', 'fail', 'badversion', 'nokey', 'quoted'])
    ak = 'AKIDPROC' + tag.upper() + str(rng.randint(1000, 9999))
    doc = {'Version': 1, 'AccessKeyId': ak, 'SecretAccessKey': 'sp'}
    if kind == 'exp':
        doc['SessionToken'] = 'tok'
        doc['Expiration'] = '2099-01-01T00:00:00Z'
    if kind == 'badversion':
        doc['Version'] = 2
    if kind == 'nokey':
        del doc['AccessKeyId']
    name = 'proc-%s-%s.sh' % (tag, kind)
    if kind == 'fail':
        case.scripts[name] = '#!/bin/sh\necho "token expired" >&2\nexit 3\n'
    else:
        case.scripts[name] = "#!/bin/sh\ncat <<'END'\n%s\nEND\n" % json.dumps(doc)
    if kind == 'quoted':
        return 'credential_process = sh -c "exec \\"$0\\"" $HOME/%s\n' % name
    return 'credential_process = $HOME/%s\n' % name


def gen_static(rng, i):
    case = Case('static-%d' % i)
    config, creds = [], []
    if rng.random() < 0.2:
        config.append('[DEFAULT]\nregion = us-west-2\n' + (keys(rng, 'dflt') if rng.random() < 0.3 else ''))
    for prof in ['default', 'dev', 'cfgonly']:
        if rng.random() < 0.6:
            head = '[default]' if prof == 'default' and rng.random() < 0.8 else '[profile %s]' % prof
            body = keys(rng, 'c' + prof) if rng.random() < 0.6 else 'region = eu-west-1\n'
            if rng.random() < 0.25:
                body += process_lines(rng, case, 'c' + prof)
            config.append(head + '\n' + body)
    if rng.random() < 0.15:
        config.append('[dev]\n' + keys(rng, 'notprofile'))       # not a profile in config
    for prof in ['default', 'dev', 'credonly']:
        if rng.random() < 0.6:
            body = keys(rng, 'k' + prof) if rng.random() < 0.7 else 'region = eu-central-1\n'
            if rng.random() < 0.15:
                body += process_lines(rng, case, 'k' + prof)
            creds.append('[%s]\n%s' % (prof, body))
    if rng.random() < 0.1:
        creds.append('[profile cfgonly]\n' + keys(rng, 'credprofile'))  # verbatim in credentials
    case.config = '\n'.join(config) if config or rng.random() < 0.5 else None
    case.credentials = '\n'.join(creds) if creds or rng.random() < 0.5 else None
    case.files_via_env = rng.random() < 0.3

    r = rng.random()
    if r < 0.3:
        case.env['AWS_ACCESS_KEY_ID'] = 'AKIDENV%d' % rng.randint(1000, 9999)
        case.env['AWS_SECRET_ACCESS_KEY'] = 'senv'
    elif r < 0.35:
        case.env['AWS_ACCESS_KEY_ID'] = 'AKIDENVPARTIAL1'
    elif r < 0.4:
        case.env['AWS_SECRET_ACCESS_KEY'] = 'senv-only'
    elif r < 0.43:
        case.env['AWS_ACCESS_KEY_ID'] = ''
        case.env['AWS_SECRET_ACCESS_KEY'] = 'senv'
    if 'AWS_ACCESS_KEY_ID' in case.env and rng.random() < 0.3:
        case.env['AWS_SESSION_TOKEN'] = 'tenv'
    if rng.random() < 0.25:
        case.env['AWS_PROFILE'] = rng.choice(PROFILES)
    if rng.random() < 0.15:
        case.env['AWS_DEFAULT_PROFILE'] = rng.choice(PROFILES)
    if rng.random() < 0.35:
        case.profile = rng.choice(PROFILES)
    return case


# ---- roles, web identity and SSO, from the CLI's cache (no server needed) ----

FAR = '2099-01-01T00:00:00UTC'


def role_key(arn, session=None, external_id=None, duration=None):
    extra = {}
    if session is not None:
        extra['RoleSessionName'] = session
    if external_id is not None:
        extra['ExternalId'] = external_id
    if duration is not None:
        try:
            extra['DurationSeconds'] = int(duration)
        except ValueError:
            pass
    return AssumeRoleCredentialFetcher(None, None, arn, extra_args=extra)._cache_key


def sso_key(start_url, account, role, session=None):
    return SSOCredentialFetcher(start_url, 'us-east-1', role, account, None,
                                sso_session_name=session)._cache_key


def gen_roles(rng, i):
    """Role profiles (chains, loops, credential_source), web identity and SSO
    settings, each role's credentials waiting in the CLI cache (or not)."""
    case = Case('roles-%d' % i)
    sections = ['[profile base]\naws_access_key_id = AKIDBASE1\naws_secret_access_key = s\n',
                '[profile nokeys]\nregion = us-east-1\n']
    names = []
    for n in range(rng.randint(2, 5)):
        name = 'r%d' % n
        names.append(name)
        arn = 'arn:aws:iam::123456789012:role/%s' % name
        lines = ['role_arn = ' + arn]
        src = rng.choice(['base'] * 5 + names * 3 + ['Environment'] * 2 +
                         ['nokeys', 'ghost', 'self', 'Ec2InstanceMetadata', 'environment',
                          'both', 'none'])
        if src == 'self':
            lines.append('source_profile = ' + name)
            if rng.random() < 0.5:
                lines += ['aws_access_key_id = AKIDSELF%d' % n, 'aws_secret_access_key = s']
        elif src in ('Environment', 'Ec2InstanceMetadata', 'environment'):
            lines.append('credential_source = ' + src)
        elif src == 'both':
            lines += ['source_profile = base', 'credential_source = Environment']
        elif src != 'none':
            lines.append('source_profile = ' + src)
        session = rng.choice([None, None, 'sess-%d' % n])
        ext = rng.choice([None, None, 'ext-%d' % n])
        dur = rng.choice([None, None, '3600', 'junk'])
        for k, v in (('role_session_name', session), ('external_id', ext), ('duration_seconds', dur)):
            if v is not None:
                lines.append('%s = %s' % (k, v))
        if rng.random() < 0.1:
            lines.append('web_identity_token_file = /nonexistent/token')
        if rng.random() < 0.85:
            case.cache[role_key(arn, session, ext, dur)] = 'ASIAROLE%d%04d' % (n, rng.randint(0, 9999))
        sections.append('[profile %s]\n%s\n' % (name, '\n'.join(lines)))
    # SSO: an sso-session or the legacy form, complete or not, cached or not.
    url = 'https://d-123.awsapps.com/start'
    sections.append('[sso-session corp]\nsso_start_url = %s\nsso_region = us-east-1\n' % url)
    sso = ['sso_account_id = 123456789012', 'sso_role_name = Admin']
    form = rng.choice(['session', 'legacy', 'missing', 'ghost', 'clash'])
    if form == 'session':
        sso.append('sso_session = corp')
    elif form == 'legacy':
        sso += ['sso_start_url = ' + url, 'sso_region = us-east-1']
    elif form == 'ghost':
        sso.append('sso_session = nope')
    elif form == 'clash':
        sso += ['sso_session = corp', 'sso_region = eu-west-1']
    sections.append('[profile sso]\n%s\n' % '\n'.join(sso))
    if rng.random() < 0.8:
        case.cache[sso_key(url, '123456789012', 'Admin', 'corp' if form != 'legacy' else None)] = 'ASIASSO%04d' % rng.randint(0, 9999)
    sections.append('[profile webnoarn]\nweb_identity_token_file = /nonexistent/token\n')
    case.config = '\n'.join(sections)
    if rng.random() < 0.4:
        case.env['AWS_ACCESS_KEY_ID'] = 'AKIDENVSRC'
        case.env['AWS_SECRET_ACCESS_KEY'] = 's'
    if rng.random() < 0.1:
        case.env['AWS_WEB_IDENTITY_TOKEN_FILE'] = '/nonexistent/token'
    target = rng.choice(names + ['sso', 'sso', 'webnoarn', 'base'])
    if rng.random() < 0.7:
        case.profile = target
    else:
        case.env['AWS_PROFILE'] = target
    return case


GENERATORS = [gen_static, gen_roles]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--s3c', default='build/s3c')
    ap.add_argument('-n', type=int, default=300)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('-v', action='store_true', help='print every case')
    a = ap.parse_args()
    s3c = os.path.abspath(a.s3c)
    rng = random.Random(a.seed)
    passed = failed = 0
    for i in range(a.n):
        case = GENERATORS[i % len(GENERATORS)](rng, i)
        home = tempfile.mkdtemp(prefix='botodiff-')
        try:
            env = prepare(case, home)
            t0 = time.time()
            want = botocore_side(case, env)
            t1 = time.time()
            got = s3c_side(case, env, s3c)
            t2 = time.time()
            if a.v and t2 - t0 > 1:
                print('slow %s: botocore %.1fs, s3c %.1fs' % (case.name, t1 - t0, t2 - t1))
        finally:
            shutil.rmtree(home, ignore_errors=True)
        if same(want, got):
            passed += 1
            if a.v:
                print('ok   %s: %s' % (case.name, want))
        else:
            failed += 1
            print('FAIL %s: botocore %s, s3c %s\n%s' % (case.name, want, got, case.describe()))
    print('botodiff: %d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
