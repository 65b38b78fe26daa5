import { describe } from 'node:test';

import { celLibEnv, runTable } from '../helpers/cel-lib.js';

// Expectations from kube's library/quantity_test.go.
describe('CEL library: quantity (from 1.28)', () => {
  runTable([
    { expr: 'quantity("12Mi") == quantity("12Mi")', value: true },
    { expr: 'quantity("1000m") == quantity("1")', value: true },
    { expr: 'quantity("12Mi") == quantity("12M")', value: false },
    {
      expr: 'quantity("Fi")',
      error: "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    },
    { expr: 'isQuantity("20")', value: true },
    { expr: 'isQuantity("20M")', value: true },
    { expr: 'isQuantity("20Mi")', value: true },
    { expr: 'isQuantity("")', value: false },
    { expr: 'isQuantity("Fi")', value: false },
    { expr: 'isQuantity("5T5")', value: false },
    { expr: 'quantity("50M").isLessThan(quantity("50Mi"))', value: true },
    { expr: 'quantity("50Mi").isLessThan(quantity("50M"))', value: false },
    { expr: 'quantity("50M").isGreaterThan(quantity("50Mi"))', value: false },
    { expr: 'quantity("50Mi").isGreaterThan(quantity("50M"))', value: true },
    { expr: 'quantity("200M").compareTo(quantity("0.2G"))', value: 0n },
    { expr: 'quantity("50M").compareTo(quantity("50Mi"))', value: -1n },
    { expr: 'quantity("50Mi").compareTo(quantity("50M"))', value: 1n },
    { expr: 'quantity("50k").add(quantity("20")) == quantity("50.02k")', value: true },
    { expr: 'quantity("50k").add(20) == quantity("50020")', value: true },
    { expr: 'quantity("50k").add(20).isInteger()', value: true },
    { expr: 'quantity("50k").sub(quantity("20")) == quantity("49.98k")', value: true },
    { expr: 'quantity("50k").sub(20) == quantity("49980")', value: true },
    { expr: 'quantity("50k").sub(quantity("50k")).sign()', value: 0n },
    { expr: 'quantity("50").sub(60).sign()', value: -1n },
    { expr: 'quantity("50k").sign()', value: 1n },
    { expr: 'quantity("50k").asApproximateFloat()', value: 50000 },
    { expr: 'quantity("50k").asInteger()', value: 50000n },
    { expr: 'quantity("50k").isInteger()', value: true },
    { expr: 'quantity("9999999999999999999999999999999999999G").isInteger()', value: false },
    { expr: 'quantity("50m").isInteger()', value: false },
    { expr: 'quantity("50m").asInteger()', error: 'cannot convert value to integer' },
    { expr: 'quantity("9999999999999999999999999999999999999G").asInteger()', error: 'cannot convert value to integer' },
  ]);
  runTable([{ expr: 'isQuantity("1")', compileError: /isQuantity/ }], celLibEnv({ version: '1.27' }));
});

// Expectations from kube's library/urls tests and cel_test.go.
describe('CEL library: URLs', () => {
  runTable([
    { expr: 'url("https://example.com/").getScheme()', value: 'https' },
    { expr: 'url("https://example.com:80/").getHost()', value: 'example.com:80' },
    { expr: 'url("https://example.com/").getHost()', value: 'example.com' },
    { expr: 'url("https://[::1]:80/").getHost()', value: '[::1]:80' },
    { expr: 'url("https://[::1]:80/").getHostname()', value: '::1' },
    { expr: 'url("https://example.com:80/").getHostname()', value: 'example.com' },
    { expr: 'url("https://example.com:80/").getPort()', value: '80' },
    { expr: 'url("https://example.com/").getPort()', value: '' },
    { expr: 'url("https://example.com/path").getEscapedPath()', value: '/path' },
    { expr: 'url("https://example.com/path with spaces/").getEscapedPath()', value: '/path%20with%20spaces/' },
    { expr: 'url("https://example.com/path%20with%20spaces/").getEscapedPath()', value: '/path%20with%20spaces/' },
    { expr: 'url("https://example.com/").getEscapedPath()', value: '/' },
    { expr: 'url("https://example.com").getEscapedPath()', value: '' },
    {
      expr: 'url("https://example.com/path?k1=a&k2=b&k2=c").getQuery()',
      value: new Map([['k1', ['a']], ['k2', ['b', 'c']]]),
    },
    { expr: 'url("https://example.com/path?k1=a&k2=b&k2=c").getQuery()["k2"]', value: ['b', 'c'] },
    { expr: 'url("https://example.com/?a=b+c&d=%20").getQuery()["a"]', value: ['b c'] },
    { expr: 'url("https://example.com/#fragment").getEscapedPath()', value: '/' },
    { expr: 'url("/absolute-path").getScheme()', value: '' },
    { expr: 'url("/absolute-path").getEscapedPath()', value: '/absolute-path' },
    { expr: 'isURL("https://user:pass@example.com:80/path?query=val#fragment")', value: true },
    { expr: 'isURL("/absolute-path")', value: true },
    { expr: 'isURL("../relative-path")', value: false },
    { expr: 'isURL("https://example.com:abc/")', value: false },
    { expr: 'isURL("")', value: false },
    {
      expr: 'url("../relative-path")',
      error: 'URL parse error during conversion from string: parse "../relative-path": invalid URI for request',
    },
    {
      expr: 'url("https://example.com:abc/")',
      error: 'URL parse error during conversion from string: parse "https://example.com:abc/": invalid port ":abc" after host',
    },
    {
      expr: 'url("https://example.com/%zz")',
      error: 'URL parse error during conversion from string: parse "https://example.com/%zz": invalid URL escape "%zz"',
    },
  ]);
});
