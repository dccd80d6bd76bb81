import { MAX_DEPTH, REDACTED as R, TRUNCATED, redactInput, redactOutput } from '../../src/redaction/redact';

/**
 * Provider tokens and key blocks are assembled at run time so that this file holds no
 * string a secret scanner (or GitHub push protection) would flag as a leaked credential.
 */
const join = (...parts: string[]) => parts.join('');
const b64url = (text: string) => Buffer.from(text).toString('base64url');

const shopifyToken = join('shp', 'at_', 'a1b2c3d4e5f60789'.repeat(2));
const shopifyCustomApp = join('shp', 'ca_', '0123456789abcdef'.repeat(2));
const shopifyPrivateApp = join('shp', 'pa_', 'fedcba9876543210'.repeat(2));
const stripeLive = join('sk', '_live_', '51H8x2eZvKYlo2C', 'q1w2e3r4t5y6u7i8');
const stripeTest = join('sk', '_test_', '4eC39HqLyjWDarjtT1zdp7dc');
const stripeRestricted = join('rk', '_live_', '51H8x2eZvKYlo2C', 'zzYYxxWW');
const awsKeyId = join('AKIA', 'IOSFODNN7', 'EXAMPLE');
const githubToken = join('ghp', '_', 'aBcD1234'.repeat(4), 'eFgH');
const githubPat = join('github', '_pat_', '11ABCDEFG0', 'x1y2z3'.repeat(10));
const slackToken = join('xox', 'b-', '1234567890-0987654321-', 'AbCdEfGhIjKlMnOpQrStUvWx');
const anthropicKey = join('sk', '-ant-', 'api03-', 'Ab1Cd2Ef3Gh4'.repeat(6));
const openAiKey = join('sk', '-proj-', 'Xy9Zw8'.repeat(8));
const googleKey = join('AI', 'za', 'SyD', 'k3J9'.repeat(8));
const lwaRefresh = join('Atzr', '|IwEBI', 'Lm4Np5Qr6'.repeat(5));
const lwaAccess = join('Atza', '|IwEBI', 'St7Uv8Wx9'.repeat(5));
const jwt = [
  b64url('{"alg":"HS256","typ":"JWT"}'),
  b64url('{"sub":"1234567890","iat":1516239022}'),
  'SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
].join('.');
const pemBlock = (kind: string) =>
  `-----BEGIN ${kind}PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo\n4lgOEePzNm0tRgeLezV6ffAt0gunVTLw\n-----END ${kind}PRIVATE KEY-----`;
const publicKeyBlock = '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----';
const basicCredential = Buffer.from('shop-admin:hunter2').toString('base64');

type Fn = 'input' | 'output';
const run = (fn: Fn, value: unknown) => (fn === 'input' ? redactInput(value) : redactOutput(value));

