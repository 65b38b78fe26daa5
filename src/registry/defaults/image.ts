/**
 * The part of the docker reference grammar kube's parsers.ParseImageName uses
 * to pick an image pull policy: the tag, or "latest" when the reference names
 * neither a tag nor a digest. References that fail to parse give no tag, which
 * makes the policy IfNotPresent (kube ignores the parse error there).
 */

const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[a-fA-F0-9:]+\\])(?::[0-9]+)?`;
const PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*';
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}';
const REFERENCE = new RegExp(`^((?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*)(?::(${TAG}))?(?:@(${DIGEST}))?$`);
const NAME_TOTAL_MAX = 255;

/** The image's tag as ParseImageName reports it ("" on a parse failure or a digest-only reference). */
export function imageTag(image: string): string {
  const m = REFERENCE.exec(image);
  if (!m) return '';
  const name = m[1]!;
  if (name.length > NAME_TOTAL_MAX) return '';
  const tag = m[2] ?? '';
  const digest = m[3] ?? '';
  if (tag === '' && digest === '') return 'latest';
  return tag;
}

/** Always for `:latest` (explicit or implied), otherwise IfNotPresent. */
export function defaultPullPolicy(image: unknown): 'Always' | 'IfNotPresent' {
  return typeof image === 'string' && imageTag(image) === 'latest' ? 'Always' : 'IfNotPresent';
}
