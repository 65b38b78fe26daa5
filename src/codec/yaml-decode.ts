import { CORE_SCHEMA, EVENT_ID, constructFromEvents, parseEvents } from 'js-yaml';
import { randomBytes } from 'node:crypto';
import { MAX_NESTING_DEPTH } from '../machinery/nesting.js';
import { FlowDepthError, restoreDeepFlows, spliceDeepFlows, type SplicedYaml } from './yaml-deep-flow.js';

/**
 * YAML request bodies with the limits sigs.k8s.io/yaml's decoder (its
 * go-yaml v2 fork) puts on them, and its error texts:
 * - flow collections nested deeper than MAX_NESTING_DEPTH (go-yaml's max_flow_level, 10000):
 *   `yaml: [line N: ]exceeded max depth of 10000`;
 * - aliases that expand to most of the document (a "billion laughs" bomb):
 *   `yaml: document contains excessive aliasing`, by go-yaml's own measure
 *   (decode operations inside aliases over all decode operations, allowed up
 *   to 99% for small documents and down to 10% from 4,000,000 operations);
 * - an alias inside the node its anchor names: `yaml: anchor 'm' value contains itself`;
 * - an alias to no anchor: `yaml: unknown anchor 'x' referenced`;
 * - `.nan` / `.inf`, which the JSON conversion cannot write:
 *   `json: unsupported value: NaN` (Go's json.Marshal).
 * js-yaml builds aliases as shared references, so the checks run on the
 * event stream before anything is constructed or walked.
 */

export type YamlEvent = ReturnType<typeof parseEvents>[number];

/** A body go-yaml would refuse; the message is go-yaml's, without sigs.k8s.io/yaml's prefix. */
export class YamlLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'YamlLimitError';
  }
}

const ALIAS_RATIO_RANGE_LOW = 400_000;
const ALIAS_RATIO_RANGE_HIGH = 4_000_000;

function allowedAliasRatio(decodeCount: number): number {
  if (decodeCount <= ALIAS_RATIO_RANGE_LOW) return 0.99;
  if (decodeCount >= ALIAS_RATIO_RANGE_HIGH) return 0.1;
  return 0.99 - 0.89 * ((decodeCount - ALIAS_RATIO_RANGE_LOW) / (ALIAS_RATIO_RANGE_HIGH - ALIAS_RATIO_RANGE_LOW));
}

/** A YAML body parsed: the events of its text (deep flow collections taken out, see yaml-deep-flow.ts). */
export interface ParsedYaml {
  /** The text the events point into. */
  source: string;
  events: YamlEvent[];
  /** Placeholder scalars of `source` → the deep flow collections they stand for. */
  deep: Map<string, unknown> | undefined;
}

const DEEP_TOKEN = `capstan-deep-flow-${randomBytes(8).toString('hex')}-`;

/** Parses YAML text; throws YamlLimitError past go-yaml's limits, js-yaml's exception on other bad input. */
export function parseYaml(text: string): ParsedYaml {
  let spliced: SplicedYaml | undefined;
  try {
    spliced = spliceDeepFlows(text, MAX_NESTING_DEPTH, DEEP_TOKEN);
  } catch (err) {
    // go-yaml's scanner error: `line N: ` only when the mark is past the first line.
    if (err instanceof FlowDepthError) throw new YamlLimitError(`yaml: ${err.line === 0 ? '' : `line ${err.line + 1}: `}exceeded max depth of ${err.limit}`);
    throw err;
  }
  const source = spliced?.source ?? text;
  let events: YamlEvent[];
  try {
    // go-yaml bounds flow levels and block indents at MAX_NESTING_DEPTH each; js-yaml counts both together.
    events = parseEvents(source, { maxDepth: 2 * MAX_NESTING_DEPTH });
  } catch (err) {
    if (err instanceof Error && err.message.startsWith('nesting exceeded maxDepth')) throw new YamlLimitError(`yaml: exceeded max depth of ${MAX_NESTING_DEPTH}`);
    throw err;
  }
  checkAliases(source, events);
  return { source, events, deep: spliced?.values };
}

