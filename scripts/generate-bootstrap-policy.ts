/**
 * Generates src/authz/rbac/bootstrap-policy-data.ts (kube-apiserver's default
 * RBAC objects) from upstream Kubernetes' bootstrap policy golden files, the
 * Lists that plugin/pkg/auth/authorizer/rbac/bootstrappolicy's tests keep in
 * testdata/ (cluster-roles.yaml, cluster-role-bindings.yaml,
 * controller-roles.yaml, controller-role-bindings.yaml, namespace-roles.yaml,
 * namespace-role-bindings.yaml), as the policy code builds them with the
 * release's default feature gates.
 *
 * Run by hand: save those files (never commit them) in one directory with a
 * sources.json that says where each came from ({"<file>": "<upstream commit
 * and path, or how it was rendered>"}), then
 *   npm run build --silent && node dist/scripts/generate-bootstrap-policy.js DIR [--check]
 * --check compares instead of writing (exit 1 on a difference).
 * controller-role-bindings.yaml is optional: controller_policy.go binds every
 * controller role to the kube-system service account of the same name, which
 * bootstrap-policy.ts derives; when the file is there it must say exactly that.
 * scripts/bootstrap-policy-render/ renders the cluster-level and namespace
 * files from upstream's policy.go / namespace_policy.go when no golden copy of
 * the wanted release is at hand.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { load } from 'js-yaml';

import { repoRootFrom } from './generate-catalog.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const BOOTSTRAP_LABEL = 'kubernetes.io/bootstrapping';
const AUTOUPDATE = 'rbac.authorization.kubernetes.io/autoupdate';
const CONTROLLER_PREFIX = 'system:controller:';

export const GOLDEN_FILES = [
  'cluster-roles.yaml',
  'cluster-role-bindings.yaml',
  'controller-roles.yaml',
  'namespace-roles.yaml',
  'namespace-role-bindings.yaml',
] as const;
export const OPTIONAL_GOLDEN_FILES = ['controller-role-bindings.yaml'] as const;

type Obj = Record<string, unknown>;

export class GoldenFileError extends Error {}

function fail(where: string, what: string): never {
  throw new GoldenFileError(`${where}: ${what}`);
}

function obj(v: unknown, where: string): Obj {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) fail(where, 'expected an object');
  return v as Obj;
}

function strings(v: unknown, where: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) fail(where, 'expected a list of strings');
  return v as string[];
}

function str(v: unknown, where: string): string {
  if (typeof v !== 'string' || v === '') fail(where, 'expected a non-empty string');
  return v;
}

/** Items of a v1 List, each of the one kind the file holds. */
function listItems(text: string, file: string, kind: string): Obj[] {
  const doc = obj(load(text), file);
  if (doc.kind !== 'List' || !Array.isArray(doc.items)) fail(file, 'not a List');
  return doc.items.map((raw, i) => {
    const item = obj(raw, `${file} item ${i}`);
    if (item.apiVersion !== `${RBAC_GROUP}/v1` || item.kind !== kind) fail(`${file} item ${i}`, `expected ${RBAC_GROUP}/v1 ${kind}`);
    return item;
  });
}

interface Meta {
  name: string;
  namespace?: string;
  extraLabels: [string, string][];
}

/** The metadata every bootstrap object carries, and the labels beyond it. */
function meta(item: Obj, where: string): Meta {
  const m = obj(item.metadata, where);
  const name = str(m.name, where);
  const labels = obj(m.labels ?? {}, `${where} labels`);
  const annotations = obj(m.annotations ?? {}, `${where} annotations`);
  if (labels[BOOTSTRAP_LABEL] !== 'rbac-defaults') fail(where, `missing label ${BOOTSTRAP_LABEL}=rbac-defaults`);
  if (annotations[AUTOUPDATE] !== 'true' || Object.keys(annotations).length !== 1) fail(where, `annotations other than ${AUTOUPDATE}="true"`);
  const extraLabels = Object.entries(labels)
    .filter(([k]) => k !== BOOTSTRAP_LABEL)
    .map(([k, v]): [string, string] => [k, str(v, `${where} label ${k}`)]);
  const out: Meta = { name, extraLabels };
  if (m.namespace !== undefined) out.namespace = str(m.namespace, where);
  return out;
}

