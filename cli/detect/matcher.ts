/**
 * One pass over a text finds every term it mentions: the text is cut into tokens once
 * (runs of letters, digits, `_`, `.`, `/`, `-`) and each token, its path suffixes and its
 * dotted parts are looked up in one hash map of all terms. The cost is proportional to the
 * text, whatever the number of terms: never articles × symbols.
 */
export class ReferenceMatcher {
  private readonly ids = new Map<string, number>();
  private readonly stamps: Int32Array;
  private stamp = 0;

  /** `terms[i]` is reported as id `i`; duplicate terms report the first id. */
  constructor(readonly terms: readonly string[]) {
    terms.forEach((term, id) => {
      if (!this.ids.has(term)) this.ids.set(term, id);
    });
    this.stamps = new Int32Array(terms.length);
  }

  get size(): number {
    return this.ids.size;
  }

  /** The ids of the terms mentioned in `text`, each once, in order of first mention. */
  scan(text: string): number[] {
    const found: number[] = [];
    if (this.ids.size === 0) return found;
    this.stamp += 1;
    const stamp = this.stamp;
    const ids = this.ids;
    const stamps = this.stamps;
    const hit = (token: string) => {
      const id = ids.get(token);
      if (id !== undefined && stamps[id] !== stamp) {
        stamps[id] = stamp;
        found.push(id);
      }
    };
    const token = /[A-Za-z0-9_./-]+/g;
    for (let match = token.exec(text); match !== null; match = token.exec(text)) {
      let run = match[0];
      if (run.length < 2) continue;
      let start = 0;
      let end = run.length;
      while (start < end && (run.charCodeAt(start) === 46 || run.charCodeAt(start) === 47)) start += 1;
      while (
        end > start &&
        (run.charCodeAt(end - 1) === 46 || run.charCodeAt(end - 1) === 47 || run.charCodeAt(end - 1) === 45)
      )
        end -= 1;
      if (start > 0 || end < run.length) run = run.slice(start, end);
      if (run.length === 0) continue;
      hit(run);
      const slash = run.indexOf("/");
      const dot = run.indexOf(".");
      if (slash < 0 && dot < 0) continue;
      // Paths: every suffix after a slash (`./cli/x.ts`, URLs to the file on a forge).
      for (let at = slash; at >= 0; at = run.indexOf("/", at + 1)) hit(run.slice(at + 1));
      // Dotted and slashed parts: `config.loadConfig`, `process.env.NAME`, `--base/--head`.
      for (const part of run.split(/[./]/)) if (part.length > 1) hit(part);
    }
    return found;
  }
}
