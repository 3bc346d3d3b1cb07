import { isIP } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ipVersion, mayBeIpLiteral } from '../../src/url/ip-literal.js';

describe('ipVersion', () => {
  // host strings as URLs and connectors give them, and strings made to look like addresses
  const hosts = [
    'example.com', 'first.test', 'www.daohang-2.test', 'localhost', 'xn--fsqu00a.xn--0zwm56d', '1.2.3.4.example', 'a1.2.3.4',
    '127.0.0.1', '10.0.0.1', '255.255.255.255', '256.1.1.1', '1.2.3', '1..2.3', '01.2.3.4', '0', '', '.', '1.2.3.4.',
    '::1', '::', 'fe80::1', '::ffff:127.0.0.1', '2001:db8::8a2e:370:7334', '[::1]', ':::', '1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8:9',
    'fe80::1%eth0', 'host:80', 'g::1',
  ];
  it.each(hosts)('gives what net.isIP gives for %j', (h) => {
    expect(ipVersion(h)).toBe(isIP(h));
  });

  it('leaves host names to no pattern at all, and lets anything address-like through', () => {
    expect(mayBeIpLiteral('example.com')).toBe(false);
    expect(mayBeIpLiteral('a1.2.3.4')).toBe(false);
    for (const h of ['127.0.0.1', '1.2.3', '::1', '[::1]', 'host:80']) expect(mayBeIpLiteral(h)).toBe(true);
  });
});