function noSpaces(values: string[], where: string): string {
  for (const v of values) if (/[\s|,]/.test(v)) fail(where, `value ${JSON.stringify(v)} cannot be written in the table`);
  return values.join(',');
}

/** One rule in the table's grammar (see bootstrap-policy-data.ts). */
function ruleLine(raw: unknown, where: string): string {
  const r = obj(raw, where);
  const verbs = strings(r.verbs, `${where} verbs`);
  const urls = strings(r.nonResourceURLs, `${where} nonResourceURLs`);
  const groups = strings(r.apiGroups, `${where} apiGroups`);
  const resources = strings(r.resources, `${where} resources`);
  const names = strings(r.resourceNames, `${where} resourceNames`);
  if (verbs.length === 0) fail(where, 'rule without verbs');
  if (urls.length > 0) {
    if (groups.length + resources.length + names.length > 0) fail(where, 'rule mixes nonResourceURLs and resources');
    return `  @ ${noSpaces(urls, where)} | ${noSpaces(verbs, where)}`;
  }
  if (groups.length === 0 || resources.length === 0) fail(where, 'resource rule without apiGroups or resources');
  const line = `  ${noSpaces(groups.map((g) => (g === '' ? 'core' : g)), where)} | ${noSpaces(resources, where)} | ${noSpaces(verbs, where)}`;
  return names.length > 0 ? `${line} | ${noSpaces(names, where)}` : line;
}

function rules(item: Obj, where: string): string[] {
  if (item.rules === null || item.rules === undefined) return [];
  if (!Array.isArray(item.rules)) fail(where, 'rules is not a list');
  return item.rules.map((r, i) => ruleLine(r, `${where} rule ${i}`));
}

function aggregation(item: Obj, where: string): string[] {
  if (item.aggregationRule === undefined) return [];
  const selectors = obj(item.aggregationRule, where).clusterRoleSelectors;
  if (!Array.isArray(selectors)) fail(where, 'aggregationRule without clusterRoleSelectors');
  return selectors.map((s, i) => {
    const sel = obj(s, `${where} selector ${i}`);
    const labels = Object.entries(obj(sel.matchLabels ?? {}, `${where} selector ${i}`));
    if (labels.length !== 1 || sel.matchExpressions !== undefined) fail(where, 'only single-label matchLabels selectors can be written');
    return `aggregate=${labels[0]![0]}=${str(labels[0]![1], where)}`;
  });
}

function clusterRoleBlock(item: Obj, where: string): string[] {
  const m = meta(item, where);
  const head = ['clusterrole', m.name, ...m.extraLabels.map(([k, v]) => `label=${k}=${v}`), ...aggregation(item, where)];
  return [head.join(' '), ...rules(item, where)];
}

function subject(raw: unknown, where: string): string {
  const s = obj(raw, where);
  const kind = str(s.kind, where);
  const name = str(s.name, where);
  if (kind === 'ServiceAccount') {
    if (s.apiGroup !== undefined && s.apiGroup !== '') fail(where, 'service account subject with an apiGroup');
    return `ServiceAccount:${str(s.namespace, where)}/${name}`;
  }
  if ((kind !== 'User' && kind !== 'Group') || s.apiGroup !== RBAC_GROUP || s.namespace !== undefined) fail(where, `subject ${kind} cannot be written`);
  return `${kind}:${name}`;
}

function subjects(item: Obj, where: string): string[] {
  if (item.subjects === undefined || item.subjects === null) return [];
  if (!Array.isArray(item.subjects)) fail(where, 'subjects is not a list');
  return item.subjects.map((s, i) => subject(s, `${where} subject ${i}`));
}

