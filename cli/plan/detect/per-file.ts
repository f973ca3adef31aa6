import type { ChangedFile } from "../../../shared/changeset.js";

/**
 * `extract` over the evidence, run once per changed file: the plan reads the same facts of
 * a file twice, for the terms an article must hold before it is read (textLookups) and for
 * the signals, and the two get the same file objects of one change set. Kept while the file
 * object lives (a WeakMap), so nothing outlives the plan.
 */
export function perFile<T>(extract: (file: ChangedFile) => T[]): (evidence: readonly ChangedFile[]) => T[] {
  const facts = new WeakMap<ChangedFile, T[]>();
  return (evidence) =>
    evidence.flatMap((file) => {
      let found = facts.get(file);
      if (!found) {
        found = extract(file);
        facts.set(file, found);
      }
      return found;
    });
}
