/**
 * The `Warning` header values of a response, as kube-apiserver's warning
 * recorder (endpoints/filters/warning.go) writes them: each text once, in the
 * order added, as `299 - "<text>"`; once the texts pass 4,096 runes in all,
 * every text is cut to 256 runes and texts past the limit are dropped; a text
 * that NewWarningHeader refuses (control characters, invalid UTF-8) is
 * dropped. Go writes header bytes as they are, so non-ASCII text goes out as
 * UTF-8 (Node would refuse it in a header string: it is passed as latin1
 * characters, one per UTF-8 byte).
 */

const TRUNCATE_AT_TOTAL_RUNES = 4 * 1024;
const TRUNCATE_ITEM_RUNES = 256;

export function warningHeaderValues(texts: readonly string[]): string[] {
  const recorded = new Set<string>();
  const ordered: string[] = [];
  let headers: string[] = [];
  let written = 0;
  let truncating = false;
  for (const text of texts) {
    if (text.length === 0) continue;
    if (written >= TRUNCATE_AT_TOTAL_RUNES && truncating) break;
    if (recorded.has(text)) continue;
    recorded.add(text);
    ordered.push(text);
    let runes = [...text];
    if (truncating && runes.length > TRUNCATE_ITEM_RUNES) runes = runes.slice(0, TRUNCATE_ITEM_RUNES);
    const header = warningHeader(runes);
    if (header === undefined) continue;
    if (written + runes.length <= TRUNCATE_AT_TOTAL_RUNES || truncating) {
      written += runes.length;
      headers.push(header);
      continue;
    }
    // Over the limit for the first time: every text so far is written again, cut.
    truncating = true;
    written = 0;
    headers = [];
    for (const earlier of ordered) {
      const cut = [...earlier].slice(0, TRUNCATE_ITEM_RUNES);
      const h = warningHeader(cut);
      if (h === undefined) continue;
      written += cut.length;
      headers.push(h);
    }
  }
  return headers;
}

/** NewWarningHeader(299, "-", text) as header bytes in a latin1 string; undefined where Go refuses the text. */
function warningHeader(runes: readonly string[]): string | undefined {
  let quoted = '"';
  for (const r of runes) {
    const cp = r.codePointAt(0)!;
    // unicode.IsControl (Cc), and lone surrogates: not valid UTF-8.
    if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || (cp >= 0xd800 && cp <= 0xdfff)) return undefined;
    quoted += r === '"' || r === '\\' ? `\\${r}` : r;
  }
  quoted += '"';
  return `299 - ${Buffer.from(quoted, 'utf8').toString('latin1')}`;
}
