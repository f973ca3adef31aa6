import { diffArrays, formatPatch, type StructuredPatch } from "diff";

type Hunk = StructuredPatch["hunks"][number];

const CONTEXT_LINES = 3;
const NO_NEWLINE = "\\ No newline at end of file";

/** One line of the line diff: kept, removed from `before`, or added from `after`. */
interface LineOp {
  kind: " " | "-" | "+";
  text: string;
}

/** Lines with their "\n" kept, so a last line without one differs from the same text with one. */
function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  while (start < text.length) {
    const newline = text.indexOf("\n", start);
    const end = newline === -1 ? text.length : newline + 1;
    lines.push(text.slice(start, end));
    start = end;
  }
  return lines;
}

/**
 * A patience-style line diff: lines that occur once on each side anchor the two files
 * (longest increasing subsequence), and only the short stretches between anchors go to
 * the `diff` package's Myers diff. Docs are mostly unique lines, so a megabyte with a
 * few hundred scattered edits costs about as much as reading it.
 */
function diffLines(before: string[], after: string[]): LineOp[] {
  const ids = new Map<string, number>();
  const idOf = (line: string) => {
    let id = ids.get(line);
    if (id === undefined) {
      id = ids.size;
      ids.set(line, id);
    }
    return id;
  };
  const a = before.map(idOf);
  const b = after.map(idOf);
  const ops: LineOp[] = [];
  const keep = (from: number, to: number) => {
    for (let index = from; index < to; index++) ops.push({ kind: " ", text: before[index]! });
  };

  const gap = (aFrom: number, aTo: number, bFrom: number, bTo: number) => {
    if (aFrom === aTo && bFrom === bTo) return;
    for (const part of diffArrays(a.slice(aFrom, aTo), b.slice(bFrom, bTo))) {
      for (let k = 0; k < part.count; k++) {
        if (part.removed) ops.push({ kind: "-", text: before[aFrom++]! });
        else if (part.added) ops.push({ kind: "+", text: after[bFrom++]! });
        else {
          ops.push({ kind: " ", text: before[aFrom++]! });
          bFrom++;
        }
      }
    }
  };

  let aStart = 0;
  let bStart = 0;
  let aEnd = a.length;
  let bEnd = b.length;
  while (aStart < aEnd && bStart < bEnd && a[aStart] === b[bStart]) {
    aStart++;
    bStart++;
  }
  let suffix = 0;
  while (aEnd > aStart && bEnd > bStart && a[aEnd - 1] === b[bEnd - 1]) {
    aEnd--;
    bEnd--;
    suffix++;
  }
  keep(0, aStart);

  // Anchors: ids seen exactly once on each side of the middle part.
  const countA = new Map<number, number>();
  const countB = new Map<number, number>();
  const positionB = new Map<number, number>();
  for (let index = aStart; index < aEnd; index++) countA.set(a[index]!, (countA.get(a[index]!) ?? 0) + 1);
  for (let index = bStart; index < bEnd; index++) {
    countB.set(b[index]!, (countB.get(b[index]!) ?? 0) + 1);
    positionB.set(b[index]!, index);
  }
  const anchors: [number, number][] = [];
  for (let index = aStart; index < aEnd; index++) {
    const id = a[index]!;
    if (countA.get(id) === 1 && countB.get(id) === 1) anchors.push([index, positionB.get(id)!]);
  }
  const chain = longestIncreasing(anchors);

  let aAt = aStart;
  let bAt = bStart;
  for (const [aIndex, bIndex] of chain) {
    gap(aAt, aIndex, bAt, bIndex);
    ops.push({ kind: " ", text: before[aIndex]! });
    aAt = aIndex + 1;
    bAt = bIndex + 1;
  }
  gap(aAt, aEnd, bAt, bEnd);
  keep(aEnd, aEnd + suffix);
  return ops;
}

/** The longest chain of anchors increasing on both sides (patience sorting, O(n log n)). */
function longestIncreasing(anchors: [number, number][]): [number, number][] {
  const tails: number[] = [];
  const previous = new Int32Array(anchors.length).fill(-1);
  for (const [index, [, b]] of anchors.entries()) {
    let low = 0;
    let high = tails.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (anchors[tails[middle]!]![1] < b) low = middle + 1;
      else high = middle;
    }
    if (low > 0) previous[index] = tails[low - 1]!;
    tails[low] = index;
  }
  const chain: [number, number][] = [];
  for (let at = tails.length > 0 ? tails[tails.length - 1]! : -1; at !== -1; at = previous[at]!) {
    chain.push(anchors[at]!);
  }
  return chain.reverse();
}

/** Groups the line diff into unified hunks with CONTEXT_LINES of context. */
function toHunks(ops: LineOp[]): Hunk[] {
  const oldBefore = new Int32Array(ops.length + 1);
  const newBefore = new Int32Array(ops.length + 1);
  const changes: number[] = [];
  for (const [index, op] of ops.entries()) {
    oldBefore[index + 1] = oldBefore[index]! + (op.kind === "+" ? 0 : 1);
    newBefore[index + 1] = newBefore[index]! + (op.kind === "-" ? 0 : 1);
    if (op.kind !== " ") changes.push(index);
  }
  const hunks: Hunk[] = [];
  let group = 0;
  while (group < changes.length) {
    let last = group;
    while (last + 1 < changes.length && changes[last + 1]! - changes[last]! - 1 <= 2 * CONTEXT_LINES) last++;
    const from = Math.max(0, changes[group]! - CONTEXT_LINES);
    const to = Math.min(ops.length, changes[last]! + CONTEXT_LINES + 1);
    const lines: string[] = [];
    for (let index = from; index < to; index++) {
      const op = ops[index]!;
      const endsWithNewline = op.text.endsWith("\n");
      lines.push(op.kind + (endsWithNewline ? op.text.slice(0, -1) : op.text));
      if (!endsWithNewline) lines.push(NO_NEWLINE);
    }
    const oldLines = oldBefore[to]! - oldBefore[from]!;
    const newLines = newBefore[to]! - newBefore[from]!;
    hunks.push({
      // 1-based; formatPatch itself writes one less for an empty side, as unified diffs do.
      oldStart: oldBefore[from]! + 1,
      oldLines,
      newStart: newBefore[from]! + 1,
      newLines,
      lines,
    });
    group = last + 1;
  }
  return hunks;
}

/**
 * A git-style unified diff for one file (`diff --git a/… b/…`), "" when nothing changed.
 * `before: null` is a new file, `after: null` a deleted one. The patch applies with
 * `git apply` to the base tree: CRLF and mixed line endings travel inside the lines, a
 * missing final newline gets its `\ No newline at end of file` marker, a BOM is just the
 * first character of line 1.
 */
export function createFilePatch(path: string, before: string | null, after: string | null): string {
  if (before === after) return "";
  const patch: StructuredPatch = {
    oldFileName: before === null ? "/dev/null" : `a/${path}`,
    newFileName: after === null ? "/dev/null" : `b/${path}`,
    oldHeader: undefined,
    newHeader: undefined,
    hunks: toHunks(diffLines(splitLines(before ?? ""), splitLines(after ?? ""))),
    isGit: true,
  };
  if (before === null) {
    patch.isCreate = true;
    patch.newMode = "100644";
  } else if (after === null) {
    patch.isDelete = true;
    patch.oldMode = "100644";
  }
  return formatPatch(patch);
}
