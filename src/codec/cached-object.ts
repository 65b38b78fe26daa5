import type { KubeObject } from '../machinery/object.js';

/**
 * One version of one object as the watch cache holds it: the decoded object
 * (storage version, resourceVersion stamped; shared and never mutated) and
 * its encodings, made once per variant (served version × media type × form)
 * and shared by every list response and watcher that sends it.
 */
export class CachedObject {
  private encodings: Map<string, Buffer> | undefined;
  private frames: Map<string, string | Buffer> | undefined;

  constructor(
    readonly key: string,
    readonly object: KubeObject,
    /** The revision this version was written at (for DELETED events: the delete's revision). */
    readonly revision: number,
  ) {}

  get namespace(): string | undefined {
    return this.object.metadata?.namespace;
  }

  get name(): string {
    return this.object.metadata?.name ?? '';
  }

  /** The bytes of this version in `variant`, made by `make` the first time they are asked for. */
  encoded(variant: string, make: (obj: KubeObject) => Buffer): Buffer {
    let hit = this.encodings?.get(variant);
    if (!hit) {
      hit = make(this.object);
      (this.encodings ??= new Map()).set(variant, hit);
    }
    return hit;
  }

  /** The bytes of `variant` if they were made already. */
  encodedIfMade(variant: string): Buffer | undefined {
    return this.encodings?.get(variant);
  }

  /** A watch event frame of this version (sharedEventFrame), made by `make` the first time. */
  frame(variant: string, make: () => string | Buffer): string | Buffer {
    let hit = this.frames?.get(variant);
    if (hit === undefined) {
      hit = make();
      (this.frames ??= new Map()).set(variant, hit);
    }
    return hit;
  }

  /** The same object as seen at another revision (a DELETED event carries the delete's revision). */
  atRevision(revision: number): CachedObject {
    const object: KubeObject = { ...this.object, metadata: { ...this.object.metadata, resourceVersion: String(revision) } };
    return new CachedObject(this.key, object, revision);
  }
}
