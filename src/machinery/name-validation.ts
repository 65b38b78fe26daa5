/**
 * Name and label syntax with kube's rules and messages
 * (k8s.io/apimachinery/pkg/util/validation).
 */

const DNS1123_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN = `${DNS1123_LABEL}(\\.${DNS1123_LABEL})*`;
const DNS1035_LABEL = '[a-z]([-a-z0-9]*[a-z0-9])?';
const QUALIFIED_NAME_PART = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE = `(${QUALIFIED_NAME_PART})?`;

const dns1123LabelRe = new RegExp(`^${DNS1123_LABEL}$`);
const dns1123SubdomainRe = new RegExp(`^${DNS1123_SUBDOMAIN}$`);
const dns1035LabelRe = new RegExp(`^${DNS1035_LABEL}$`);
const qualifiedNamePartRe = new RegExp(`^${QUALIFIED_NAME_PART}$`);
const labelValueRe = new RegExp(`^${LABEL_VALUE}$`);

export const DNS1123_LABEL_MAX = 63;
export const DNS1123_SUBDOMAIN_MAX = 253;
export const LABEL_VALUE_MAX = 63;
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

/** validation.RegexError: a format error with examples and the regex. */
export function regexError(what: string, regex: string, ...examples: string[]): string {
  let msg = `${what} (e.g. `;
  msg += examples.map((e) => `'${e}'`).join(',  or ');
  msg += `, regex used for validation is '${regex}')`;
  return msg;
}

function maxLenError(n: number): string {
  return `must be no more than ${n} characters`;
}

export function isDns1123Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123_LABEL_MAX) errs.push(maxLenError(DNS1123_LABEL_MAX));
  if (!dns1123LabelRe.test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
        DNS1123_LABEL,
        'my-name',
        '123-abc',
      ),
    );
  }
  return errs;
}

export function isDns1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123_SUBDOMAIN_MAX) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX));
  if (!dns1123SubdomainRe.test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        DNS1123_SUBDOMAIN,
        'example.com',
      ),
    );
  }
  return errs;
}

export function isDns1035Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123_LABEL_MAX) errs.push(maxLenError(DNS1123_LABEL_MAX));
  if (!dns1035LabelRe.test(value)) {
    errs.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        DNS1035_LABEL,
        'my-name',
        'abc-123',
      ),
    );
  }
  return errs;
}

/** path.ValidatePathSegmentName: what RBAC object names must satisfy. */
export function isPathSegmentName(value: string, prefix = false): string[] {
  if (!prefix && (value === '.' || value === '..')) return [`may not be '${value}'`];
  const errs: string[] = [];
  for (const bad of ['/', '%']) if (value.includes(bad)) errs.push(`may not contain '${bad}'`);
  return errs;
}

/** validation.IsQualifiedName: `[prefix/]name`, used for label, annotation and finalizer keys. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else for (const m of isDns1123Subdomain(prefix)) errs.push(`prefix part ${m}`);
  } else {
    return [
      'a qualified name ' +
        regexError(
          "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
          QUALIFIED_NAME_PART,
          'MyName',
          'my.name',
          '123-abc',
        ) +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!qualifiedNamePartRe.test(name)) {
    errs.push(
      'name part ' +
        regexError(
          "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
          QUALIFIED_NAME_PART,
          'MyName',
          'my.name',
          '123-abc',
        ),
    );
  }
  return errs;
}

export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (value.length > LABEL_VALUE_MAX) errs.push(maxLenError(LABEL_VALUE_MAX));
  if (!labelValueRe.test(value)) {
    errs.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        LABEL_VALUE,
        'MyValue',
        'my_value',
        '12345',
      ),
    );
  }
  return errs;
}

/** How a resource type's object names are validated (per type in kube-apiserver). */
export type NameRule = 'dns1123Subdomain' | 'dns1123Label' | 'dns1035Label' | 'pathSegment';

export function validateNameByRule(rule: NameRule, name: string, prefix = false): string[] {
  switch (rule) {
    case 'dns1123Label':
      return isDns1123Label(prefix ? maskTrailingDash(name) : name);
    case 'dns1035Label':
      return isDns1035Label(prefix ? maskTrailingDash(name) : name);
    case 'pathSegment':
      return isPathSegmentName(name, prefix);
    default:
      return isDns1123Subdomain(prefix ? maskTrailingDash(name) : name);
  }
}

/** generateName prefixes may end in '-' (kube's maskTrailingDash). */
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? name.slice(0, -2) + 'a' : name;
}

