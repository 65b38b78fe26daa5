import { describe } from 'node:test';

import { celLibEnv, runTable } from '../helpers/cel-lib.js';

// Expectations from kube's library/ip_test.go and cidr_test.go.
describe('CEL library: IP (from 1.30)', () => {
  runTable([
    { expr: 'ip("192.168.0.1") == ip("192.168.0.1")', value: true },
    { expr: 'ip("192.168.0.1") == ip("192.168.0.2")', value: false },
    {
      expr: 'ip("192.168.0.1.0")',
      error: 'IP Address "192.168.0.1.0" parse error during conversion from string: ParseAddr("192.168.0.1.0"): IPv4 address too long',
    },
    { expr: 'ip("1.2.3")', error: 'IP Address "1.2.3" parse error during conversion from string: ParseAddr("1.2.3"): IPv4 address too short' },
    { expr: 'ip("1.2.3.256")', error: 'IP Address "1.2.3.256" parse error during conversion from string: ParseAddr("1.2.3.256"): IPv4 field has value >255' },
    { expr: 'ip("01.2.3.4")', error: 'IP Address "01.2.3.4" parse error during conversion from string: ParseAddr("01.2.3.4"): IPv4 field has octet with leading zero' },
    { expr: 'ip("foo")', error: 'IP Address "foo" parse error during conversion from string: ParseAddr("foo"): unable to parse IP' },
    { expr: 'ip("fe80::1%en0")', error: 'IP address "fe80::1%en0" with zone value is not allowed' },
    { expr: 'ip("::ffff:192.168.0.1")', error: 'IPv4-mapped IPv6 address "::ffff:192.168.0.1" is not allowed' },
    { expr: 'isIP("192.168.0.1")', value: true },
    { expr: 'isIP("192.168.0.1.0")', value: false },
    { expr: 'ip.isCanonical("127.0.0.1")', value: true },
    { expr: 'ip.isCanonical("127.0.0.1.0")', error: 'IP Address "127.0.0.1.0" parse error during conversion from string: ParseAddr("127.0.0.1.0"): IPv4 address too long' },
    { expr: 'ip("192.168.0.1").family()', value: 4n },
    { expr: 'ip("0.0.0.0").isUnspecified()', value: true },
    { expr: 'ip("127.0.0.1").isUnspecified()', value: false },
    { expr: 'ip("127.0.0.1").isLoopback()', value: true },
    { expr: 'ip("1.2.3.4").isLoopback()', value: false },
    { expr: 'ip("224.0.0.1").isLinkLocalMulticast()', value: true },
    { expr: 'ip("224.0.1.1").isLinkLocalMulticast()', value: false },
    { expr: 'ip("169.254.169.254").isLinkLocalUnicast()', value: true },
    { expr: 'ip("192.168.0.1").isLinkLocalUnicast()', value: false },
    { expr: 'ip("192.168.0.1").isGlobalUnicast()', value: true },
    { expr: 'ip("255.255.255.255").isGlobalUnicast()', value: false },
    {
      expr: 'ip("2001:db8:::68")',
      error: 'IP Address "2001:db8:::68" parse error during conversion from string: ParseAddr("2001:db8:::68"): each colon-separated field must have at least one digit (at ":68")',
    },
    { expr: 'isIP("2001:db8::68")', value: true },
    { expr: 'isIP("2001:db8:::68")', value: false },
    { expr: 'ip.isCanonical("2001:db8::68")', value: true },
    { expr: 'ip.isCanonical("2001:DB8::68")', value: false },
    { expr: 'ip.isCanonical("2001:db8:0:0:0:0:0:68")', value: false },
    { expr: 'ip("2001:db8::68").family()', value: 6n },
    { expr: 'ip("::").isUnspecified()', value: true },
    { expr: 'ip("::1").isUnspecified()', value: false },
    { expr: 'ip("::1").isLoopback()', value: true },
    { expr: 'ip("2001:db8::abcd").isLoopback()', value: false },
    { expr: 'ip("ff02::1").isLinkLocalMulticast()', value: true },
    { expr: 'ip("fd00::1").isLinkLocalMulticast()', value: false },
    { expr: 'ip("fe80::1").isLinkLocalUnicast()', value: true },
    { expr: 'ip("fd80::1").isLinkLocalUnicast()', value: false },
    { expr: 'ip("2001:db8::abcd").isGlobalUnicast()', value: true },
    { expr: 'ip("ff00::1").isGlobalUnicast()', value: false },
    { expr: 'isIP(cidr("192.168.0.0/24"))', compileError: /found no matching overload for 'isIP\(net.CIDR\)'/ },
    { expr: 'string(ip("192.168.0.1"))', value: '192.168.0.1' },
    { expr: 'type(ip("192.168.0.1")) == net.IP', value: true },
    { expr: 'type(cidr("192.168.0.0/24")) == net.CIDR', value: true },
    { expr: 'type(ip("192.168.0.1")) == net.CIDR', value: false },
    { expr: 'string(ip("2001:0db8:0:0:0:0:0:0068"))', value: '2001:db8::68' },
  ]);
});

describe('CEL library: CIDR (from 1.30)', () => {
  runTable([
    { expr: 'cidr("192.168.0.0/24") == cidr("192.168.0.0/24")', value: true },
    { expr: 'cidr("192.168.0.0/24") == cidr("192.168.0.0/23")', value: false },
    {
      expr: 'cidr("192.168.0.0/33")',
      error:
        'network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("192.168.0.0/33"): prefix length out of range',
    },
    {
      expr: 'cidr("192.168.0.0")',
      error: `network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("192.168.0.0"): no '/'`,
    },
    { expr: 'isCIDR("192.168.0.0/24")', value: true },
    { expr: 'isCIDR("192.168.0.0/33")', value: false },
    { expr: 'isCIDR("::ffff:192.168.0.0/120")', value: false },
    { expr: 'cidr("192.168.0.0/24").containsIP(ip("192.168.0.1"))', value: true },
    { expr: 'cidr("192.168.0.0/24").containsIP(ip("192.168.1.1"))', value: false },
    { expr: 'cidr("192.168.0.0/24").containsIP("192.168.0.1")', value: true },
    { expr: 'cidr("192.168.0.0/24").containsIP("192.168.1.1")', value: false },
    { expr: 'cidr("192.168.0.0/24").containsIP(ip("::1"))', value: false },
    { expr: 'cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/25"))', value: true },
    { expr: 'cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/24"))', value: true },
    { expr: 'cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/23"))', value: false },
    { expr: 'cidr("192.168.0.0/24").containsCIDR("192.168.0.128/25")', value: true },
    { expr: 'cidr("192.168.0.0/24").containsCIDR("192.168.1.0/25")', value: false },
    { expr: 'cidr("192.168.0.0/24").prefixLength()', value: 24n },
    { expr: 'cidr("192.168.0.1/24").masked() == cidr("192.168.0.0/24")', value: true },
    { expr: 'string(cidr("192.168.0.1/24").masked())', value: '192.168.0.0/24' },
    { expr: 'cidr("192.168.0.1/24").ip() == ip("192.168.0.1")', value: true },
    { expr: 'string(cidr("2001:db8::/32"))', value: '2001:db8::/32' },
    { expr: 'cidr("2001:db8::/32").containsIP("2001:db8::1")', value: true },
    { expr: 'string(cidr("2001:db8:1::1/32").masked())', value: '2001:db8::/32' },
  ]);
});

describe('CEL library: IP and CIDR before 1.30', () => {
  runTable([{ expr: 'isIP("1.2.3.4")', compileError: /isIP/ }], celLibEnv({ version: '1.29' }));
});
