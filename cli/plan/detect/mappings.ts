import type { ChangedFile } from "../../../shared/changeset.js";
import type { Mapping } from "../../../shared/config.js";
import { compileMapping } from "../mapping.js";
import type { SignalSink } from "./signal.js";
import type { Sweep } from "./sweeps.js";
import { REASON_SCORES } from "./weights.js";

/**
 * mapping: a config rule ties a changed file to articles. A rule with captures names one
 * article per file and weighs more than a pair of globs. Files of one sweeping change
 * count as one change, weighed down by the sweep's factor.
 */
export function mappingSignals(input: {
  mappings: readonly Mapping[];
  evidence: readonly ChangedFile[];
  articlePaths: ReadonlySet<string>;
  sortedArticles: readonly string[];
  sweeps: ReadonlyMap<string, Sweep>;
  sink: SignalSink;
}): void {
  const { evidence, articlePaths, sortedArticles, sweeps, sink } = input;
  for (const mapping of input.mappings.map(compileMapping)) {
    const hasCaptures = mapping.rule.code.includes(":");
    // Many changed files usually share a docs target (always, for a rule without captures):
    // each target is matched against the articles once.
    const targets = new Map<string, string[]>();
    for (const file of evidence) {
      const captures = mapping.match(file.path) ?? (file.oldPath ? mapping.match(file.oldPath) : undefined);
      if (!captures) continue;
      const target = mapping.target(captures);
      let matched = targets.get(target);
      if (!matched) {
        const isTarget = mapping.docs(captures);
        matched = articlePaths.has(target) ? [target] : sortedArticles.filter((path) => isTarget(path));
        targets.set(target, matched);
      }
      const bound = Object.entries(captures)
        .map(([name, value]) => `${name}=${value}`)
        .join(", ");
      const sweep = sweeps.get(file.path);
      const base =
        hasCaptures && Object.keys(captures).length > 0
          ? REASON_SCORES.mappingCapture
          : REASON_SCORES.mappingGlob;
      for (const path of matched) {
        sink.add({
          article: path,
          kind: "mapping",
          source: file.path,
          detail: `mapping ${mapping.rule.code} → ${mapping.rule.docs}${bound ? ` (${bound})` : ""}${sweep ? `; one of ${sweep.files.length} files changed the same way` : ""}`,
          score: base * (sweep?.factor ?? 1),
          group: sweep && `${sweep.id}:${mapping.rule.code}`,
        });
      }
    }
  }
}
