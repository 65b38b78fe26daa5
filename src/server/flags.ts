import { parseGoDuration } from '../machinery/duration.js';

/**
 * Command-line flags in kube-apiserver's (pflag) style: `--name=value`,
 * `--name value`, boolean `--name` / `--name=false`, repeatable list flags
 * (`stringList` splits on commas; `stringArray` keeps each occurrence whole).
 * Unknown flags are an error (the caller exits with code 2, as cobra does).
 */

export type FlagType = 'string' | 'int' | 'bool' | 'duration' | 'stringList' | 'stringArray';

export interface FlagSpec {
  name: string;
  type: FlagType;
  default?: string;
  help: string;
  /** pflag's MarkDeprecated text: using the flag prints `Flag --name has been deprecated, <text>`. */
  deprecated?: string;
}

export class FlagError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FlagError';
  }
}

export type FlagValue = string | number | boolean | string[];

export interface ParsedFlags {
  values: Map<string, FlagValue>;
  /** Non-flag arguments (e.g. the sub-command). */
  args: string[];
  /** Flags the user set explicitly. */
  set: Set<string>;
  /** pflag's deprecation notices for the deprecated flags used, one per use. */
  warnings: string[];
}

/** Go duration syntax: 300ms, 5s, 1m30s, 2h. */
export function parseDuration(text: string): number {
  const ms = parseGoDuration(text);
  if (ms === undefined || ms < 0) throw new FlagError(`invalid duration "${text}"`);
  return ms;
}

function convert(spec: FlagSpec, raw: string): FlagValue {
  switch (spec.type) {
    case 'int': {
      if (!/^-?\d+$/.test(raw)) throw new FlagError(`invalid argument "${raw}" for "--${spec.name}" flag: strconv.ParseInt: parsing "${raw}": invalid syntax`);
      return Number(raw);
    }
    case 'bool': {
      const l = raw.toLowerCase();
      if (['1', 't', 'true'].includes(l)) return true;
      if (['0', 'f', 'false'].includes(l)) return false;
      throw new FlagError(`invalid argument "${raw}" for "--${spec.name}" flag: strconv.ParseBool: parsing "${raw}": invalid syntax`);
    }
    case 'duration':
      try {
        return parseDuration(raw);
      } catch {
        throw new FlagError(`invalid argument "${raw}" for "--${spec.name}" flag: time: invalid duration "${raw}"`);
      }
    case 'stringList':
      return raw === '' ? [] : raw.split(',');
    case 'stringArray':
      return raw === '' ? [] : [raw];
    default:
      return raw;
  }
}

export function parseFlags(argv: string[], specs: FlagSpec[]): ParsedFlags {
  const byName = new Map(specs.map((s) => [s.name, s]));
  const values = new Map<string, FlagValue>();
  const set = new Set<string>();
  const warnings: string[] = [];
  for (const s of specs) if (s.default !== undefined) values.set(s.name, convert(s, s.default));
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      args.push(...argv.slice(i + 1));
      break;
    }
    if (!a.startsWith('-') || a === '-') {
      args.push(a);
      continue;
    }
    const long = a.startsWith('--');
    const body = a.slice(long ? 2 : 1);
    // pflag: `-x` is a shorthand, which only one-letter flags (such as -v) have;
    // its value may follow as `-v=2`, `-v2` or the next argument.
    const eq = long ? body.indexOf('=') : body[1] === '=' ? 1 : -1;
    const name = long ? (eq >= 0 ? body.slice(0, eq) : body) : body[0]!;
    const spec = byName.get(name);
    if (!spec) throw new FlagError(long ? `unknown flag: --${name}` : `unknown shorthand flag: '${name}' in ${a}`);
    let raw: string;
    if (eq >= 0) raw = body.slice(eq + 1);
    else if (!long && body.length > 1) raw = body.slice(1);
    else if (spec.type === 'bool') raw = 'true';
    else {
      if (i + 1 >= argv.length) throw new FlagError(long ? `flag needs an argument: --${name}` : `flag needs an argument: '${name}' in ${a}`);
      raw = argv[++i]!;
    }
    const v = convert(spec, raw);
    if (spec.deprecated) warnings.push(`Flag --${spec.name} has been deprecated, ${spec.deprecated}`);
    if ((spec.type === 'stringList' || spec.type === 'stringArray') && set.has(name)) values.set(name, [...(values.get(name) as string[]), ...(v as string[])]);
    else values.set(name, v);
    set.add(name);
  }
  return { values, args, set, warnings };
}

export function usage(specs: FlagSpec[]): string {
  const lines = specs.map((s) => {
    const type = s.type === 'bool' ? '' : ` ${s.type === 'stringList' ? 'strings' : s.type}`;
    const def = s.default !== undefined && s.default !== '' ? ` (default ${s.type === 'string' ? JSON.stringify(s.default) : s.default})` : '';
    const deprecated = s.deprecated ? ` (DEPRECATED: ${s.deprecated})` : '';
    // pflag indents a usage's later lines under its first (the feature gate list).
    return `      --${s.name}${type}\n            ${s.help.replace(/\n/g, '\n            ')}${def}${deprecated}`;
  });
  return lines.join('\n');
}
