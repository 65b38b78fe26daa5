/** field.Path rendering: `.child`, `[index]`, `[key]` (kube's Path.Key). */

export function childPath(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}

export function indexPath(path: string, i: number): string {
  return `${path}[${i}]`;
}

export function keyPath(path: string, key: string): string {
  return `${path}[${key}]`;
}