function roleRef(item: Obj, where: string, kinds: string[]): { kind: string; name: string } {
  const ref = obj(item.roleRef, `${where} roleRef`);
  const kind = str(ref.kind, where);
  if (ref.apiGroup !== RBAC_GROUP || !kinds.includes(kind)) fail(where, `roleRef ${kind} cannot be written`);
  return { kind, name: str(ref.name, where) };
}

export interface GoldenInput {
  files: Record<string, string>;
  sources: Record<string, string>;
}

/** The table text (the BOOTSTRAP_POLICY string) for the golden files. */
export function tableFrom(input: GoldenInput): string {
  const text = (file: string): string => input.files[file] ?? fail(file, 'missing');
  const out: string[] = [''];
  for (const [i, item] of listItems(text('cluster-roles.yaml'), 'cluster-roles.yaml', 'ClusterRole').entries()) {
    out.push(...clusterRoleBlock(item, `cluster-roles.yaml item ${i}`));
  }
  out.push('');
  for (const [i, item] of listItems(text('cluster-role-bindings.yaml'), 'cluster-role-bindings.yaml', 'ClusterRoleBinding').entries()) {
    const where = `cluster-role-bindings.yaml item ${i}`;
    const m = meta(item, where);
    if (m.extraLabels.length > 0) fail(where, 'extra labels on a binding');
    out.push(['clusterrolebinding', m.name, roleRef(item, where, ['ClusterRole']).name, ...subjects(item, where)].join(' '));
  }
  out.push('');
  for (const [i, item] of listItems(text('namespace-roles.yaml'), 'namespace-roles.yaml', 'Role').entries()) {
    const where = `namespace-roles.yaml item ${i}`;
    const m = meta(item, where);
    if (m.namespace === undefined || m.extraLabels.length > 0) fail(where, 'a Role needs a namespace and no extra labels');
    out.push(`role ${m.namespace} ${m.name}`, ...rules(item, where));
  }
  out.push('');
  for (const [i, item] of listItems(text('namespace-role-bindings.yaml'), 'namespace-role-bindings.yaml', 'RoleBinding').entries()) {
    const where = `namespace-role-bindings.yaml item ${i}`;
    const m = meta(item, where);
    if (m.namespace === undefined) fail(where, 'a RoleBinding needs a namespace');
    const ref = roleRef(item, where, ['Role', 'ClusterRole']);
    out.push(['rolebinding', m.namespace, m.name, ref.kind, ref.name, ...subjects(item, where)].join(' '));
  }
  out.push('', 'controllers');
  const controllerRoles = listItems(text('controller-roles.yaml'), 'controller-roles.yaml', 'ClusterRole');
  for (const [i, item] of controllerRoles.entries()) {
    const where = `controller-roles.yaml item ${i}`;
    if (!meta(item, where).name.startsWith(CONTROLLER_PREFIX)) fail(where, `controller role not named ${CONTROLLER_PREFIX}*`);
    out.push(...clusterRoleBlock(item, where));
  }
  const bindings = input.files['controller-role-bindings.yaml'];
  if (bindings !== undefined) checkControllerBindings(bindings, controllerRoles);
  return out.join('\n') + '\n';
}

/** controller_policy.go binds each controller role to kube-system/<role name without the prefix>. */
function checkControllerBindings(text: string, roles: Obj[]): void {
  const file = 'controller-role-bindings.yaml';
  const want = new Set(roles.map((r) => meta(r, file).name));
  for (const [i, item] of listItems(text, file, 'ClusterRoleBinding').entries()) {
    const where = `${file} item ${i}`;
    const name = meta(item, where).name;
    const ref = roleRef(item, where, ['ClusterRole']);
    const subs = subjects(item, where);
    const sa = `ServiceAccount:kube-system/${name.slice(CONTROLLER_PREFIX.length)}`;
    if (!want.delete(name) || ref.name !== name || subs.length !== 1 || subs[0] !== sa) fail(where, `${name} is not the binding of its controller role to ${sa}`);
  }
  if (want.size > 0) fail(file, `no binding for ${[...want].join(', ')}`);
}

