import type { ChangedSymbol } from "../../shared/changeset.js";
import { SWEEP_MIN_ARTICLES, SWEEP_MIN_NAMES } from "../../shared/limits.js";
import type { Sweep } from "../../shared/plan.js";
import type { Signal } from "./detect/signal.js";

/** The one sweep a change can make today: the public names it removed or renamed away. */
const NAME_SWEEP_ID = "names";

export interface NameSweep {
  sweep: Sweep;
  /** Whether a signal flags its article for writing one of the sweep's old names. */
  member: (signal: Signal) => boolean;
}

/**
 * A big rename as one finding: when the change removes or renames at least SWEEP_MIN_NAMES
 * public names and at least SWEEP_MIN_ARTICLES flagged articles write one of them, those
 * articles are one sweep ("renamed 2,000 functions; 4,192 articles name an old name"). It
 * only groups: which articles are flagged, and how they score, is the detector's, unchanged.
 */
export function nameSweep(input: {
  symbols: readonly ChangedSymbol[];
  /** The changed files that can be evidence: names declared elsewhere (tests) are not the change's surface. */
  evidence: ReadonlySet<string>;
  signals: ReadonlyMap<string, readonly Signal[]>;
  /** Whether the plan flags this article (stale, over the bar, not touched by the change). */
  flagged: (path: string) => boolean;
}): NameSweep | undefined {
  const gone = new Map<string, ChangedSymbol>();
  const declared = new Set<string>();
  for (const symbol of input.symbols) {
    if (symbol.private || symbol.kind === "message" || !input.evidence.has(symbol.file)) continue;
    const old =
      symbol.change === "removed" ? symbol.name : symbol.change === "renamed" ? symbol.oldName : undefined;
    if (old === undefined) continue;
    const key = `${symbol.change}\u0000${symbol.kind}\u0000${symbol.file}\u0000${old}`;
    if (declared.has(key)) continue;
    declared.add(key);
    if (!gone.has(old)) gone.set(old, symbol);
  }
  if (declared.size < SWEEP_MIN_NAMES) return undefined;
  const goneWritten = (signal: Signal) =>
    signal.kind === "reference" && signal.stale !== undefined && signal.stale.list === undefined
      ? signal.stale.terms.filter((term) => gone.has(term))
      : [];
  const articles: Sweep["articles"] = [];
  for (const [path, signals] of input.signals) {
    if (!input.flagged(path)) continue;
    const names = new Set<string>();
    let line: number | undefined;
    for (const signal of signals) {
      const written = goneWritten(signal);
      if (written.length === 0) continue;
      for (const name of written) names.add(name);
      const at = signal.stale?.line;
      if (at !== undefined && (line === undefined || at < line)) line = at;
    }
    if (names.size > 0)
      articles.push({ path, names: [...names].sort(), ...(line === undefined ? {} : { line }) });
  }
  if (articles.length < SWEEP_MIN_ARTICLES) return undefined;
  articles.sort((left, right) => left.path.localeCompare(right.path));
  const counts = new Map<string, Sweep["changes"][number]>();
  const files = new Set<string>();
  for (const key of declared) {
    const [change, kind, file] = key.split("\u0000") as ["removed" | "renamed", string, string];
    files.add(file);
    const entry = counts.get(`${change}\u0000${kind}`);
    if (entry) entry.count += 1;
    else counts.set(`${change}\u0000${kind}`, { change, kind, count: 1 });
  }
  const changes = [...counts.values()].sort(
    (left, right) => right.count - left.count || left.kind.localeCompare(right.kind),
  );
  return {
    sweep: { id: NAME_SWEEP_ID, changes, files: [...files].sort(), articles },
    member: (signal) => input.flagged(signal.article) && goneWritten(signal).length > 0,
  };
}
