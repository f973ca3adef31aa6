import type { ChangedFile } from "../../../shared/changeset.js";
import { perChangeSet } from "./per-file.js";

/** This many files changed in the same way make one sweeping change. */
const SWEEP_MIN_FILES = 4;
/** A sweep is weighed as one piece of evidence: about this many articles' worth. */
const SWEEP_ARTICLES = 3;

export interface Sweep {
  id: string;
  files: string[];
  /** The factor on each reason it gives: SWEEP_ARTICLES / files, at most 1. */
  factor: number;
}

/**
 * Groups files that one mechanical change swept across (a renamed import, a header, a
 * codemod): files whose changed lines are the same once each file's own name is masked.
 * Returns the sweep of each file in one. Read once per plan, for the lookups and the signals.
 */
export const findSweeps = perChangeSet(sweepsOf);

function sweepsOf(files: readonly ChangedFile[]): ReadonlyMap<string, Sweep> {
  const byShape = new Map<string, string[]>();
  for (const file of files) {
    const shape = hunkShape(file);
    if (shape === undefined) continue;
    const list = byShape.get(shape);
    if (list) list.push(file.path);
    else byShape.set(shape, [file.path]);
  }
  const sweeps = new Map<string, Sweep>();
  for (const paths of byShape.values()) {
    if (paths.length < SWEEP_MIN_FILES) continue;
    const sweep = {
      id: `sweep:${paths[0]}`,
      files: paths,
      factor: Math.min(1, SWEEP_ARTICLES / paths.length),
    };
    for (const path of paths) sweeps.set(path, sweep);
  }
  return sweeps;
}

/** The file's changed lines, trimmed and sorted, with its own base name masked; undefined without any. */
function hunkShape(file: ChangedFile): string | undefined {
  if (file.binary || file.hunks.length === 0) return undefined;
  const stem = (file.path.split("/").pop() ?? "").replace(/\..*$/, "");
  const lines: string[] = [];
  for (const hunk of file.hunks) {
    for (const line of hunk.lines) {
      if (line[0] !== "+" && line[0] !== "-") continue;
      let text = line.slice(1).trim();
      if (stem.length > 2) text = text.split(stem).join("\u0000");
      lines.push(`${line[0]}${text}`);
    }
  }
  if (lines.length === 0) return undefined;
  return `${file.status}\n${lines.sort().join("\n")}`;
}