/** [description, function, value, expected]. Each row redacts something. */
const positives: Array<[string, Fn, unknown, unknown]> = [
  // Secrets by field name: the whole value goes, whatever its shape.
  ['apiKey', 'input', { apiKey: 'abc123', shop: 'demo' }, { apiKey: R, shop: 'demo' }],
  ['api_key', 'input', { api_key: 'abc123' }, { api_key: R }],
  ['x-api-key header', 'input', { headers: { 'x-api-key': 'abc123', accept: 'json' } }, { headers: { 'x-api-key': R, accept: 'json' } }],
  ['X-API-KEY upper case', 'input', { 'X-API-KEY': 'abc123' }, { 'X-API-KEY': R }],
  ['token', 'input', { token: 'opaque' }, { token: R }],
  ['accessToken', 'input', { accessToken: 'opaque' }, { accessToken: R }],
  ['refresh_token', 'input', { refresh_token: 'opaque' }, { refresh_token: R }],
  ['clientSecret', 'input', { clientSecret: 'opaque', clientId: 'app-1' }, { clientSecret: R, clientId: 'app-1' }],
  [
    'password inside an array of objects',
    'input',
    {
      users: [
        { login: 'a', password: 'p1' },
        { login: 'b', password: 'p2' },
      ],
    },
    {
      users: [
        { login: 'a', password: R },
        { login: 'b', password: R },
      ],
    },
  ],
  ['passwd and pwd', 'input', { passwd: 'x', pwd: 'y' }, { passwd: R, pwd: R }],
  ['authorization header', 'input', { Authorization: 'Token abc' }, { Authorization: R }],
  ['auth object redacted whole', 'input', { auth: { user: 'u', pass: 'p' } }, { auth: R }],
  ['bearer', 'input', { bearer: 'abc' }, { bearer: R }],
  ['privateKey and private_key', 'input', { privateKey: 'k1', private_key: 'k2' }, { privateKey: R, private_key: R }],
  ['cookie', 'input', { cookie: 'sid=1; theme=dark' }, { cookie: R }],
  ['session', 'input', { session: { id: 's1', user: 'u1' } }, { session: R }],
  ['credentials array redacted whole', 'input', { credentials: ['a', 'b'] }, { credentials: R }],
  ['pin as a number', 'input', { pin: 1234 }, { pin: R }],
  ['cvv and cvc', 'input', { card: { cvv: '123', CVC: 456, exp_month: 12 } }, { card: { cvv: R, CVC: R, exp_month: 12 } }],
  ['ssn field, any shape', 'input', { ssn: 123456789 }, { ssn: R }],
  ['taxId, tax_id, ein, tin', 'input', { taxId: 'a', tax_id: 'b', ein: 'c', tin: 'd' }, { taxId: R, tax_id: R, ein: R, tin: R }],
  ['iban field', 'input', { iban: 'anything' }, { iban: R }],
  ['cardNumber, card_number, pan', 'input', { cardNumber: '1', card_number: '2', pan: '3' }, { cardNumber: R, card_number: R, pan: R }],
  ['accountNumber', 'input', { bank: { accountNumber: '000123456789', bankName: 'First' } }, { bank: { accountNumber: R, bankName: 'First' } }],
  [
    'name/value pair labelled as a secret',
    'input',
    {
      headers: [
        { name: 'X-Api-Key', value: 'abc' },
        { name: 'Accept', value: 'json' },
      ],
    },
    {
      headers: [
        { name: 'X-Api-Key', value: R },
        { name: 'Accept', value: 'json' },
      ],
    },
  ],

  // Secrets by shape, under innocent keys and inside free text.
  ['Shopify shpat_ token', 'input', { shop: 'demo', value: shopifyToken }, { shop: 'demo', value: R }],
  ['Shopify shpca_ and shppa_ tokens', 'input', [shopifyCustomApp, shopifyPrivateApp], [R, R]],
  ['Stripe live key mid-sentence', 'input', { note: `use ${stripeLive} for payouts` }, { note: `use ${R} for payouts` }],
  ['Stripe test and restricted keys', 'input', `${stripeTest}, ${stripeRestricted}`, `${R}, ${R}`],
  ['AWS access key id', 'input', { msg: `key ${awsKeyId} leaked` }, { msg: `key ${R} leaked` }],
  ['GitHub tokens', 'input', `${githubToken} ${githubPat}`, `${R} ${R}`],
  ['Slack token', 'input', { text: `slack: ${slackToken}.` }, { text: `slack: ${R}.` }],
  ['Anthropic key', 'input', `ANTHROPIC=${anthropicKey}`, `ANTHROPIC=${R}`],
  ['OpenAI key', 'input', { cfg: `key is ${openAiKey}` }, { cfg: `key is ${R}` }],
  ['Google API key', 'input', `https://maps.example/api?q=x&k=${googleKey}`, `https://maps.example/api?q=x&k=${R}`],
  ['Amazon LWA refresh and access tokens', 'input', [lwaRefresh, `Bearer-less ${lwaAccess}`], [R, `Bearer-less ${R}`]],
  ['JWT alone', 'input', jwt, R],
  ['JWT mid-sentence', 'input', `the session was ${jwt} until noon`, `the session was ${R} until noon`],
  ['PEM RSA private key in text', 'input', `before\n${pemBlock('RSA ')}\nafter`, `before\n${R}\nafter`],
  ['PEM PKCS#8 private key alone', 'input', { blob: pemBlock('') }, { blob: R }],
  ['Bearer credential in a header line', 'input', 'Authorization: Bearer abc.DEF-123_xyz', `Authorization: Bearer ${R}`],
  ['Basic credential', 'input', { raw: `Authorization: Basic ${basicCredential}` }, { raw: `Authorization: Basic ${R}` }],
  ['password in a URL', 'input', { url: 'https://admin:s3cret@shop.example.com/admin?x=1' }, { url: `https://${R}@shop.example.com/admin?x=1` }],
  ['database URL credentials mid-sentence', 'input', 'connect to postgres://app:pw@db:5432/main now', `connect to postgres://${R}@db:5432/main now`],
  ['password= in a query string', 'input', 'login?user=bob&password=hunter2&next=/', `login?user=bob&password=${R}&next=/`],
  ['secret field inside embedded JSON text', 'input', '{"client_secret":"abc123","scope":"read"}', `{"client_secret":"${R}","scope":"read"}`],
  ['Visa with spaces mid-sentence', 'input', 'charge 4111 1111 1111 1111 today', `charge ${R} today`],
  ['Mastercard with dashes', 'input', { ref: '5555-5555-5555-4444' }, { ref: R }],
  ['Amex and Discover compact', 'input', ['378282246310005', '6011111111111117'], [R, R]],
  ['card followed by more digits keeps the tail', 'input', '4242 4242 4242 4242 12 units', `${R} 12 units`],
  ['card as a JSON number', 'input', { n: 4111111111111111 }, { n: R }],
  ['SSN with dashes in text', 'input', 'my ssn is 536-22-1234, thanks', `my ssn is ${R}, thanks`],
  ['SSN without dashes when labelled', 'input', 'SSN: 536221234', `SSN: ${R}`],
  ['EIN when labelled', 'input', { memo: 'EIN: 12-3456789 on file' }, { memo: `EIN: ${R} on file` }],
  ['EIN under a tax key', 'input', { tax_registration: '12-3456789', misc: 'n/a' }, { tax_registration: R, misc: 'n/a' }],
  ['IBAN with spaces mid-sentence', 'input', 'pay GB82 WEST 1234 5698 7654 32 by Friday', `pay ${R} by Friday`],
  ['IBAN compact (DE, NL)', 'input', ['DE89370400440532013000', 'NL91ABNA0417164300'], [R, R]],

  // Outputs: all of the above, plus personal data.
  ['output redacts secrets too', 'output', { token: 'b1946ac92492d2347c6235b4d2611184', note: jwt }, { token: R, note: R }],
  ['email field', 'output', { email: 'bob@example.com', id: 1 }, { email: R, id: 1 }],
  ['customerEmail and contact_email', 'output', { customerEmail: 'a@b.co', contact_email: 'c@d.io' }, { customerEmail: R, contact_email: R }],
  ['email in free text', 'output', { note: 'reach jane.doe+shop@example.co.uk today' }, { note: `reach ${R} today` }],
  ['phone, mobile and fax fields', 'output', { phone: '4155552671', mobile: 4155552671, fax: '(415) 555-2672' }, { phone: R, mobile: R, fax: R }],
  ['E.164 phone in text', 'output', 'call +14155552671 now', `call ${R} now`],
  ['US national phones in text', 'output', 'office (415) 555-2671 or 415-555-2671', `office ${R} or ${R}`],
  ['UK phone in text', 'output', { note: 'London desk: +44 20 7946 0958.' }, { note: `London desk: ${R}.` }],
  ['labelled phone without separators', 'output', 'Phone: 4155552671', `Phone: ${R}`],
  [
    'Shopify address: street, name, phone, coordinates go; zip, city, province, country stay',
    'output',
    {
      shipping_address: {
        first_name: 'Bob',
        last_name: 'Norman',
        name: 'Bob Norman',
        company: 'Acme',
        address1: '123 Amoeba St',
        address2: 'Apt 4',
        city: 'Ottawa',
        province: 'Ontario',
        province_code: 'ON',
        zip: 'K2P 0V6',
        country: 'Canada',
        country_code: 'CA',
        phone: '+1 613-555-0134',
        latitude: 45.41634,
        longitude: -75.6868,
      },
    },
    {
      shipping_address: {
        first_name: R,
        last_name: R,
        name: R,
        company: 'Acme',
        address1: R,
        address2: R,
        city: 'Ottawa',
        province: 'Ontario',
        province_code: 'ON',
        zip: 'K2P 0V6',
        country: 'Canada',
        country_code: 'CA',
        phone: R,
        latitude: R,
        longitude: R,
      },
    },
  ],
  [
    'Amazon ShippingAddress',
    'output',
    {
      ShippingAddress: {
        Name: 'Jane Doe',
        AddressLine1: '1 Infinite Loop',
        City: 'Cupertino',
        StateOrRegion: 'CA',
        PostalCode: '95014',
        CountryCode: 'US',
        AddressType: 'Residential',
      },
    },
    {
      ShippingAddress: {
        Name: R,
        AddressLine1: R,
        City: 'Cupertino',
        StateOrRegion: 'CA',
        PostalCode: '95014',
        CountryCode: 'US',
        AddressType: 'Residential',
      },
    },
  ],
  [
    'billing_address with street/postal_code/postalCode variants',
    'output',
    { billing_address: { street: '9 Elm Rd', line1: '9 Elm Rd', postal_code: '62704', postalCode: '62704', country: 'US' } },
    { billing_address: { street: R, line1: R, postal_code: '62704', postalCode: '62704', country: 'US' } },
  ],
  [
    'addresses array',
    'output',
    {
      addresses: [
        { address1: '1 A St', zip: '10001' },
        { address1: '2 B Ave', zip: '10002' },
      ],
    },
    {
      addresses: [
        { address1: R, zip: '10001' },
        { address1: R, zip: '10002' },
      ],
    },
  ],
  ['free-text US address keeps city, state and ZIP', 'output', 'ship to 123 Main St, Springfield, IL 62704', `ship to ${R}, Springfield, IL 62704`],
  ['free-text UK address keeps the postcode', 'output', { note: 'at 10 Downing Street, London SW1A 2AA' }, { note: `at ${R}, London SW1A 2AA` }],
  [
    'address string under an address key',
    'output',
    { address: '1600 Pennsylvania Avenue NW, Washington, DC 20500' },
    { address: `${R}, Washington, DC 20500` },
  ],
  ['unrecognised address string is dropped whole', 'output', { shippingAddress: 'Flat 3, Acacia House, Leeds' }, { shippingAddress: R }],
  [
    'payment method object',
    'output',
    { paymentMethod: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 }, status: 'paid' },
    { paymentMethod: R, status: 'paid' },
  ],
  [
    'payment_method and payment_details',
    'output',
    { payment_method: 'card', payment_details: { credit_card_number: '•••• 4242', credit_card_company: 'Visa' } },
    { payment_method: R, payment_details: R },
  ],
  [
    'card summary under an innocent key',
    'output',
    { source: { brand: 'mastercard', last4: '4444', funding: 'credit' }, amount: 1999 },
    { source: R, amount: 1999 },
  ],
  ['card field', 'output', { card: { number: '•••• 4242', holder: 'Bob' } }, { card: R }],
  ['customer names', 'output', { customer: { id: 7, name: 'Bob Norman', orders_count: 3 } }, { customer: { id: 7, name: R, orders_count: 3 } }],
  ['buyer name and browser ip', 'output', { BuyerName: 'Jane', browser_ip: '203.0.113.7' }, { BuyerName: R, browser_ip: R }],

  // Variations found by the generated corpus (test/support/redaction-corpus).
  ['two-word labels with a space', 'input', 'API key: k3y-0123456789abcdef, session id: s-42x9', `API key: ${R}, session id: ${R}`],
  ['pass label and field', 'input', { smtp_pass: 'pw1', note: 'pass=hunter2' }, { smtp_pass: R, note: `pass=${R}` }],
  ['card with dots and after CC#', 'input', ['4111.1111.1111.1111', 'CC#4111111111111111'], [R, `CC#${R}`]],
  ['SSN with dots after SSN#', 'input', 'SSN#: 536.22.1234', `SSN#: ${R}`],
  ['IBAN grouped by dashes, lower case', 'input', 'iban gb82-west-1234-5698-7654-32', `iban ${R}`],
  [
    'phone after Ph., a symbol or "phone number:"',
    'output',
    ['Ph. 4155552671', '☎ 4155552671', 'Phone number: 4155552671'],
    [`Ph. ${R}`, `☎ ${R}`, `Phone number: ${R}`],
  ],
  ['street line in upper case', 'output', 'SHIP TO 6056 E OAK ST #12, SPRINGFIELD', `SHIP TO ${R}, SPRINGFIELD`],
  ['street line in lower case after a label', 'output', 'address: 12 oak lane, Louisville', `address: ${R}, Louisville`],
  [
    'date of birth after a label',
    'output',
    ['DOB: 1980-05-17', 'born on May 17, 1980', 'Date of birth 17.05.1980'],
    [`DOB: ${R}`, `born on ${R}`, `Date of birth ${R}`],
  ],
  ['remote_addr field', 'output', { remote_addr: '203.0.113.7' }, { remote_addr: R }],
  [
    'security codes, PINs and one-time codes after a label',
    'input',
    ['cvv 123', 'PIN 1234', 'OTP is 492817'],
    [`cvv ${R}`, `PIN ${R}`, `OTP is ${R}`],
  ],
  [
    'passport and licence numbers after a label',
    'input',
    ['Passport: X1234567', "Driver's license #: D123-4567-8901"],
    [`Passport: ${R}`, `Driver's license #: ${R}`],
  ],
  ['Token authorization scheme', 'input', 'Authorization: Token abcdef0123456789', `Authorization: Token ${R}`],
];

