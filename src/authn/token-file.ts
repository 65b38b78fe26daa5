import { readFileSync } from 'node:fs';
import type { UserInfo } from '../machinery/context.js';
import type { Logger } from '../machinery/logger.js';
import type { AuthenticationResult } from './authenticator.js';
import type { TokenAuthenticator } from './bearer-token.js';

/**
 * --token-auth-file (k8s.io/apiserver tokenfile): a CSV of
 * `token,user,uid[,"group1,group2"]`, read once at start. A token not in the
 * file is no opinion (another authenticator may know it).
 */
export class TokenFileAuthenticator implements TokenAuthenticator {
  private constructor(private readonly tokens: ReadonlyMap<string, UserInfo>) {}

  static fromFile(path: string, logger?: Logger): TokenFileAuthenticator {
    return TokenFileAuthenticator.fromCsv(readFileSync(path, 'utf8'), path, logger);
  }

  static fromCsv(text: string, path: string, logger?: Logger): TokenFileAuthenticator {
    const tokens = new Map<string, UserInfo>();
    let recordNum = 0;
    for (const record of parseCsv(text, path)) {
      if (record.length < 3) throw new Error(`token file '${path}' must have at least 3 columns (token, user name, user uid), found ${record.length}`);
      recordNum++;
      const [token, username, uid] = record as [string, string, string];
      if (token === '') {
        logger?.info(`empty token has been found in token file '${path}', record number '${recordNum}'`);
        continue;
      }
      if (tokens.has(token)) logger?.info(`duplicate token has been found in token file '${path}', record number '${recordNum}'`);
      const user: UserInfo = { username, uid, groups: record.length >= 4 ? record[3]!.split(',') : [] };
      tokens.set(token, user);
    }
    return new TokenFileAuthenticator(tokens);
  }

  async authenticateToken(token: string): Promise<AuthenticationResult | undefined> {
    const user = this.tokens.get(token);
    return user ? { user } : undefined;
  }
}

/**
 * Go's encoding/csv as the token file reads it: comma-separated, fields may
 * be quoted (`""` is a quote inside), blank lines skipped, any number of
 * fields per record.
 */
export function parseCsv(text: string, path: string): string[][] {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let quoted = false;
  let line = 1;
  let i = 0;
  const endRecord = (): void => {
    record.push(field);
    if (!(record.length === 1 && record[0] === '')) records.push(record);
    record = [];
    field = '';
  };
  while (i < text.length) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        const next = text[i];
        if (next !== undefined && next !== ',' && next !== '\n' && next !== '\r') throw new Error(`parse error on line ${line}: extraneous or missing " in quoted-field (${path})`);
        continue;
      }
      if (c === '\n') line++;
      field += c;
      i++;
      continue;
    }
    if (c === '"' && field === '') {
      quoted = true;
      i++;
    } else if (c === '"') {
      throw new Error(`parse error on line ${line}: bare " in non-quoted-field (${path})`);
    } else if (c === ',') {
      record.push(field);
      field = '';
      i++;
    } else if (c === '\r' && text[i + 1] === '\n') {
      i++;
    } else if (c === '\n') {
      endRecord();
      line++;
      i++;
    } else {
      field += c;
      i++;
    }
  }
  if (quoted) throw new Error(`parse error on line ${line}: extraneous or missing " in quoted-field (${path})`);
  if (field !== '' || record.length > 0) endRecord();
  return records;
}
