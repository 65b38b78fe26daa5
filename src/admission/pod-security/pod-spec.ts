/**
 * The parts of a PodSpec the Pod Security Standards read, as the JSON of
 * core/v1 (fields absent when unset), and the helpers the checks share
 * (policy/helpers.go, policy/visitor.go).
 */

export interface SeccompProfile {
  type?: string;
  localhostProfile?: string;
}

export interface AppArmorProfile {
  type?: string;
  localhostProfile?: string;
}

export interface SELinuxOptions {
  user?: string;
  role?: string;
  type?: string;
  level?: string;
}

export interface WindowsOptions {
  hostProcess?: boolean;
}

export interface SecurityContext {
  privileged?: boolean;
  allowPrivilegeEscalation?: boolean;
  runAsNonRoot?: boolean;
  runAsUser?: number;
  capabilities?: { add?: string[]; drop?: string[] };
  procMount?: string;
  seccompProfile?: SeccompProfile;
  appArmorProfile?: AppArmorProfile;
  seLinuxOptions?: SELinuxOptions;
  windowsOptions?: WindowsOptions;
}

export interface PodSecurityContext {
  runAsNonRoot?: boolean;
  runAsUser?: number;
  seccompProfile?: SeccompProfile;
  appArmorProfile?: AppArmorProfile;
  seLinuxOptions?: SELinuxOptions;
  windowsOptions?: WindowsOptions;
  sysctls?: Array<{ name: string; value?: string }>;
}

interface HostHandler {
  httpGet?: { host?: string };
  tcpSocket?: { host?: string };
}

/** A container, init container or ephemeral container (EphemeralContainerCommon has the same fields). */
export interface Container {
  name: string;
  image?: string;
  securityContext?: SecurityContext;
  ports?: Array<{ hostPort?: number }>;
  livenessProbe?: HostHandler;
  readinessProbe?: HostHandler;
  startupProbe?: HostHandler;
  lifecycle?: { postStart?: HostHandler; preStop?: HostHandler };
}

export type Volume = { name: string } & Record<string, unknown>;

export interface PodSpec {
  containers?: Container[];
  initContainers?: Container[];
  ephemeralContainers?: Container[];
  volumes?: Volume[];
  securityContext?: PodSecurityContext;
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  hostUsers?: boolean;
  os?: { name?: string };
  runtimeClassName?: string;
}

export interface PodMetadata {
  name?: string;
  annotations?: Record<string, string>;
}

/** Init containers, then containers, then ephemeral containers (visitContainers). */
export function allContainers(spec: PodSpec): Container[] {
  return [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])];
}

/** `"a", "b"` (joinQuote); empty for no items. */
export function joinQuote(items: readonly string[]): string {
  return items.length === 0 ? '' : `"${items.join('", "')}"`;
}

export function pluralize(singular: string, plural: string, count: number): string {
  return count === 1 ? singular : plural;
}

/** Distinct values in Go's byte order (sets.List / sets.NewString().List()). */
export function sortedSet(values: Iterable<string>): string[] {
  return [...new Set(values)].sort(compareBytes);
}

/** Go's string comparison (UTF-16 order agrees with it for the names seen here). */
export function compareBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A pod in a user namespace (hostUsers: false) is allowed more (relaxPolicyForUserNamespacePod). */
export function inUserNamespace(spec: PodSpec): boolean {
  return spec.hostUsers === false;
}

export function isWindowsPod(spec: PodSpec): boolean {
  return spec.os?.name === 'windows';
}