/** [description, functions, value]. Each row must come back unchanged. */
const negatives: Array<[string, Fn[], unknown]> = [
  ['order id as text', ['input', 'output'], { orderId: '12345' }],
  ['order name with #', ['input', 'output'], { name: '#12345' }],
  ['order number as a number', ['input', 'output'], { order_number: 12345 }],
  ['Amazon order id', ['input', 'output'], { AmazonOrderId: '902-3159896-1390916' }],
  ['tracking number TRACK-001', ['input', 'output'], { tracking_number: 'TRACK-001' }],
  ['UPS tracking number', ['input', 'output'], { tracking: '1Z999AA10123456784' }],
  ['USPS tracking number', ['input', 'output'], 'shipped with 9400111899223197428490'],
  ['product ids and SKU', ['input', 'output'], { product_id: 632910392, sku: 'IPOD2008GREEN', variant: 'SKU-12345-XL' }],
  ['Shopify GID', ['input', 'output'], 'gid://shopify/Order/5445219221558'],
  ['prices and amounts', ['input', 'output'], { total_price: '409.94', amount: 199.99, display: '$1,234.56', delta: '+12.50' }],
  ['quantities', ['input', 'output'], { quantity: 3, fulfilled: 2 }],
  ['ISO timestamp', ['input', 'output'], { created_at: '2026-11-29T10:00:00Z' }],
  ['ISO timestamp with offset and millis', ['input', 'output'], '2026-11-29T10:00:00.123+05:30'],
  ['dates', ['input', 'output'], ['2026-11-29', '11/29/2026', '29.11.2026']],
  ['UUID', ['input', 'output'], { id: '123e4567-e89b-12d3-a456-426614174000' }],
  ['status words and booleans', ['input', 'output'], { status: 'fulfilled', financial_status: 'paid', test: false, confirmed: true }],
  ['Luhn-invalid 16 digits', ['input', 'output'], '4111111111111112'],
  ['Luhn-invalid card with spaces', ['input', 'output'], 'card 4111 1111 1111 1112'],
  ['Luhn-valid but no card network prefix', ['input', 'output'], { ref: '1234567812345670' }],
  ['13-digit id as a number', ['input', 'output'], { id: 5445219221558 }],
  ['SSN area 000', ['input', 'output'], '000-12-3456'],
  ['SSN area 666', ['input', 'output'], '666-12-3456'],
  ['SSN area 9xx', ['input', 'output'], ['900-12-3456', '987-65-4321']],
  ['SSN group 00', ['input', 'output'], '123-00-4567'],
  ['SSN serial 0000', ['input', 'output'], '123-45-0000'],
  ['labelled SSN out of range', ['input', 'output'], 'SSN: 000-12-3456'],
  ['bare 9 digits without dashes or label', ['input', 'output'], { ref: '536221234' }],
  ['EIN shape without label or tax key', ['input', 'output'], { code: '12-3456789' }],
  ['IBAN with one digit changed', ['input', 'output'], 'GB82 WEST 1234 5698 7654 33'],
  ['IBAN-like code of an unknown country', ['input', 'output'], 'ZZ82WEST12345698765432'],
  ['short digit strings', ['input', 'output'], ['1234', '42', '007']],
  ['bearer and basic as English words', ['input', 'output'], 'the bearer of the note chose the Basic membership.'],
  ['public key block', ['input', 'output'], { key_pem: publicKeyBlock }],
  ['URL without credentials', ['input', 'output'], 'https://www.ups.com/track?tracknum=1Z2345#top'],
  ['hyphenated slug starting with sk-', ['input', 'output'], 'sk-this-is-a-long-product-slug-name'],
  [
    'non-secret *_key and *_token names',
    ['input', 'output'],
    { idempotencyKey: 'k-1', sort_key: 'name', tokenType: 'Bearer', max_tokens: 1024, NextToken: 'abc=', nextPageToken: 'p2' },
  ],
  ['pin and tin as parts of other words', ['input', 'output'], { shipping: 'express', setting: 'on', pinned: 'yes' }],
  ['phone-shaped ids with an impossible area or exchange', ['input', 'output'], ['100-200-3000', '555-123-4567']],
  ['ISBN', ['input', 'output'], 'isbn 978-3-16-148410-0'],
  ['numbers in prose that are not a street', ['input', 'output'], '3 items in the way, 2 boxes Next Day'],
  ['version and IP-like strings', ['input', 'output'], ['v1.2.3', '10.0.0.1']],
  ['tax lines keep their prices', ['input', 'output'], { tax_lines: [{ price: '11.94', rate: 0.06, title: 'State Tax' }] }],
  ['order totals', ['input', 'output'], { OrderTotal: { CurrencyCode: 'USD', Amount: '25.99' }, OrderStatus: 'Shipped' }],
  ['line item names', ['input', 'output'], { line_items: [{ name: 'IPod Nano - 8gb', title: 'IPod Nano', vendor: 'Apple' }] }],
  ['null and empty values under secret names', ['input', 'output'], { password: null, token: '', has_password: true }],
  [
    'inputs keep personal data (only secrets are removed)',
    ['input'],
    { email: 'bob@example.com', phone: '+14155552671', address: '123 Main St, Springfield' },
  ],
  ['inputs keep payment method summaries', ['input'], { payment_method: 'card', source: { brand: 'visa', last4: '4242', exp_month: 12 } }],
  ['address fields that are kept', ['output'], { shipping_address: { city: 'Ottawa', zip: 'K2P0V6', country_code: 'CA', province: 'ON' } }],
  ['markers are left as they are', ['input', 'output'], [R, TRUNCATED, `Bearer ${R}`, `https://${R}@host`]],
  [
    'fields about a secret, not holding one',
    ['input', 'output'],
    { password_changed_at: '2026-11-29T10:00:00Z', token_expires_at: 1764610720, password_length: 12 },
  ],
  ['retina image names are not emails', ['output'], ['logo@2x.png', 'https://cdn.example.com/hero@3x.jpg']],
  ['product titles with a measure are not streets', ['output'], ['Seagate 2 TB External Hard Drive', '3 Piece Patio Court Set']],
  ['a grouped tracking number is not cut into a card', ['input', 'output'], 'FedEx #9205 5434 8399 0627 7617 16'],
  ['an order number after # is not a card', ['input', 'output'], 'order #4111111111111111'],
  ['dates without a birth label', ['output'], ['created 1980-05-17', 'Birthday sale ends 12/01/2026']],
  ['a UUID whose first hex group starts like an IBAN', ['input', 'output'], 'urn:uuid:ee73ef3b-1b17-874c-a9bb-6aecafbe9f78'],
  [
    'labels without a code or document number',
    ['input', 'output'],
    ['PIN code required', 'pin 12 of 40', 'passport required for 3 guests', 'token expired yesterday'],
  ],
];

