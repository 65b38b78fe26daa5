/**
 * Sets of field paths (structured-merge-diff fieldpath.Set): a trie whose
 * nodes hold "members" (paths that end here) and "children" (subtrees). A
 * parent is not implicitly a member when a child is; FieldsV1 marks a node
 * that is both with ".".
 *
 * The set algebra follows upstream exactly, including its asymmetries:
 * parent - child = parent, child - parent = {} (Difference only removes
 * members), while RecursiveDifference drops whole subtrees.
 */
import { type Path, type PathElement, comparePathElements } from './path.js';

interface ChildNode {
  readonly pe: PathElement;
  readonly set: FieldSet;
}

function search<T>(items: readonly T[], pe: PathElement, key: (t: T) => PathElement): { index: number; found: boolean } {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = comparePathElements(key(items[mid] as T), pe);
    if (c === 0) return { index: mid, found: true };
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return { index: lo, found: false };
}

const self = (pe: PathElement): PathElement => pe;
const nodeKey = (n: ChildNode): PathElement => n.pe;

export class FieldSet {
  /** Sorted path elements that are members at this level. */
  private members: PathElement[];
  /** Sorted subtrees. */
  private children: ChildNode[];

  constructor(members: PathElement[] = [], children: ChildNode[] = []) {
    this.members = members;
    this.children = children;
  }

