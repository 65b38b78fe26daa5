import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let packageRoot: string | undefined;

/**
 * The package root, found from this module's own location. The code runs
 * from dist/src/api/ once compiled (and from src/api/ under a TS loader), while
 * the generated JSON stays in src/api/generated/; walking up to package.json
 * works for both and for an installed copy of the package.
 */
export function packageRootDir(): string {
  if (packageRoot !== undefined) return packageRoot;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'src', 'api', 'generated'))) {
      packageRoot = dir;
      return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new Error(`capstan: cannot find the package root (with src/api/generated) above ${fileURLToPath(import.meta.url)}`);
}

/** Absolute path of a file in src/api/generated/. */
export function generatedFile(name: string): string {
  return join(packageRootDir(), 'src', 'api', 'generated', name);
}

/** Reads and parses a generated JSON file. The caller owns the type claim. */
export function readGeneratedJson<T>(name: string): T {
  return JSON.parse(readFileSync(generatedFile(name), 'utf8')) as T;
}