describe('redaction corpus', () => {
  test('has at least 60 positive and 40 negative cases', () => {
    expect(positives.length).toBeGreaterThanOrEqual(60);
    expect(negatives.length).toBeGreaterThanOrEqual(40);
  });

  test.each(positives)('redacts: %s (%s)', (_description, fn, value, expected) => {
    expect(run(fn, value)).toEqual(expected);
  });

  test.each(negatives)('keeps: %s', (_description, fns, value) => {
    for (const fn of fns) expect([fn, run(fn, value)]).toEqual([fn, value]);
  });
});

describe('redaction properties', () => {
  const corpus: Array<[Fn, unknown]> = [
    ...positives.map(([, fn, value]) => [fn, value] as [Fn, unknown]),
    ...negatives.flatMap(([, fns, value]) => fns.map((fn) => [fn, value] as [Fn, unknown])),
  ];
  const bothFns: Fn[] = ['input', 'output'];

  test.each(bothFns)('%s: redacting twice equals redacting once, for the whole corpus', (fn) => {
    for (const [, value] of corpus) {
      const once = run(fn, value);
      expect(run(fn, once)).toEqual(once);
    }
  });

  test.each(bothFns)('%s: the argument is not mutated and nothing is shared with it', (fn) => {
    const value = {
      password: 'p',
      customer: { email: 'bob@example.com', address: { address1: '1 A St', zip: '10001' } },
      items: [{ note: `token ${jwt}` }, ['4111 1111 1111 1111']],
      when: new Date('2026-11-29T10:00:00Z'),
    };
    const before = structuredClone(value);
    const result = run(fn, value) as typeof value;
    expect(value).toEqual(before);
    expect(result).not.toBe(value);
    expect(result.items).not.toBe(value.items);
    expect(result.items[0]).not.toBe(value.items[0]);
    expect(result.when).not.toBe(value.when);
    expect(result.when).toEqual(value.when);
  });

  test('frozen arguments are fine (no write is attempted)', () => {
    const deepFreeze = (v: unknown): unknown => {
      if (v && typeof v === 'object') Object.values(Object.freeze(v)).forEach(deepFreeze);
      return v;
    };
    const value = deepFreeze({ a: [{ email: 'x@y.io', apiKey: 'k' }], shipping_address: { address1: '1 A St' } });
    expect(() => redactOutput(value)).not.toThrow();
    expect(() => redactInput(value)).not.toThrow();
  });

  test.each(bothFns)('%s: very deep values are truncated, not a stack overflow', (fn) => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 20_000; i++) deep = i % 2 ? { next: deep } : [deep];
    expect(() => run(fn, deep)).not.toThrow();

    let chain: unknown = 'leaf';
    for (let i = 0; i < MAX_DEPTH + 5; i++) chain = { next: chain };
    let cursor = run(fn, chain) as { next: unknown };
    for (let depth = 1; depth <= MAX_DEPTH; depth++) cursor = cursor.next as { next: unknown };
    expect(cursor.next).toBe(TRUNCATED);

    let shallow: unknown = 'leaf';
    for (let i = 0; i < MAX_DEPTH; i++) shallow = { next: shallow };
    expect(run(fn, shallow)).toEqual(shallow);
  });

  test.each(bothFns)('%s: cycles end in TRUNCATED, even with many back edges', (fn) => {
    const node: Record<string, unknown> = { id: 1 };
    for (let i = 0; i < 20; i++) node[`self${i}`] = node;
    const list: unknown[] = [1];
    list.push(list);
    const result = run(fn, { node, list }) as { node: Record<string, unknown>; list: unknown[] };
    expect(result.node.self0).toBe(TRUNCATED);
    expect(result.node.id).toBe(1);
    expect(result.list).toEqual([1, TRUNCATED]);
  });

  // Catastrophic backtracking on 100 kB would take minutes: the test's timeout is the
  // bound (no wall-clock assertion, which a loaded machine would make flaky).
  test('long adversarial strings stay linear (no catastrophic regex backtracking)', () => {
    const size = 100_000;
    const nasty = [
      'a'.repeat(size),
      'a.'.repeat(size / 2),
      'a-'.repeat(size / 2),
      '1 '.repeat(size / 2),
      '1-'.repeat(size / 2),
      '+1 '.repeat(size / 3),
      'a@b'.repeat(size / 3),
      'GB82 '.repeat(size / 5),
      'Bearer '.repeat(size / 7),
      'password_'.repeat(size / 9),
      `${'a+b'.repeat(size / 3)}://`,
      '12 Main '.repeat(size / 8),
      '0 '.repeat(size / 2),
    ];
    for (const text of nasty) {
      expect(typeof redactInput(text)).toBe('string');
      expect(typeof redactOutput(text)).toBe('string');
    }
  }, 20_000);

  test('a "__proto__" key is copied as data', () => {
    const value = JSON.parse('{"__proto__": {"password": "x"}, "ok": 1}');
    const result = redactInput(value) as Record<string, unknown>;
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(result, '__proto__')?.value).toEqual({ password: R });
  });

  test('a full order keeps what support needs and loses what identifies the buyer', () => {
    const order = {
      id: 450789469,
      name: '#1001',
      email: 'bob@example.com',
      created_at: '2026-11-29T10:00:00-05:00',
      total_price: '409.94',
      customer: {
        id: 207119551,
        first_name: 'Bob',
        default_address: { address1: 'Chestnut Street 92', city: 'Louisville', zip: '40202', country_code: 'US' },
      },
      line_items: [{ sku: 'IPOD2008GREEN', quantity: 1, price: '199.00' }],
      fulfillments: [{ tracking_number: '1Z999AA10123456784', status: 'success' }],
      note: 'Leave at 12 Oak Lane, Louisville, KY 40202 or call (502) 555-0147',
    };
    expect(redactOutput(order)).toEqual({
      ...order,
      email: R,
      customer: { id: 207119551, first_name: R, default_address: { address1: R, city: 'Louisville', zip: '40202', country_code: 'US' } },
      note: `Leave at ${R}, Louisville, KY 40202 or call ${R}`,
    });
  });
});
