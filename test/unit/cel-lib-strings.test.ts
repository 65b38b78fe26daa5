import { describe } from 'node:test';

import { celLibEnv, runTable } from '../helpers/cel-lib.js';

// Expectations from cel-go's ext/strings.go documentation and strings_test.go.
describe('CEL library: extended strings (ext.Strings version 2)', () => {
  runTable([
    { expr: "'hello'.charAt(4)", value: 'o' },
    { expr: "'hello'.charAt(5)", value: '' },
    { expr: "'hello'.charAt(-1)", error: 'index out of range: -1' },
    { expr: "'hello'.charAt(6)", error: 'index out of range: 6' },
    { expr: "'ä😀b'.charAt(1)", value: '😀' },
    { expr: "'ä😀b'.charAt(2)", value: 'b' },
    { expr: "'hello hello'.replace('he', 'we')", value: 'wello wello' },
    { expr: "'hello hello'.replace('he', 'we', -1)", value: 'wello wello' },
    { expr: "'hello hello'.replace('he', 'we', 1)", value: 'wello hello' },
    { expr: "'hello hello'.replace('he', 'we', 0)", value: 'hello hello' },
    { expr: "'abc'.replace('', '-')", value: '-a-b-c-' },
    { expr: "'abc'.replace('', '-', 2)", value: '-a-bc' },
    { expr: "'hello mellow'.indexOf('')", value: 0n },
    { expr: "'hello mellow'.indexOf('ello')", value: 1n },
    { expr: "'hello mellow'.indexOf('jello')", value: -1n },
    { expr: "'hello mellow'.indexOf('', 2)", value: 2n },
    { expr: "'hello mellow'.indexOf('ello', 2)", value: 7n },
    { expr: "'hello mellow'.lastIndexOf('ello')", value: 7n },
    { expr: "'hello mellow'.lastIndexOf('jello')", value: -1n },
    { expr: "'hello mellow'.lastIndexOf('ello', 6)", value: 1n },
    { expr: "'TacoCat'.lowerAscii()", value: 'tacocat' },
    { expr: "'TacoCat'.upperAscii()", value: 'TACOCAT' },
    { expr: "'hello hello hello'.split(' ')", value: ['hello', 'hello', 'hello'] },
    { expr: "'hello hello hello'.split(' ', 0)", value: [] },
    { expr: "'hello hello hello'.split(' ', 1)", value: ['hello hello hello'] },
    { expr: "'hello hello hello'.split(' ', 2)", value: ['hello', 'hello hello'] },
    { expr: "'hello hello hello'.split(' ', -1)", value: ['hello', 'hello', 'hello'] },
    { expr: "['hello', 'mellow'].join()", value: 'hellomellow' },
    { expr: "['hello', 'mellow'].join(' ')", value: 'hello mellow' },
    { expr: "'tacocat'.substring(4)", value: 'cat' },
    { expr: "'tacocat'.substring(0, 4)", value: 'taco' },
    { expr: "'  \\ttrim\\n    '.trim()", value: 'trim' },
    // format (version 1)
    { expr: "'this is a string: %s\\nand an integer: %d'.format([dyn('str'), dyn(42)])", value: 'this is a string: str\nand an integer: 42' },
    { expr: "'a double substituted with %%s: %s'.format([64.2])", value: 'a double substituted with %s: 64.2' },
    { expr: "'string type: %s'.format([type('test string')])", value: 'string type: string' },
    { expr: "'timestamp: %s'.format([timestamp('2023-02-03T23:31:20+00:00')])", value: 'timestamp: 2023-02-03T23:31:20Z' },
    { expr: "'duration: %s'.format([duration('1h45m47s')])", value: 'duration: 6347s' },
    { expr: "'%f'.format([3.14])", value: '3.140000' },
    { expr: "'%.3f'.format([1.2345])", value: '1.234' },
    { expr: "'%.2f'.format([1234.5])", value: '1,234.50' },
    { expr: "'%f'.format([double('Infinity')])", value: '∞' },
    { expr: "'%f'.format(['NaN'])", value: 'NaN' },
    { expr: "'scientific notation: %e'.format([2.71828])", value: 'scientific notation: 2.718280\u202f×\u202f10⁰⁰' },
    { expr: "'5 in binary: %b'.format([5])", value: '5 in binary: 101' },
    { expr: "'26 in hex: %x'.format([26])", value: '26 in hex: 1a' },
    { expr: "'26 in hex (uppercase): %X'.format([26])", value: '26 in hex (uppercase): 1A' },
    { expr: "'30 in octal: %o'.format([30])", value: '30 in octal: 36' },
    { expr: "'%x'.format(['Hello world!'])", value: '48656c6c6f20776f726c6421' },
    { expr: "'%s'.format([[1, 2, 3]])", value: '[1, 2, 3]' },
    { expr: "'%s'.format([{'a': 'x', 'c': 'z', 'b': 'y'}])", value: '{"a":"x", "b":"y", "c":"z"}' },
    { expr: "'%s'.format([['a', 'b']])", value: '["a", "b"]' },
    { expr: "'%s'.format([[1.5]])", value: '[1.500000]' },
    { expr: "'true bool: %s - false bool: %s\\nbinary bool: %b'.format([true, false, true])", value: 'true bool: true - false bool: false\nbinary bool: 1' },
    { expr: "'%s'.format([null])", value: 'null' },
    { expr: "'%s'.format([b'abc'])", value: 'abc' },
    { expr: "'%d'.format(['str'])", error: 'error during formatting: decimal clause can only be used on integers, was given string' },
    { expr: "'%f'.format([1])", error: 'error during formatting: fixed-point clause can only be used on doubles, was given int' },
    { expr: "'%e'.format(['x'])", error: 'error during formatting: scientific clause can only be used on doubles, was given string' },
    { expr: "'%b'.format([1.5])", error: 'error during formatting: only integers and bools can be formatted as binary, was given double' },
    { expr: "'%x'.format([1.5])", error: 'error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given double' },
    { expr: "'%o'.format(['x'])", error: 'error during formatting: octal clause can only be used on integers, was given string' },
    { expr: "'%z'.format([1])", error: 'could not parse formatting clause: unrecognized formatting clause "z"' },
    { expr: "'%d %d'.format([1])", error: 'index 1 out of range' },
    { expr: "'%'.format([1])", error: 'unexpected end of string' },
    { expr: "'%.3'.format([1.0])", error: 'could not parse formatting clause: error while parsing precision: could not find end of precision specifier' },
    // strings.quote (version 1)
    { expr: 'strings.quote(\'single-quote with "double quote"\')', value: '"single-quote with \\"double quote\\""' },
    { expr: 'strings.quote("two escape sequences \\a\\n")', value: '"two escape sequences \\a\\n"' },
    { expr: 'strings.quote("backslash \\\\")', value: '"backslash \\\\"' },
    // reverse is ext.Strings version 3, which kube does not enable.
    { expr: "'abc'.reverse()", compileError: /no matching overload/ },
  ]);
});

describe('CEL library: extended strings before 1.29 (version 0)', () => {
  const env = celLibEnv({ version: '1.28' });
  runTable(
    [
      { expr: "'hello'.charAt(1)", value: 'e' },
      { expr: "'%d'.format([1])", compileError: /no matching overload/ },
      { expr: "strings.quote('a')", compileError: /no matching overload/ },
    ],
    env,
  );
});
