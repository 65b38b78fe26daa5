/**
 * PEM as Go's encoding/pem reads and writes it: blocks are found anywhere in
 * the text (what comes before a block is skipped), a block's headers
 * (`Key: value` lines) are not part of its bytes, and writing wraps the
 * base64 at 64 columns.
 */

export interface PemBlock {
  type: string;
  bytes: Buffer;
}

const BLOCK = /-----BEGIN ([^\n-]*)-----\r?\n([\s\S]*?)-----END \1-----/g;

/** Every block of `text`, in order. */
export function pemBlocks(text: string): PemBlock[] {
  const out: PemBlock[] = [];
  for (const m of text.matchAll(BLOCK)) out.push({ type: m[1]!, bytes: blockBytes(m[2]!) });
  return out;
}

/** The first block (pem.Decode), or undefined when there is none. */
export function firstPemBlock(text: string): PemBlock | undefined {
  BLOCK.lastIndex = 0;
  const m = BLOCK.exec(text);
  BLOCK.lastIndex = 0;
  return m ? { type: m[1]!, bytes: blockBytes(m[2]!) } : undefined;
}

/** pem.EncodeToMemory of one block. */
export function encodePem(type: string, bytes: Uint8Array): string {
  const body = Buffer.from(bytes).toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${type}-----\n${body.map((line) => `${line}\n`).join('')}-----END ${type}-----\n`;
}

function blockBytes(body: string): Buffer {
  const lines = body.split(/\r?\n/);
  let start = 0;
  // A first line with a colon starts the headers, which end at an empty line.
  if (lines[0]?.includes(':')) {
    const blank = lines.findIndex((line) => line.trim() === '');
    start = blank >= 0 ? blank + 1 : lines.length;
  }
  return Buffer.from(lines.slice(start).join('').replace(/\s+/g, ''), 'base64');
}
