import { diffArrays, formatPatch, type StructuredPatch } from "diff";
import { readDiffLines, stripCr } from "./diff/lines.js";

type Hunk = StructuredPatch["hunks"][number];

const CONTEXT_LINES = 3;
const NO_NEWLINE = "\\ No newline at end of file";

/** A changed stretch: before[aFrom, aTo) became after[bFrom, bTo). */
interface Block {
  aFrom: number;
  aTo: number;
  bFrom: number;
  bTo: number;
}

interface FileLines {
  /** Line texts without their "\n" ("\r" stays). */
  lines: string[];
  /** The last line has no "\n" after it. */
  missingFinalNewline: boolean;
}

function splitLines(text: string): FileLines {
  if (text.length === 0) return { lines: [], missingFinalNewline: false };
  const lines = text.split("\n");
  const missingFinalNewline = lines[lines.length - 1] !== "";
  if (!missingFinalNewline) lines.pop();
  return { lines, missingFinalNewline };
}

interface LineEntry {
  id: number;
  countA: number;
  countB: number;
  positionB: number;
}

/**
 * A patience-style line diff: lines that occur once in each file anchor the two
 * (longest increasing subsequence), and only the short stretches between anchors go to
 * the `diff` package's Myers diff. Docs are mostly unique lines, so a megabyte with a few
 * hundred scattered edits costs about one pass over each file.
 */
function diffBlocks(before: FileLines, after: FileLines): Block[] {
  const entries = new Map<string, LineEntry>();
  // The last line without "\n" must not equal the same text with one: it gets its own key.
  const keyOf = (file: FileLines, index: number) => {
    const line = file.lines[index]!;
    return file.missingFinalNewline && index === file.lines.length - 1 ? `${line}\n\u0000` : line;
  };
  const entryOf = (key: string) => {
    let entry = entries.get(key);
    if (!entry) {
      entry = { id: entries.size, countA: 0, countB: 0, positionB: -1 };
      entries.set(key, entry);
    }
    return entry;
  };
  const a = new Int32Array(before.lines.length);
  const anchorsA: LineEntry[] = new Array(before.lines.length);
  for (let index = 0; index < a.length; index++) {
    const entry = entryOf(keyOf(before, index));
    entry.countA++;
    a[index] = entry.id;
    anchorsA[index] = entry;
  }
  const b = new Int32Array(after.lines.length);
  for (let index = 0; index < b.length; index++) {
    const entry = entryOf(keyOf(after, index));
    entry.countB++;
    entry.positionB = index;
    b[index] = entry.id;
  }

  const blocks: Block[] = [];
  const gap = (aFrom: number, aTo: number, bFrom: number, bTo: number) => {
    if (aFrom === aTo && bFrom === bTo) return;
    if (aFrom === aTo || bFrom === bTo) {
      blocks.push({ aFrom, aTo, bFrom, bTo });
      return;
    }
    let open: Block | null = null;
    for (const part of diffArrays(Array.from(a.subarray(aFrom, aTo)), Array.from(b.subarray(bFrom, bTo)))) {
      if (part.removed || part.added) {
        open ??= { aFrom, aTo: aFrom, bFrom, bTo: bFrom };
        if (part.removed) aFrom = open.aTo = aFrom + part.count;
        else bFrom = open.bTo = bFrom + part.count;
        continue;
      }
      if (open) blocks.push(open);
      open = null;
      aFrom += part.count;
      bFrom += part.count;
    }
    if (open) blocks.push(open);
  };

  let aAt = 0;
  let bAt = 0;
  for (let index = 0; index < a.length; index++) {
    const entry = anchorsA[index]!;
    if (entry.countA !== 1 || entry.countB !== 1) continue;
    // Anchors found in order of `before`; those out of order in `after` are dropped below.
    anchorPairs.push(index, entry.positionB);
  }
  const chain = longestIncreasing(anchorPairs);
  anchorPairs.length = 0;
  for (let link = 0; link < chain.length; link += 2) {
    const aIndex = chain[link]!;
    const bIndex = chain[link + 1]!;
    gap(aAt, aIndex, bAt, bIndex);
    aAt = aIndex + 1;
    bAt = bIndex + 1;
  }
  gap(aAt, a.length, bAt, b.length);
  return blocks;
}

/** Scratch list of anchor pairs [aIndex, bIndex, aIndex, bIndex, …]. */
const anchorPairs: number[] = [];

