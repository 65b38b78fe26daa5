/**
 * Builds, per message, the function that turns decoded field values into the
 * JSON object (and the one that reads a JSON object's fields for encoding). It is generated code with one constant-key store per field:
 * a generic `out[name] = v` loop makes a single megamorphic store site for
 * every message type, which cost a third of Pod decode time.
 *
 * The names come from the generated descriptors, never from input, and are
 * embedded as JSON string literals.
 */
import type { Field } from './descriptor.js';

export type JsonObject = Record<string, unknown>;

/** values[i] belongs to fields[i]; `emptyInline(i)` decodes an absent inline field as an empty message. */
export type Assembler = (values: unknown[], out: JsonObject, emptyInline: (i: number) => unknown) => JsonObject;

export function buildAssembler(fields: readonly Field[]): Assembler {
  const lines: string[] = ['let v, k;'];
  fields.forEach((f, i) => {
    const key = JSON.stringify(f.name);
    lines.push(`v = values[${i}];`);
    if (f.inline) {
      lines.push(`if (v === undefined) v = emptyInline(${i});`);
      lines.push('if (v !== null && typeof v === "object") for (k in v) out[k] = v[k];');
      return;
    }
    // Absent: only a Go field without omitempty still shows, as its zero value (nil: null).
    let absent: string | undefined;
    if (!f.omitempty) {
      if (f.repeated || f.map || f.scalar === 'bytes' || f.pointer) absent = 'null';
      else if (f.scalar === 'string') absent = '""';
      else if (f.scalar === 'bool') absent = 'false';
      else if (f.scalar !== undefined) absent = '0';
    }
    // Present: a zero plain scalar with omitempty is Go's "unset".
    // omitzero (creationTimestamp): a zero Time, decoded as null, is not written.
    let present = f.omitzero ? `if (v !== null) out[${key}] = v;` : `out[${key}] = v;`;
    if (f.scalar !== undefined && !f.repeated && !f.map && !f.pointer && f.omitempty) {
      const zero = f.scalar === 'bool' ? 'false' : f.scalar === 'int32' || f.scalar === 'int64' ? '0' : '""';
      present = `if (v !== ${zero}) out[${key}] = v;`;
    }
    lines.push(`if (v !== undefined) { ${present} }${absent !== undefined ? ` else out[${key}] = ${absent};` : ''}`);
  });
  lines.push('return out;');
  return new Function('values', 'out', 'emptyInline', lines.join('\n')) as Assembler;
}

/** Reads an object's fields in the given order (one constant-key load per field; see above). */
export type Extractor = (obj: JsonObject) => unknown[];

export function buildExtractor(fields: readonly Field[]): Extractor {
  const loads = fields.map((f) => (f.inline ? 'undefined' : `obj[${JSON.stringify(f.name)}]`));
  return new Function('obj', `return [${loads.join(', ')}];`) as Extractor;
}
