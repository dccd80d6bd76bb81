import { AddressPolicy } from '../../src/egress/address-policy';
import { ConfigError, loadConfig } from '../../src/config';

/** Which addresses a tenant URL may reach: public unicast, plus what the operator lists. */
const strict = new AddressPolicy([]);

test.each([
  ['127.0.0.1', 'loopback'],
  ['127.8.9.10', 'loopback'],
  ['10.0.0.1', 'RFC 1918'],
  ['172.16.0.1', 'RFC 1918'],
  ['192.168.1.1', 'RFC 1918'],
  ['169.254.169.254', 'link-local (cloud metadata)'],
  ['100.64.0.1', 'CGNAT'],
  ['100.100.100.200', 'CGNAT (a cloud metadata address)'],
  ['0.0.0.0', 'unspecified'],
  ['255.255.255.255', 'broadcast'],
  ['224.0.0.1', 'multicast'],
  ['198.18.0.1', 'benchmarking'],
  ['192.0.2.1', 'documentation'],
  ['::1', 'IPv6 loopback'],
  ['[::1]', 'IPv6 loopback as a URL writes it'],
  ['::', 'IPv6 unspecified'],
  ['fe80::1', 'IPv6 link-local'],
  ['fc00::1', 'unique-local'],
  ['fd00:ec2::254', 'AWS metadata over IPv6'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
  ['::ffff:a00:1', 'IPv4-mapped 10.0.0.1 in hex'],
  ['::127.0.0.1', 'IPv4-compatible loopback'],
  ['64:ff9b::a00:1', 'NAT64 of 10.0.0.1'],
  ['2002:a00:1::1', '6to4 of 10.0.0.1'],
  ['fec0::1', 'site-local'],
  ['not an address', 'garbage'],
])('%s (%s) is refused by default', (address) => {
  expect(strict.allows(address)).toBe(false);
});

test.each(['93.184.216.34', '1.1.1.1', '2606:4700:4700::1111', '::ffff:93.184.216.34'])('%s (public) is allowed', (address) => {
  expect(strict.allows(address)).toBe(true);
});

test('the allow list opens exactly the listed range: a neighbour address stays refused', () => {
  const policy = new AddressPolicy(['10.0.0.0/24', '127.0.0.1/32', 'fd12:3456::/32']);
  expect(policy.allows('10.0.0.1')).toBe(true);
  expect(policy.allows('10.0.0.255')).toBe(true);
  expect(policy.allows('10.0.1.1')).toBe(false);
  expect(policy.allows('127.0.0.1')).toBe(true);
  expect(policy.allows('::ffff:127.0.0.1')).toBe(true);
  expect(policy.allows('127.0.0.2')).toBe(false);
  expect(policy.allows('fd12:3456::9')).toBe(true);
  expect(policy.allows('fd12:3457::9')).toBe(false);
  expect(policy.allows('::1')).toBe(false);
});

test('link-local and metadata addresses open only when listed one by one', () => {
  const broad = new AddressPolicy(['0.0.0.0/0', '169.254.0.0/16', '::/0', 'fd00::/8']);
  expect(broad.allows('10.1.2.3')).toBe(true);
  expect(broad.allows('169.254.169.254')).toBe(false);
  expect(broad.allows('fe80::1')).toBe(false);
  expect(broad.allows('fd00:ec2::254')).toBe(false);
  expect(broad.allows('fd00::1')).toBe(true);

  const exact = new AddressPolicy(['169.254.169.254/32', 'fd00:ec2::254/128']);
  expect(exact.allows('169.254.169.254')).toBe(true);
  expect(exact.allows('169.254.169.253')).toBe(false);
  expect(exact.allows('fd00:ec2::254')).toBe(true);
  expect(exact.allows('fd00:ec2::253')).toBe(false);
});

describe('EGRESS_ALLOW_CIDRS', () => {
  const key = { MASTER_ENCRYPTION_KEY: '5f'.repeat(32) };
  test('empty (public only) by default in production and on a database of its own; loopback only for the embedded demo', () => {
    expect(loadConfig({ ...key, NODE_ENV: 'production', DATABASE_URL: 'postgres://db/toolgate' }).egress.allowCidrs).toEqual([]);
    expect(loadConfig({ DATABASE_URL: 'postgres://db/toolgate' }).egress.allowCidrs).toEqual([]);
    expect(loadConfig({}).egress.allowCidrs).toEqual(['127.0.0.0/8', '::1/128']);
    expect(loadConfig({ EGRESS_ALLOW_CIDRS: 'none' }).egress.allowCidrs).toEqual([]);
    expect(loadConfig({ EGRESS_ALLOW_CIDRS: ' 10.0.0.0/8, fd12::/16 ,192.168.1.7' }).egress.allowCidrs).toEqual([
      '10.0.0.0/8',
      'fd12::/16',
      '192.168.1.7',
    ]);
  });

  test.each(['10.0.0.0/33', 'example.com', '10.0.0.0/8;', ''])('a bad entry %j is a configuration error naming the variable', (entry) => {
    expect(() => loadConfig({ EGRESS_ALLOW_CIDRS: `127.0.0.1/32,${entry}` })).toThrow(ConfigError);
    expect(() => loadConfig({ EGRESS_ALLOW_CIDRS: `127.0.0.1/32,${entry}` })).toThrow(/EGRESS_ALLOW_CIDRS/);
  });
});
