import { type Environment, Optional } from '@marcbachmann/cel-js';

import {
  isQualifiedName,
  isValidLabelValue,
  validateNameByRule,
} from '../../machinery/name-validation.js';
import { parseGoURL } from './urls.js';

/** A `kubernetes.NamedFormat` value: one of kube's named string validations. */
export class CelFormat {
  readonly celTypeName = 'kubernetes.NamedFormat';
  constructor(
    readonly name: string,
    readonly validate: (s: string) => string[],
    /** The size of the regular expression kube charges for in cost estimates. */
    readonly maxRegexSize: number,
  ) {}
  equals(other: CelFormat): boolean {
    return this.name === other.name;
  }
}

/** The constant that `format.named(...)` and `format.dns1123Label()` are methods of. */
export class FormatNamespace {}

const UUID = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32})$/i;
/** strfmt.UUIDPattern's length, kube's regex size for uuid. */
const UUID_PATTERN_LENGTH = '(?i)(^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$)|(^[0-9a-f]{32}$)'.length;
/** strfmt.DateTimePattern's length. */
const DATE_TIME_PATTERN_LENGTH =
  '^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$'.length;
/** govalidator.URL and govalidator.Base64 lengths (kube's estimates for uri and byte). */
const GOVALIDATOR_URL_LENGTH = 1075;
const GOVALIDATOR_BASE64_LENGTH = '^(?:[A-Za-z0-9+\\/]{4})*(?:[A-Za-z0-9+\\/]{2}==|[A-Za-z0-9+\\/]{3}=|[A-Za-z0-9+\\/]{4})$'.length;

/** time.Parse("2006-01-02", s). */
function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  const days = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  return d <= days;
}

/** strfmt.IsDateTime. */
function isDateTime(s: string): boolean {
  if (s.length < 4) return false;
  const parts = s.toLowerCase().split('t');
  if (parts.length < 2 || !isDate(parts[0]!)) return false;
  const m = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/.exec(parts[1]!);
  if (!m) return false;
  return m[1]! <= '23' && m[2]! <= '59' && m[3]! <= '59';
}

/** base64.StdEncoding.DecodeString succeeds: padded standard alphabet. */
function isBase64(s: string): boolean {
  return s.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(s) && !/=[^=]/.test(s);
}

function check(ok: boolean, message: string): string[] {
  return ok ? [] : [message];
}

/** kube's ConstantFormats, by the name `format.named` takes. */
export const NAMED_FORMATS: ReadonlyMap<string, CelFormat> = new Map(
  [
    new CelFormat('dns1123Label', (s) => validateNameByRule('dns1123Label', s, false), 30),
    new CelFormat('dns1123Subdomain', (s) => validateNameByRule('dns1123Subdomain', s, false), 60),
    new CelFormat('dns1035Label', (s) => validateNameByRule('dns1035Label', s, false), 30),
    new CelFormat('qualifiedName', isQualifiedName, 60),
    new CelFormat('dns1123LabelPrefix', (s) => validateNameByRule('dns1123Label', s, true), 30),
    new CelFormat('dns1123SubdomainPrefix', (s) => validateNameByRule('dns1123Subdomain', s, true), 60),
    new CelFormat('dns1035LabelPrefix', (s) => validateNameByRule('dns1035Label', s, true), 30),
    new CelFormat('labelValue', isValidLabelValue, 40),
    new CelFormat(
      'uri',
      (s) => {
        try {
          parseGoURL(s, true);
          return [];
        } catch (e) {
          return [(e as Error).message];
        }
      },
      GOVALIDATOR_URL_LENGTH,
    ),
    new CelFormat('uuid', (s) => check(UUID.test(s), 'does not match the UUID format'), UUID_PATTERN_LENGTH),
    new CelFormat('byte', (s) => check(isBase64(s), 'invalid base64'), GOVALIDATOR_BASE64_LENGTH),
    new CelFormat('date', (s) => check(isDate(s), 'invalid date'), DATE_TIME_PATTERN_LENGTH),
    new CelFormat('datetime', (s) => check(isDateTime(s), 'invalid datetime'), DATE_TIME_PATTERN_LENGTH),
  ].map((f) => [f.name, f]),
);

/** kube's library.Format (from 1.31): format.named, format.<name>() and <Format>.validate. */
export function registerFormat(env: Environment): void {
  const T = 'kubernetes.NamedFormat';
  const NS = 'kubernetes.FormatNamespace';
  env.registerType(T, CelFormat);
  env.registerType(NS, FormatNamespace);
  env.registerConstant('format', NS, new FormatNamespace());
  env.registerFunction(`${NS}.named(string): optional<${T}>`, (_: unknown, name: string) => {
    const f = NAMED_FORMATS.get(name);
    return f === undefined ? Optional.none() : Optional.of(f);
  });
  for (const [name, f] of NAMED_FORMATS) env.registerFunction(`${NS}.${name}(): ${T}`, () => f);
  env.registerFunction(`${T}.validate(string): optional<list<string>>`, (f: CelFormat, s: string) => {
    const errs = f.validate(s);
    return errs.length === 0 ? Optional.none() : Optional.of(errs);
  });
  env.registerOperator(`${T} == ${T}`, (a: CelFormat, b: CelFormat) => a.equals(b));
}