interface Frame {
  anchor: string | undefined;
  /** Decode operations of this node so far, aliases expanded. */
  size: number;
}

/**
 * Counts decode operations as go-yaml's decoder does (every node once, an
 * alias's target again each time it is referenced, nested aliases included)
 * and fails where it would. The ratio only grows while an alias expands, so
 * checking after each alias is checking at every step.
 */
function checkAliases(source: string, events: readonly YamlEvent[]): void {
  const anchorOf = (e: { anchorStart: number; anchorEnd: number }): string | undefined => (e.anchorStart < 0 ? undefined : source.slice(e.anchorStart, e.anchorEnd));
  let sizes = new Map<string, number>();
  const stack: Frame[] = [];
  let decodeCount = 0;
  let aliasCount = 0;
  const addToParent = (n: number): void => {
    const top = stack[stack.length - 1];
    if (top) top.size += n;
  };
  for (const e of events) {
    switch (e.type) {
      case EVENT_ID.DOCUMENT:
        sizes = new Map();
        decodeCount++;
        stack.push({ anchor: undefined, size: 1 });
        break;
      case EVENT_ID.MAPPING:
      case EVENT_ID.SEQUENCE:
        decodeCount++;
        stack.push({ anchor: anchorOf(e), size: 1 });
        break;
      case EVENT_ID.SCALAR: {
        decodeCount++;
        const anchor = anchorOf(e);
        if (anchor !== undefined) sizes.set(anchor, 1);
        addToParent(1);
        break;
      }
      case EVENT_ID.ALIAS: {
        const name = source.slice(e.anchorStart, e.anchorEnd);
        if (stack.some((f) => f.anchor === name)) throw new YamlLimitError(`yaml: anchor '${name}' value contains itself`);
        const target = sizes.get(name);
        if (target === undefined) throw new YamlLimitError(`yaml: unknown anchor '${name}' referenced`);
        decodeCount += 1 + target;
        aliasCount += target;
        addToParent(1 + target);
        if (aliasCount > 100 && decodeCount > 1000 && aliasCount / decodeCount > allowedAliasRatio(decodeCount)) {
          throw new YamlLimitError('yaml: document contains excessive aliasing');
        }
        break;
      }
      case EVENT_ID.POP: {
        const done = stack.pop();
        if (done?.anchor !== undefined) sizes.set(done.anchor, done.size);
        if (done) addToParent(done.size);
        break;
      }
    }
  }
}

/**
 * The documents of checked events, as js-yaml's loadAll with the core schema
 * and `json: true` gives them (a repeated key keeps its last value, as
 * go-yaml's non-strict decoder does). Throws YamlLimitError for a NaN or an
 * infinity, which sigs.k8s.io/yaml cannot turn into JSON.
 */
export function constructYaml(parsed: ParsedYaml): unknown[] {
  let documents = constructFromEvents(parsed.events, { source: parsed.source, schema: CORE_SCHEMA, json: true });
  if (parsed.deep !== undefined) documents = restoreDeepFlows(documents, parsed.deep);
  checkFinite(documents);
  return documents;
}

function checkFinite(documents: unknown[]): void {
  // Aliases make the documents a graph with shared parts: each part is looked at once.
  const seen = new Set<object>();
  const work: unknown[] = documents.slice();
  while (work.length > 0) {
    const v = work.pop();
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) throw new YamlLimitError(`json: unsupported value: ${Number.isNaN(v) ? 'NaN' : v > 0 ? '+Inf' : '-Inf'}`);
    } else if (typeof v === 'object' && v !== null && !seen.has(v)) {
      seen.add(v);
      for (const child of Array.isArray(v) ? v : Object.values(v)) work.push(child);
    }
  }
}
