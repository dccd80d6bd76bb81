/**
 * What Toolgate needs to keep visible in the ledger: order and tracking numbers,
 * timestamps, UUIDs, amounts, postal codes and SKUs, in fields, in prose and nested.
 */
import fc from 'fast-check';
import { ALNUM, chars, digits, keyFrom, labelCase, nested } from './shape';
import type { Visible } from './types';

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** A value in a field, alone, or after a label in a sentence. */
function shown(keys: string[], labels: string[], value: fc.Arbitrary<string | number>): fc.Arbitrary<unknown> {
  return nested(
    fc.oneof(
      fc.tuple(keyFrom(keys), value).map(([key, v]) => ({ [key]: v })),
      value,
      fc
        .tuple(
          fc.constantFrom(...labels).chain(labelCase),
          fc.constantFrom(' ', ': ', ' #', ' - '),
          value,
          fc.constantFrom('', '.', ' is on its way', ', thanks'),
        )
        .map(([label, sep, v, tail]) => `${label}${sep}${v}${tail}`),
    ),
  );
}

const orderNumbers: Visible = {
  name: 'order number',
  values: shown(
    ['order id', 'order number', 'name', 'amazon order id', 'purchase order', 'id'],
    ['Order', 'order no.', 'PO', 'Amazon order', 'reference'],
    fc.oneof(
      fc.integer({ min: 1000, max: 99_999 }).map((n) => `#${n}`),
      fc.tuple(digits(3), digits(7), digits(7)).map(([a, b, c]) => `${a}-${b}-${c}`),
      fc.tuple(fc.integer({ min: 2020, max: 2030 }), digits(6)).map(([y, n]) => `ORD-${y}-${n}`),
      fc.tuple(digits(2), digits(5), digits(5)).map(([a, b, c]) => `${a}-${b}-${c}`),
      fc.integer({ min: 1000, max: 9_999_999_999_999 }),
      fc.integer({ min: 1000, max: 9_999_999_999_999 }).map(String),
      fc.integer({ min: 1, max: 9_999_999_999_999 }).map((n) => `gid://shopify/Order/${n}`),
    ),
  ),
};

const trackingNumbers: Visible = {
  name: 'tracking number',
  values: shown(
    ['tracking number', 'tracking', 'tracking id', 'awb'],
    ['Tracking', 'tracking no.', 'UPS', 'USPS', 'FedEx', 'DHL'],
    fc.oneof(
      chars(`${UPPER}0123456789`, 16).map((body) => `1Z${body}`),
      fc.tuple(fc.constantFrom('9400', '9205', '9361', '9405'), digits(18)).map(([p, d]) => p + d),
      fc.tuple(fc.constantFrom('9400', '9205'), digits(18)).map(([p, d]) => (p + d).replace(/(\d{4})(?=\d)/g, '$1 ')),
      digits(12),
      digits(12).map((d) => d.replace(/(\d{4})(?=\d)/g, '$1 ')),
      digits(15),
      digits(10),
      fc.tuple(chars(UPPER, 2), digits(9), fc.constantFrom('GB', 'US', 'CN', 'DE')).map(([a, d, c]) => `${a}${d}${c}`),
    ),
  ),
};

const iso = fc.date({ min: new Date('1990-01-01'), max: new Date('2040-01-01'), noInvalidDate: true });

const timestamps: Visible = {
  name: 'timestamp / date',
  values: shown(
    ['created at', 'updated at', 'processed at', 'purchase date', 'ship by', 'timestamp'],
    ['created', 'updated', 'shipped on', 'at', 'date'],
    fc.oneof(
      iso.map((d) => d.toISOString()),
      iso.map((d) =>
        d
          .toISOString()
          .replace('Z', '+05:30')
          .replace(/\.\d{3}/, ''),
      ),
      iso.map((d) => d.toISOString().replace('T', ' ').slice(0, 19)),
      iso.map((d) => d.toISOString().slice(0, 10)),
      iso.map((d) => d.toUTCString()),
      iso.map((d) => Math.floor(d.getTime() / 1000)),
      iso.map((d) => d.getTime()),
      iso.map((d) => `${String(d.getUTCMonth() + 1).padStart(2, '0')}/${String(d.getUTCDate()).padStart(2, '0')}/${d.getUTCFullYear()}`),
      iso.map((d) => `${String(d.getUTCDate()).padStart(2, '0')}.${String(d.getUTCMonth() + 1).padStart(2, '0')}.${d.getUTCFullYear()}`),
    ),
  ),
};

