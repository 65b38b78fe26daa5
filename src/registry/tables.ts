import { valueAt, type KubeObject } from './object.js';

/**
 * Server-side printing (`as=Table`): the columns kube-apiserver's printers
 * define per resource, and the default Name / Created At table for the rest.
 */

export interface ColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface TableConvertor {
  columns: ColumnDefinition[];
  cells(obj: KubeObject, now: number): unknown[];
}

const NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
const CREATION_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

const nameColumn: ColumnDefinition = { name: 'Name', type: 'string', format: 'name', description: NAME_DESCRIPTION, priority: 0 };
const ageColumn: ColumnDefinition = { name: 'Age', type: 'string', format: '', description: CREATION_DESCRIPTION, priority: 0 };

export const DEFAULT_TABLE: TableConvertor = {
  columns: [nameColumn, { name: 'Created At', type: 'date', format: '', description: CREATION_DESCRIPTION, priority: 0 }],
  cells: (obj) => [obj.metadata?.name ?? '', obj.metadata?.creationTimestamp ?? null],
};

/** duration.HumanDuration: the AGE column's wording. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.trunc(hours / 24) % 365;
    return dy === 0 ? `${Math.trunc(hours / 24 / 365)}y` : `${Math.trunc(hours / 24 / 365)}y${dy}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/** translateTimestampSince: `<unknown>` for a missing timestamp. */
export function age(obj: KubeObject, now: number): string {
  const ts = obj.metadata?.creationTimestamp;
  if (!ts) return '<unknown>';
  return humanDuration(now - Date.parse(ts));
}

function col(name: string, type: string, description: string, priority = 0, format = ''): ColumnDefinition {
  return { name, type, format, description, priority };
}

const get = valueAt;

const TABLES: Record<string, TableConvertor> = {
  '/namespaces': {
    columns: [nameColumn, col('Status', 'string', 'The status of the namespace'), ageColumn],
    cells: (o, now) => [o.metadata?.name ?? '', get(o, 'status', 'phase') ?? '', age(o, now)],
  },
  '/configmaps': {
    columns: [nameColumn, col('Data', 'string', 'Data contains the configuration data. Each key must consist of alphanumeric characters, \'-\', \'_\' or \'.\'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.'), ageColumn],
    cells: (o, now) => [
      o.metadata?.name ?? '',
      Object.keys((o.data as object | undefined) ?? {}).length + Object.keys((o.binaryData as object | undefined) ?? {}).length,
      age(o, now),
    ],
  },
  '/secrets': {
    columns: [nameColumn, col('Type', 'string', 'Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types'), col('Data', 'string', 'Data contains the secret data. Each key must consist of alphanumeric characters, \'-\', \'_\' or \'.\'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4'), ageColumn],
    cells: (o, now) => [o.metadata?.name ?? '', o.type ?? '', Object.keys((o.data as object | undefined) ?? {}).length, age(o, now)],
  },
  '/serviceaccounts': {
    columns: [nameColumn, col('Secrets', 'string', 'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use. Pods are only limited to this list if this service account has a "kubernetes.io/enforce-mountable-secrets" annotation set to "true". The "kubernetes.io/enforce-mountable-secrets" annotation is deprecated since v1.32. Prefer separate namespaces to isolate access to mounted secrets. This field should not be used to find auto-generated service account token secrets for use outside of pods. Instead, tokens can be requested directly using the TokenRequest API, or service account token secrets can be manually created. More info: https://kubernetes.io/docs/concepts/configuration/secret'), ageColumn],
    cells: (o, now) => [o.metadata?.name ?? '', ((o.secrets as unknown[] | undefined) ?? []).length, age(o, now)],
  },
};

export function tableConvertorFor(group: string, resource: string): TableConvertor {
  return TABLES[`${group}/${resource}`] ?? DEFAULT_TABLE;
}
