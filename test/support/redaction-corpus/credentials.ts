/**
 * Credentials: passwords, API keys and tokens by field name and by label in text, bearer
 * and basic credentials, provider tokens and JWTs, private keys, passwords in URLs.
 * Provider prefixes are assembled at run time so that no file holds a string a secret
 * scanner would flag.
 */
import fc from 'fast-check';
import { ALNUM, chars, HEX, inPayload, keyFrom, labelCase, nested, type Piece, underKey } from './shape';
import type { Kind } from './types';

const join = (...parts: string[]) => parts.join('');

const PASSWORD_ALPHABET = `${ALNUM}!@#$%^*()_+-=~.?`;
const password = chars(PASSWORD_ALPHABET, 8, 24).filter((p) => /[A-Za-z0-9]/.test(p));
const opaque = chars(`${ALNUM}-_`, 16, 48).filter((t) => /\d/.test(t) && /[A-Za-z]/.test(t));

/** `label: value` as written in notes, logs, query strings and embedded JSON. */
function labelled(labels: string[], value: fc.Arbitrary<string>): fc.Arbitrary<Piece> {
  const label = fc.constantFrom(...labels).chain(labelCase);
  return fc.tuple(label, value, fc.constantFrom(': ', ':', '=', ' = ', ' : ', 'json', 'query')).map(([l, v, sep]) => {
    if (sep === 'json') return { text: `{"${l}":"${v}","scope":"read"}`, secrets: [v] };
    if (sep === 'query')
      return { text: `https://shop.example/login?user=bob&${l}=${encodeURIComponent(v)}&next=/`, secrets: [encodeURIComponent(v)] };
    return { text: `${l}${sep}${v}`, secrets: [v] };
  });
}

const PASSWORD_KEYS = [
  'password',
  'passwd',
  'pwd',
  'passphrase',
  'user password',
  'db password',
  'new password',
  'current password',
  'smtp passphrase',
  'smtp pass',
  'pass',
];
const PASSWORD_LABELS = ['password', 'passwd', 'pwd', 'passphrase', 'pass', 'db_password', 'admin-password'];

const passwords: Kind = {
  name: 'password',
  modes: ['input', 'output'],
  positives: fc.oneof(
    underKey(keyFrom(PASSWORD_KEYS), password, (v) => [v as string]),
    inPayload(labelled(PASSWORD_LABELS, password)),
  ),
  lookalikes: fc.oneof(
    nested(fc.constantFrom('forgot your password? reset it here', 'password reset requested by the customer', 'Password changed')),
    fc
      .constantFrom('password changed at', 'password updated at', 'password expires at', 'passwordSetAt')
      .chain((key) =>
        fc.date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true }).map((d) => ({ [key]: d.toISOString() })),
      ),
    fc.constantFrom({ has_password: true }, { password_required: false }, { password_length: 12 }, { password_policy: 'strong' }),
  ),
};

const TOKEN_KEYS = [
  'api key',
  'x api key',
  'access token',
  'refresh token',
  'auth token',
  'id token',
  'client secret',
  'secret',
  'token',
  'private key',
  'secret key',
  'session id',
  'bearer token',
  'webhook secret',
  'signing key',
  'app secret',
  'consumer secret',
  'shared secret',
  'authorization',
];
const TOKEN_LABELS = [
  'api_key',
  'apiKey',
  'api-key',
  'API key',
  'access_token',
  'access token',
  'refresh_token',
  'client_secret',
  'client secret',
  'secret',
  'token',
  'auth_token',
  'X-Api-Key',
  'private_key',
  'private key',
  'session_id',
  'session id',
  'secret key',
  'app secret',
];

const tokens: Kind = {
  name: 'api key / token',
  modes: ['input', 'output'],
  positives: fc.oneof(
    underKey(keyFrom(TOKEN_KEYS), opaque, (v) => [v as string]),
    inPayload(labelled(TOKEN_LABELS, opaque)),
  ),
  lookalikes: fc.oneof(
    nested(fc.constantFrom('the token expired, ask for a new one', 'API key rotated yesterday', 'secret santa list attached')),
    fc.constantFrom(
      { tokenType: 'Bearer', max_tokens: 1024, expires_in: 3600 },
      { idempotency_key: 'req-7f3a', sort_key: 'created_at' },
      { next_page_token: 'cGFnZTI=', nextToken: 'abc' },
      { public_key: 'pk_demo_1', key: 'color', value: 'red' },
      { token_expires_at: '2026-12-01T17:38:40Z', client_secret_expires_at: 0 },
    ),
  ),
};

const b64url = (text: string) => Buffer.from(text).toString('base64url');

const jwt = fc
  .tuple(
    fc.constantFrom('HS256', 'RS256', 'ES256'),
    chars(ALNUM, 6, 20),
    fc.integer({ min: 1_500_000_000, max: 1_900_000_000 }),
    chars(`${ALNUM}-_`, 43),
  )
  .map(([alg, sub, iat, signature]) => [b64url(JSON.stringify({ alg, typ: 'JWT' })), b64url(JSON.stringify({ sub, iat })), signature].join('.'));

// Opaque tokens are base64 or base64url, with dots only between segments (never two in a row).
const bearerToken = fc.oneof(
  jwt,
  chars(`${ALNUM}-._~+/`, 20, 60).filter((t) => /\d/.test(t) && /^[A-Za-z0-9]/.test(t) && /[A-Za-z0-9]$/.test(t) && !t.includes('..')),
);
const basicCredential = fc.tuple(chars(ALNUM, 3, 12), password).map(([user, pass]) => Buffer.from(`${user}:${pass}`).toString('base64'));

