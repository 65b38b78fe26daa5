/**
 * Loads the generated descriptors on first use and compiles each message the
 * first time it is needed, so importing the codec costs nothing at start-up
 * and a request only pays for the types it touches.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  FIELD_INLINE,
  FIELD_MAP,
  FIELD_OMITEMPTY,
  FIELD_OMITZERO,
  FIELD_POINTER,
  FIELD_REPEATED,
  FIELD_REQUIRED,
  type MessageDesc,
  type ProtoDescriptorFile,
  type ScalarType,
  type SpecialKind,
} from './descriptor-types.js';
import { buildAssembler, buildExtractor, type Assembler, type Extractor } from './assemble.js';
import { ProtobufUnsupportedKindError } from './errors.js';
import { WIRE_BYTES, WIRE_VARINT } from './wire.js';

export interface Field {
  readonly name: string;
  readonly number: number;
  /** Set for scalar fields (and for repeated/map values that are scalars). */
  readonly scalar: ScalarType | undefined;
  /** Full name of the message type; resolve with `messageOf`. */
  readonly typeName: string | undefined;
  readonly repeated: boolean;
  readonly map: boolean;
  readonly inline: boolean;
  readonly required: boolean;
  /** A Go pointer: nil is not written (scalars and messages). A singular message without it is a Go value struct. */
  readonly pointer: boolean;
  /** The Go json tag has omitempty. */
  readonly omitempty: boolean;
  /** The Go json tag has omitzero. */
  readonly omitzero: boolean;
  /** Precomputed tag (number << 3 | wire type) of one value of this field. */
  readonly tag: number;
  /** Wire type a singular value is written with. */
  readonly wireType: number;
  /** Compiled target message, filled on first use. */
  message: Message | undefined;
}

export interface Message {
  readonly name: string;
  readonly special: SpecialKind | undefined;
  readonly typeMeta: boolean;
  /** Declaration (= Go struct = JSON key) order. */
  readonly fields: readonly Field[];
  /** Field number → index in `fields`; sparse array for small numbers. */
  readonly indexByNumber: readonly (number | undefined)[];
  /** Fields in ascending field number: the order Go marshals them in. */
  readonly encodeOrder: readonly Field[];
  /** Built on first decode (see assemble.ts). */
  assembler: Assembler | undefined;
  /** Built on first encode: reads the JSON values of `encodeOrder`. */
  extractor: Extractor | undefined;
  /** Go JSON (codec/go-json.ts): the struct's zero value as encoding/json writes it, made on first use. */
  goZero: unknown;
}

let file: ProtoDescriptorFile | undefined;
const compiled = new Map<string, Message>();

/** Where the generated JSON lives: beside the sources (the compiled code runs from dist/). */
function descriptorPath(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [
    join(here, 'generated', 'k8s-proto.json'),
    // dist/src/codec/protobuf → src/codec/protobuf
    join(here, '..', '..', '..', '..', 'src', 'codec', 'protobuf', 'generated', 'k8s-proto.json'),
  ];
  for (const c of candidates) if (existsSync(c)) return c;
  throw new Error(`capstan: protobuf descriptors not found (looked in ${candidates.join(', ')})`);
}

export function descriptorFile(): ProtoDescriptorFile {
  if (file === undefined) file = JSON.parse(readFileSync(descriptorPath(), 'utf8')) as ProtoDescriptorFile;
  return file;
}

export function messageOf(name: string): Message {
  let m = compiled.get(name);
  if (m !== undefined) return m;
  const desc = descriptorFile().messages[name];
  if (desc === undefined) throw new Error(`protobuf: no message ${name} in the descriptors`);
  m = compile(name, desc);
  compiled.set(name, m);
  return m;
}

/** The compiled target message of a message-typed field. */
export function fieldMessage(f: Field): Message {
  if (f.message === undefined) f.message = messageOf(f.typeName!);
  return f.message;
}

export function assemblerOf(m: Message): Assembler {
  if (m.assembler === undefined) m.assembler = buildAssembler(m.fields);
  return m.assembler;
}

export function extractorOf(m: Message): Extractor {
  if (m.extractor === undefined) m.extractor = buildExtractor(m.encodeOrder);
  return m.extractor;
}

function compile(name: string, desc: MessageDesc): Message {
  const fields: Field[] = desc.fields.map(([fname, number, type, flags]) => {
    const scalar = isScalar(type) ? type : undefined;
    const map = (flags & FIELD_MAP) !== 0;
    const repeated = (flags & FIELD_REPEATED) !== 0;
    const wireType = scalar !== undefined && scalar !== 'string' && scalar !== 'bytes' && !map ? WIRE_VARINT : WIRE_BYTES;
    return {
      name: fname,
      number,
      scalar,
      typeName: scalar === undefined ? type : undefined,
      repeated,
      map,
      inline: (flags & FIELD_INLINE) !== 0,
      required: (flags & FIELD_REQUIRED) !== 0,
      pointer: (flags & FIELD_POINTER) !== 0,
      omitempty: (flags & FIELD_OMITEMPTY) !== 0,
      omitzero: (flags & FIELD_OMITZERO) !== 0,
      tag: (number << 3) | wireType,
      wireType,
      message: undefined,
    };
  });
  const indexByNumber: (number | undefined)[] = [];
  fields.forEach((f, i) => {
    indexByNumber[f.number] = i;
  });
  return {
    name,
    special: desc.special,
    typeMeta: desc.typeMeta === true,
    fields,
    indexByNumber,
    encodeOrder: [...fields].sort((a, b) => a.number - b.number),
    assembler: undefined,
    extractor: undefined,
    goZero: undefined,
  };
}

function isScalar(t: string): t is ScalarType {
  return t === 'string' || t === 'int32' || t === 'int64' || t === 'bool' || t === 'bytes';
}

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** The message for a kind, or undefined when the group version has no such proto type. */
export function findKind(apiVersion: string, kind: string): Message | undefined {
  const d = descriptorFile();
  const pkg = d.groupVersions[apiVersion];
  if (pkg !== undefined && d.messages[`${pkg}.${kind}`] !== undefined) return messageOf(`${pkg}.${kind}`);
  const meta = d.metaKinds[kind];
  // Meta kinds (Status, DeleteOptions, WatchEvent...) are registered in every group version, custom ones included.
  if (meta !== undefined) return messageOf(meta);
  return undefined;
}

export function messageForKind(apiVersion: string, kind: string): Message {
  const m = findKind(apiVersion, kind);
  if (m === undefined) throw new ProtobufUnsupportedKindError(apiVersion, kind);
  return m;
}