/** The longest chain of anchor pairs increasing on both sides (patience sorting, O(n log n)). */
function longestIncreasing(pairs: number[]): number[] {
  const count = pairs.length / 2;
  const tails: number[] = [];
  const previous = new Int32Array(count).fill(-1);
  for (let index = 0; index < count; index++) {
    const b = pairs[index * 2 + 1]!;
    let low = 0;
    let high = tails.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (pairs[tails[middle]! * 2 + 1]! < b) low = middle + 1;
      else high = middle;
    }
    if (low > 0) previous[index] = tails[low - 1]!;
    tails[low] = index;
  }
  const chain: number[] = [];
  for (let at = tails.length > 0 ? tails[tails.length - 1]! : -1; at !== -1; at = previous[at]!) {
    chain.push(pairs[at * 2 + 1]!, pairs[at * 2]!);
  }
  return chain.reverse();
}

/** Groups the changed blocks into unified hunks with CONTEXT_LINES of context. */
function toHunks(before: FileLines, after: FileLines, blocks: Block[]): Hunk[] {
  const hunks: Hunk[] = [];
  const push = (lines: string[], prefix: string, file: FileLines, index: number) => {
    lines.push(prefix + file.lines[index]!);
    if (file.missingFinalNewline && index === file.lines.length - 1) lines.push(NO_NEWLINE);
  };
  let first = 0;
  while (first < blocks.length) {
    let last = first;
    while (last + 1 < blocks.length && blocks[last + 1]!.aFrom - blocks[last]!.aTo <= 2 * CONTEXT_LINES)
      last++;
    const head = blocks[first]!;
    const tail = blocks[last]!;
    const leading = Math.min(CONTEXT_LINES, head.aFrom);
    const trailing = Math.min(CONTEXT_LINES, before.lines.length - tail.aTo);
    const aStart = head.aFrom - leading;
    const bStart = head.bFrom - leading;
    const lines: string[] = [];
    let aAt = aStart;
    for (let index = first; index <= last; index++) {
      const block = blocks[index]!;
      for (; aAt < block.aFrom; aAt++) push(lines, " ", before, aAt);
      for (let line = block.aFrom; line < block.aTo; line++) push(lines, "-", before, line);
      for (let line = block.bFrom; line < block.bTo; line++) push(lines, "+", after, line);
      aAt = block.aTo;
    }
    for (; aAt < tail.aTo + trailing; aAt++) push(lines, " ", before, aAt);
    hunks.push({
      // 1-based; formatPatch itself writes one less for an empty side, as unified diffs do.
      oldStart: aStart + 1,
      oldLines: tail.aTo + trailing - aStart,
      newStart: bStart + 1,
      newLines: tail.bTo + trailing - bStart,
      lines,
    });
    first = last + 1;
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
    hunks: [],
    isGit: true,
  };
  const oldFile = splitLines(before ?? "");
  const newFile = splitLines(after ?? "");
  patch.hunks = toHunks(oldFile, newFile, diffBlocks(oldFile, newFile));
  if (before === null) {
    patch.isCreate = true;
    patch.newMode = "100644";
  } else if (after === null) {
    patch.isDelete = true;
    patch.oldMode = "100644";
  }
  return formatPatch(patch);
}

/**
 * Why an article's patch may not be used for `path`, or undefined when every file header
 * in it (`diff --git`, `---`, `+++`) names exactly that file (or /dev/null for a created
 * one) and there is one file in it. Hunk bodies are told apart by their line counts, so a
 * removed line reading "--- x" is not taken for a header. An audit is untrusted input: a
 * patch smuggling a second file would otherwise ride along in the combined patch.
 */
export function patchHeaderProblem(patch: string, path: string): string | undefined {
  const allowed = {
    git: `diff --git a/${path} b/${path}`,
    old: new Set([`--- a/${path}`, "--- /dev/null"]),
    new: new Set([`+++ b/${path}`, "+++ /dev/null"]),
  };
  const seen = { git: 0, old: 0, new: 0 };
  for (const { kind, raw } of readDiffLines(patch).lines) {
    if (kind !== "meta") continue;
    const line = stripCr(raw);
    if (line.startsWith("diff ")) {
      seen.git += 1;
      if (line !== allowed.git)
        return `its patch has a file header for another file (${JSON.stringify(line)})`;
    } else if (line.startsWith("--- ")) {
      seen.old += 1;
      if (!allowed.old.has(line))
        return `its patch has a file header for another file (${JSON.stringify(line)})`;
    } else if (line.startsWith("+++ ")) {
      seen.new += 1;
      if (!allowed.new.has(line))
        return `its patch has a file header for another file (${JSON.stringify(line)})`;
    }
  }
  if (seen.git > 1 || seen.old > 1 || seen.new > 1) return "its patch holds more than one file";
  return undefined;
}