  static of(...paths: Path[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  /** Adds a path (parents are not added). The empty path (whole object) is never tracked. */
  insert(path: Path): void {
    if (path.length === 0) return;
    let s: FieldSet = this;
    for (let i = 0; i < path.length - 1; i++) s = s.descend(path[i] as PathElement);
    s.insertMember(path[path.length - 1] as PathElement);
  }

  insertMember(pe: PathElement): void {
    const members = this.members;
    // Paths mostly arrive in order (FieldsV1 is written sorted, objects are
    // walked in schema order): appending skips the search.
    const last = members[members.length - 1];
    if (last === undefined || comparePathElements(last, pe) < 0) {
      members.push(pe);
      return;
    }
    const { index, found } = search(members, pe, self);
    if (!found) members.splice(index, 0, pe);
  }

  /** The subtree under pe, created if absent. */
  descend(pe: PathElement): FieldSet {
    const children = this.children;
    const last = children[children.length - 1];
    const order = last === undefined ? -1 : comparePathElements(last.pe, pe);
    if (order === 0) return (last as ChildNode).set;
    let index = children.length;
    if (order > 0) {
      const at = search(children, pe, nodeKey);
      if (at.found) return (children[at.index] as ChildNode).set;
      index = at.index;
    }
    const set = new FieldSet();
    children.splice(index, 0, { pe, set });
    return set;
  }

  hasMember(pe: PathElement): boolean {
    return search(this.members, pe, self).found;
  }

  child(pe: PathElement): FieldSet | undefined {
    const { index, found } = search(this.children, pe, nodeKey);
    return found ? (this.children[index] as ChildNode).set : undefined;
  }

  has(path: Path): boolean {
    if (path.length === 0) return false;
    let s: FieldSet | undefined = this;
    for (let i = 0; i < path.length - 1; i++) {
      s = s.child(path[i] as PathElement);
      if (s === undefined) return false;
    }
    return s.hasMember(path[path.length - 1] as PathElement);
  }

  /** The paths below pe, without the prefix (empty when absent). */
  withPrefix(pe: PathElement): FieldSet {
    return this.child(pe) ?? new FieldSet();
  }

  memberElements(): readonly PathElement[] {
    return this.members;
  }

  childNodes(): readonly ChildNode[] {
    return this.children;
  }

  empty(): boolean {
    if (this.members.length > 0) return false;
    return this.children.every((c) => c.set.empty());
  }

  size(): number {
    return this.members.length + this.children.reduce((n, c) => n + c.set.size(), 0);
  }

  union(other: FieldSet): FieldSet {
    const members = mergeSorted(this.members, other.members, self, 'union');
    const children: ChildNode[] = [];
    let i = 0;
    let j = 0;
    const a = this.children;
    const b = other.children;
    while (i < a.length && j < b.length) {
      const c = comparePathElements((a[i] as ChildNode).pe, (b[j] as ChildNode).pe);
      if (c < 0) children.push(a[i++] as ChildNode);
      else if (c > 0) children.push(b[j++] as ChildNode);
      else {
        children.push({ pe: (a[i] as ChildNode).pe, set: (a[i] as ChildNode).set.union((b[j] as ChildNode).set) });
        i++;
        j++;
      }
    }
    while (i < a.length) children.push(a[i++] as ChildNode);
    while (j < b.length) children.push(b[j++] as ChildNode);
    return new FieldSet(members, children);
  }

  intersection(other: FieldSet): FieldSet {
    const members = mergeSorted(this.members, other.members, self, 'intersection');
    const children: ChildNode[] = [];
    let i = 0;
    let j = 0;
    const a = this.children;
    const b = other.children;
    while (i < a.length && j < b.length) {
      const c = comparePathElements((a[i] as ChildNode).pe, (b[j] as ChildNode).pe);
      if (c < 0) i++;
      else if (c > 0) j++;
      else {
        const res = (a[i] as ChildNode).set.intersection((b[j] as ChildNode).set);
        if (!res.empty()) children.push({ pe: (a[i] as ChildNode).pe, set: res });
        i++;
        j++;
      }
    }
    return new FieldSet(members, children);
  }

  /** Members of this not in other; children keep their nodes unless other's same child removes members. */
  difference(other: FieldSet): FieldSet {
    const members = mergeSorted(this.members, other.members, self, 'difference');
    const children: ChildNode[] = [];
    for (const node of this.children) {
      const o = other.child(node.pe);
      if (o === undefined) children.push(node);
      else {
        const diff = node.set.difference(o);
        if (!diff.empty()) children.push({ pe: node.pe, set: diff });
      }
    }
    return new FieldSet(members, children);
  }

  /** Like difference, but a member of other also removes this's whole subtree under it. */
  recursiveDifference(other: FieldSet): FieldSet {
    const members = mergeSorted(this.members, other.members, self, 'difference');
    const children: ChildNode[] = [];
    for (const node of this.children) {
      if (other.hasMember(node.pe)) continue;
      const o = other.child(node.pe);
      if (o === undefined) children.push(node);
      else {
        const diff = node.set.recursiveDifference(o);
        if (!diff.empty()) children.push({ pe: node.pe, set: diff });
      }
    }
    return new FieldSet(members, children);
  }

  /** Only the leaf paths: members that are not also parents of other members. */
  leaves(): FieldSet {
    const members = this.members.filter((m) => this.child(m) === undefined);
    return new FieldSet(
      members,
      this.children.map((c) => ({ pe: c.pe, set: c.set.leaves() })),
    );
  }

  equals(other: FieldSet): boolean {
    if (this.members.length !== other.members.length || this.children.length !== other.children.length) return false;
    for (let i = 0; i < this.members.length; i++) {
      if (comparePathElements(this.members[i] as PathElement, other.members[i] as PathElement) !== 0) return false;
    }
    for (let i = 0; i < this.children.length; i++) {
      const a = this.children[i] as ChildNode;
      const b = other.children[i] as ChildNode;
      if (comparePathElements(a.pe, b.pe) !== 0 || !a.set.equals(b.set)) return false;
    }
    return true;
  }

  /** Every member path, preorder: this level's members, then each child's paths. */
  paths(): Path[] {
    const out: Path[] = [];
    this.iterate([], (p) => out.push(p));
    return out;
  }

  private iterate(prefix: PathElement[], f: (p: Path) => void): void {
    for (const m of this.members) f([...prefix, m]);
    for (const c of this.children) c.set.iterate([...prefix, c.pe], f);
  }

  copy(): FieldSet {
    return new FieldSet(
      [...this.members],
      this.children.map((c) => ({ pe: c.pe, set: c.set.copy() })),
    );
  }
}

function mergeSorted<T>(a: readonly T[], b: readonly T[], key: (t: T) => PathElement, op: 'union' | 'intersection' | 'difference'): T[] {
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const c = comparePathElements(key(a[i] as T), key(b[j] as T));
    if (c < 0) {
      if (op !== 'intersection') out.push(a[i] as T);
      i++;
    } else if (c > 0) {
      if (op === 'union') out.push(b[j] as T);
      j++;
    } else {
      if (op !== 'difference') out.push(a[i] as T);
      i++;
      j++;
    }
  }
  if (op !== 'intersection') while (i < a.length) out.push(a[i++] as T);
  if (op === 'union') while (j < b.length) out.push(b[j++] as T);
  return out;
}