const headers: Kind = {
  name: 'bearer / basic credential',
  modes: ['input', 'output'],
  positives: inPayload(
    fc.oneof(
      fc
        .tuple(
          fc.constantFrom('Authorization: ', 'authorization=', '', 'Proxy-Authorization: ', 'header '),
          fc.constantFrom('Bearer', 'Token').chain(labelCase),
          bearerToken,
        )
        .map(([prefix, word, token]) => ({ text: `${prefix}${word} ${token}`, secrets: [token] })),
      fc
        .tuple(fc.constantFrom('Authorization: ', ''), labelCase('Basic'), basicCredential)
        .map(([prefix, word, value]) => ({ text: `${prefix}${word} ${value}`, secrets: [value] })),
    ),
  ),
  lookalikes: nested(
    fc.constantFrom(
      'the bearer of this note may collect the parcel',
      'Basic membership renews monthly',
      'BASIC plan, bearer bonds excluded',
      'Bearer instruments are not accepted here',
      'Basic Cotton Tee',
      'token expired yesterday, refreshed successfully',
    ),
  ),
};

const PROVIDERS: Array<fc.Arbitrary<string>> = [
  fc.tuple(fc.constantFrom('at', 'ca', 'pa', 'ss'), chars(HEX, 32)).map(([k, body]) => join('shp', k, '_', body)),
  fc.tuple(fc.constantFrom('sk', 'rk'), fc.constantFrom('live', 'test'), chars(ALNUM, 24, 99)).map(([a, b, body]) => join(a, '_', b, '_', body)),
  chars(ALNUM, 32).map((body) => join('wh', 'sec_', body)),
  fc.tuple(fc.constantFrom('AKIA', 'ASIA'), chars('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)).map(([p, body]) => p + body),
  fc.tuple(fc.constantFrom('p', 'o', 'u', 's', 'r'), chars(ALNUM, 36)).map(([k, body]) => join('gh', k, '_', body)),
  chars(`${ALNUM}_`, 82).map((body) => join('github', '_pat_', body)),
  fc
    .tuple(fc.constantFrom('b', 'p', 'a'), chars('0123456789', 12), chars(ALNUM, 24))
    .map(([k, n, body]) => join('xox', k, '-', n, '-', n, '-', body)),
  chars(`${ALNUM}-_`, 35).map((body) => join('AI', 'za', body)),
  fc.tuple(fc.constantFrom('r', 'a'), chars(ALNUM, 40, 80)).map(([k, body]) => join('Atz', k, '|IwEBI', body)),
  chars(`${ALNUM}-_`, 60, 100)
    .filter((b) => /\d/.test(b) && /[A-Za-z]/.test(b))
    .map((body) => join('sk', '-ant-', 'api03-', body)),
  chars(ALNUM, 40, 120)
    .filter((b) => /\d/.test(b))
    .map((body) => join('sk', '-proj-', body)),
  jwt,
];

const providerTokens: Kind = {
  name: 'provider token / JWT',
  modes: ['input', 'output'],
  positives: inPayload(fc.oneof(...PROVIDERS).map((token) => ({ text: token, secrets: [token] }))),
  lookalikes: nested(
    fc.constantFrom(
      'sk-this-is-a-long-product-slug-name',
      'AKIA is a river',
      'ghp_ prefix means a GitHub token',
      'see eyJ-prefixed values in the docs',
      'sku_live_blue_xl',
      'risk-assessment-for-supplier-onboarding-2026',
    ),
  ),
};

const PEM_KINDS = ['RSA ', 'EC ', 'OPENSSH ', 'ENCRYPTED ', 'DSA ', ''];
const pemBody = fc.array(chars(`${ALNUM}+/`, 64), { minLength: 2, maxLength: 6 });

const privateKeys: Kind = {
  name: 'private key block',
  modes: ['input', 'output'],
  positives: fc.oneof(
    inPayload(
      fc.tuple(fc.constantFrom(...PEM_KINDS), pemBody, fc.constantFrom('\n', '\\n', '\r\n')).map(([kind, lines, eol]) => {
        const text = [`-----BEGIN ${kind}PRIVATE KEY-----`, ...lines, `-----END ${kind}PRIVATE KEY-----`].join(eol);
        return { text, secrets: lines };
      }),
    ),
  ),
  lookalikes: fc.oneof(
    pemBody.map((lines) => ({ pem: ['-----BEGIN PUBLIC KEY-----', ...lines, '-----END PUBLIC KEY-----'].join('\n') })),
    pemBody.map((lines) => ({ certificate: ['-----BEGIN CERTIFICATE-----', ...lines, '-----END CERTIFICATE-----'].join('\n') })),
  ),
};

const urlCredentials: Kind = {
  name: 'password in a URL',
  modes: ['input', 'output'],
  positives: inPayload(
    fc
      .tuple(
        fc.constantFrom('https', 'http', 'postgres', 'postgresql', 'mysql', 'redis', 'amqp', 'mongodb+srv', 'ftp', 'sftp'),
        chars(`${ALNUM}._-`, 3, 16),
        password.map((p) => encodeURIComponent(p)),
        fc.constantFrom('db.internal:5432/main', 'shop.example.com/admin', 'cache:6379', 'cluster0.example.net/app?retryWrites=true'),
      )
      .map(([scheme, user, pass, rest]) => ({ text: `${scheme}://${user}:${pass}@${rest}`, secrets: [pass] })),
  ),
  lookalikes: nested(
    fc.constantFrom('https://medium.com/@writer/post-1', 'https://www.ups.com/track?tracknum=1Z2345#top', 'postgres://db.internal:5432/main'),
  ),
};

export const credentialKinds: Kind[] = [passwords, tokens, headers, providerTokens, privateKeys, urlCredentials];