const uuids: Visible = {
  name: 'UUID',
  values: shown(
    ['id', 'request id', 'correlation id', 'idempotency key', 'run id'],
    ['request', 'id', 'run'],
    fc.oneof(
      fc.uuid(),
      fc.uuid().map((u) => u.toUpperCase()),
      fc.uuid().map((u) => `{${u}}`),
      fc.uuid().map((u) => u.replace(/-/g, '')),
      fc.uuid().map((u) => `urn:uuid:${u}`),
    ),
  ),
};

const cents = fc.integer({ min: 0, max: 999_999_999 });
const thousands = (n: string, sep: string) => n.replace(/\B(?=(\d{3})+(?!\d))/g, sep);

const amounts: Visible = {
  name: 'amount',
  values: shown(
    ['amount', 'total price', 'subtotal', 'refund amount', 'balance', 'price'],
    ['total', 'amount', 'refund of', 'charged', 'balance'],
    fc.oneof(
      cents.map((c) => (c / 100).toFixed(2)),
      cents.map((c) => c / 100),
      cents.map((c) => `$${thousands(String(Math.floor(c / 100)), ',')}.${String(c % 100).padStart(2, '0')}`),
      cents.map((c) => `${thousands(String(Math.floor(c / 100)), '.')},${String(c % 100).padStart(2, '0')} €`),
      cents.map((c) => `${thousands(String(Math.floor(c / 100)), ' ')},${String(c % 100).padStart(2, '0')} EUR`),
      cents.map((c) => `-${(c / 100).toFixed(2)}`),
      cents.map((c) => `+${(c / 100).toFixed(2)}`),
      cents.map((c) => `USD ${thousands(String(Math.floor(c / 100)), ',')}.${String(c % 100).padStart(2, '0')}`),
    ),
  ),
};

const postalCodes: Visible = {
  name: 'postal code',
  values: shown(
    ['zip', 'postal code', 'zip code', 'postcode'],
    ['ZIP', 'postal code', 'Springfield, IL', 'London'],
    fc.oneof(
      digits(5),
      fc.tuple(digits(5), digits(4)).map(([a, b]) => `${a}-${b}`),
      fc
        .tuple(chars(UPPER, 1, 2), fc.integer({ min: 1, max: 99 }), fc.integer({ min: 0, max: 9 }), chars(UPPER, 2))
        .map(([a, n, m, b]) => `${a}${n} ${m}${b}`),
      fc
        .tuple(chars(UPPER, 1), digits(1), chars(UPPER, 1), digits(1), chars(UPPER, 1), digits(1))
        .map(([a, b, c, d, e, f]) => `${a}${b}${c} ${d}${e}${f}`),
    ),
  ),
};

const skus: Visible = {
  name: 'SKU / product code',
  values: shown(
    ['sku', 'seller sku', 'asin', 'barcode', 'isbn', 'product id', 'variant id'],
    ['SKU', 'ASIN', 'item', 'barcode', 'ISBN'],
    fc.oneof(
      fc.tuple(chars(UPPER, 2, 4), digits(3, 6), fc.constantFrom('', '-XL', '-RED', '-S')).map(([a, d, s]) => `${a}-${d}${s}`),
      chars(`${UPPER}0123456789`, 8, 14),
      chars(`${UPPER}0123456789`, 9).map((s) => `B0${s.slice(1)}`),
      digits(12, 13),
      fc.tuple(digits(1), digits(2), digits(6), digits(1)).map(([a, b, c, d]) => `978-${a}-${b}-${c}-${d}`),
      fc.integer({ min: 1, max: 99_999_999_999_999 }),
      chars(ALNUM, 6, 12).map((s) => `IPOD-${s}`),
    ),
  ),
};

export const visibleKinds: Visible[] = [orderNumbers, trackingNumbers, timestamps, uuids, amounts, postalCodes, skus];
