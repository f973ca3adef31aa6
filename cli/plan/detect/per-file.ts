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

/**
 * `extract` over the whole evidence, run once per change: perFile for facts that span files
 * (a program several files make, a sweep across many, a word or an address counted once in
 * the change). The two calls get evidence lists built apart holding the same file objects;
 * a list of other files (or in another order) is another change, read again. Kept while the
 * list's first file lives (a WeakMap), so nothing outlives the plan.
 */
export function perChangeSet<T>(
  extract: (evidence: readonly ChangedFile[]) => T,
): (evidence: readonly ChangedFile[]) => T {
  const facts = new WeakMap<ChangedFile, { evidence: readonly ChangedFile[]; found: T }>();
  return (evidence) => {
    const first = evidence[0];
    if (first === undefined) return extract(evidence);
    const known = facts.get(first);
    if (
      known &&
      known.evidence.length === evidence.length &&
      known.evidence.every((file, index) => file === evidence[index])
    )
      return known.found;
    const found = extract(evidence);
    facts.set(first, { evidence: [...evidence], found });
    return found;
  };
}
