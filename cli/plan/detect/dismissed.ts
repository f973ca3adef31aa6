import picomatch from "picomatch";
import type { Dismissal } from "../../../shared/config.js";

/** The config's `dismissed` entries as one lookup: the entry that covers `file` for `article`, if any. */
export type DismissalLookup = (article: string, file: string) => Dismissal | undefined;

/** Compiles the `dismissed` entries once per plan; an entry without `for` covers every changed file. */
export function dismissalLookup(dismissed: readonly Dismissal[]): DismissalLookup {
  if (dismissed.length === 0) return () => undefined;
  const entries = dismissed.map((entry) => ({
    entry,
    covers: entry.for === undefined ? () => true : picomatch(entry.for, { dot: true }),
  }));
  return (article, file) =>
    entries.find((candidate) => candidate.entry.article === article && candidate.covers(file))?.entry;
}
