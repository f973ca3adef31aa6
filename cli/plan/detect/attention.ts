import picomatch from "picomatch";
import type { ChangedFile } from "../../../shared/changeset.js";
import { type ArticleText, attentionOf } from "./article-text.js";
import type { SignalSink } from "./signal.js";
import { REASON_SCORES } from "./weights.js";

/**
 * attention: the article's frontmatter names a changed file or a glob one matches. An
 * `op: file` entry is the author's explicit word and holds for any changed file; a glob
 * holds only for files that may be evidence (a test under `src/**` says nothing).
 */
export function attentionSignals(input: {
  articles: readonly ArticleText[];
  changed: ReadonlyMap<string, ChangedFile>;
  evidence: readonly ChangedFile[];
  warnings: string[];
  sink: SignalSink;
}): void {
  const { articles, changed, evidence, warnings, sink } = input;
  for (const article of articles) {
    for (const entry of attentionOf(article, warnings)) {
      if (entry.op === "file") {
        const wanted = entry.path.replace(/^\.\//, "");
        const file = changed.get(wanted);
        if (file)
          sink.add({
            article: article.path,
            kind: "attention",
            source: file.path,
            detail: `attention file ${wanted}`,
            score: REASON_SCORES.attentionFile,
          });
        continue;
      }
      const isMatch = picomatch(entry.pattern, { dot: true });
      for (const file of evidence) {
        if (isMatch(file.path) || (file.oldPath !== undefined && isMatch(file.oldPath))) {
          sink.add({
            article: article.path,
            kind: "attention",
            source: file.path,
            detail: `attention glob ${entry.pattern} matches ${file.path}`,
            score: REASON_SCORES.attentionGlob,
          });
        }
      }
    }
  }
}