const HEADER = `/**
 * kube-apiserver 1.36's default RBAC policy, as data. GENERATED by
 * scripts/generate-bootstrap-policy.ts from upstream Kubernetes' bootstrap
 * policy golden files (plugin/pkg/auth/authorizer/rbac/bootstrappolicy/
 * testdata/); do not edit by hand. Sources:
@@SOURCES@@
 * bootstrap-policy.ts parses it; controller roles get their bindings there.
 *
 * Grammar, one item per line:
 *   clusterrole NAME [label=K=V ...] [aggregate=K=V ...]
 *   role NAMESPACE NAME
 *     GROUPS | RESOURCES | VERBS [| RESOURCENAMES]     ("" is written core)
 *     @ URLS | VERBS                                   (non-resource rule)
 *   clusterrolebinding NAME ROLE [SUBJECT ...]
 *   rolebinding NAMESPACE NAME ROLEKIND ROLE [SUBJECT ...]
 * SUBJECT: User:name, Group:name, ServiceAccount:namespace/name.
 * \`controllers\` marks the start of the controller roles (each gets its binding).
 */
export const BOOTSTRAP_POLICY = \``;

/** The whole bootstrap-policy-data.ts. */
export function dataFileFrom(input: GoldenInput): string {
  const sources = Object.entries(input.sources)
    .sort(([a], [b]) => a.localeCompare(b))
    .flatMap(([file, from]) => wrap(`${file}: ${from}`, 76).map((line, i) => ` *${i === 0 ? '   - ' : '     '}${line}`));
  const table = tableFrom(input);
  if (table.includes('`') || table.includes('${')) fail('table', 'would break the template literal');
  return HEADER.replace('@@SOURCES@@', sources.join('\n')) + table + '`;\n';
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines;
}

export function readGoldenDir(dir: string): GoldenInput {
  const files: Record<string, string> = {};
  for (const f of GOLDEN_FILES) {
    const p = join(dir, f);
    if (!existsSync(p)) fail(p, 'missing');
    files[f] = readFileSync(p, 'utf8');
  }
  for (const f of OPTIONAL_GOLDEN_FILES) if (existsSync(join(dir, f))) files[f] = readFileSync(join(dir, f), 'utf8');
  const sourcesPath = join(dir, 'sources.json');
  if (!existsSync(sourcesPath)) fail(sourcesPath, 'missing: say where each golden file came from');
  const sources = obj(JSON.parse(readFileSync(sourcesPath, 'utf8')), sourcesPath);
  const described: Record<string, string> = {};
  for (const f of Object.keys(files)) described[f] = str(sources[f], `${sourcesPath} ${f}`);
  return { files, sources: described };
}

function main(): void {
  const args = process.argv.slice(2);
  const dir = args.find((a) => !a.startsWith('--'));
  if (dir === undefined) {
    console.error('usage: node dist/scripts/generate-bootstrap-policy.js DIR [--check]');
    process.exit(2);
  }
  const target = join(repoRootFrom(import.meta.url), 'src', 'authz', 'rbac', 'bootstrap-policy-data.ts');
  let text: string;
  try {
    text = dataFileFrom(readGoldenDir(dir));
  } catch (err) {
    if (!(err instanceof GoldenFileError)) throw err;
    console.error(`generate-bootstrap-policy: ${err.message}`);
    process.exit(1);
  }
  if (args.includes('--check')) {
    const same = existsSync(target) && readFileSync(target, 'utf8') === text;
    console.log(same ? 'generate-bootstrap-policy: up to date' : `generate-bootstrap-policy: ${target} differs from the golden files`);
    process.exit(same ? 0 : 1);
  }
  writeFileSync(target, text);
  console.log(`generate-bootstrap-policy: wrote ${target}`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main();
