import type { Audit, AuditArticle, AuditEdit } from "../../shared/audit.js";
import { editId } from "../../shared/audit.js";
import { addedLines } from "../../shared/diff/lines.js";
import { applyEdits } from "../../shared/edit/engine.js";
import { repositoryPath } from "../../shared/edit/guards.js";
import { UsageError } from "../../shared/errors.js";
import { articleFormat } from "../../shared/formats/index.js";
import { contentHash } from "../../shared/hash.js";
import { computeTotals } from "../../shared/merge.js";
import { createFilePatch } from "../../shared/patch.js";

/** Which edits of an audit to apply: `--only` keeps just these, `--exclude` drops these. */
export interface EditChoice {
  only?: readonly string[] | undefined;
  exclude?: readonly string[] | undefined;
}

/** An edit left out of an apply, and the reason given for it. */
export interface LeftOutEdit {
  id: string;
  path: string;
  reason: string;
}

/**
 * The audit with only the chosen edits (pure): each article whose edits were all kept is as it
 * was, one whose edits were all left out is dropped, and one whose edits were split gets a patch
 * rebuilt by replaying its kept edits, in their order, on its base text. An edit that cannot be
 * replayed without one left out (it changes text an earlier, excluded edit wrote) refuses the
 * choice with a UsageError naming both; so does a kept link to a new article left out. An ID is
 * an edit's id (`docs/a.md#2`) or an article's path (all its edits).
 */
export function chooseEdits(
  audit: Audit,
  choice: EditChoice,
  baseText: (path: string) => string | null,
): { audit: Audit; leftOut: LeftOutEdit[] } {
  const applicable = audit.articles.filter((article) => article.status === "updated" && article.patch !== "");
  const idsOf = (article: AuditArticle) =>
    article.edits.map((edit, index) => edit.id ?? editId(article.path, index));
  const known = new Map<string, string[]>();
  for (const article of applicable) {
    const ids = idsOf(article);
    known.set(article.path, ids);
    for (const id of ids) known.set(id, [id]);
  }
  const resolve = (flag: string, values: readonly string[] | undefined) => {
    if (values === undefined) return undefined;
    const chosen = new Set<string>();
    for (const value of values) {
      const parts = known.has(value) ? [value] : value.split(",").filter((part) => part.trim() !== "");
      for (const part of parts) {
        const ids = known.get(part.trim());
        if (!ids)
          throw new UsageError(
            `--${flag} ${part}: no edit of an updated article has this id; ids look like docs/a.md#2 (impact report lists them), or give an article's path for all its edits`,
          );
        for (const id of ids) chosen.add(id);
      }
    }
    return chosen;
  };
  const only = resolve("only", choice.only);
  const exclude = resolve("exclude", choice.exclude);
  const kept = (id: string) => (only === undefined || only.has(id)) && !exclude?.has(id);

  const leftOut: LeftOutEdit[] = [];
  const articles: AuditArticle[] = [];
  for (const article of audit.articles) {
    if (!applicable.includes(article)) {
      articles.push(article);
      continue;
    }
    const ids = idsOf(article);
    const keep = ids.map(kept);
    article.edits.forEach((edit, index) => {
      if (!keep[index]) leftOut.push({ id: ids[index]!, path: article.path, reason: edit.reason });
    });
    if (keep.every(Boolean)) articles.push(article);
    else if (keep.some(Boolean)) articles.push(replayKept(article, ids, keep, baseText(article.path)));
  }
  refuseLinksToLeftOut(articles, audit.articles, leftOut);
  return { audit: { ...audit, articles, totals: computeTotals(articles, audit.totals.durationMs) }, leftOut };
}

/** An article with only its kept edits: replayed one by one on its base text, the patch rebuilt. */
function replayKept(
  article: AuditArticle,
  ids: readonly string[],
  keep: readonly boolean[],
  base: string | null,
): AuditArticle {
  const refuse = (why: string): never => {
    throw new UsageError(`${article.path}: cannot apply only some of its edits: ${why}`, { code: "input" });
  };
  if (base === null || contentHash(base) !== article.hashBefore)
    refuse(
      base === null
        ? "it does not exist on disk"
        : `it changed since the audit (expected hash ${article.hashBefore})`,
    );
  const missing = article.edits.findIndex((edit) => edit.request === undefined);
  if (missing >= 0)
    refuse(
      `the audit does not hold the text of ${ids[missing]} (written by an older Impact, or a created article); apply the article whole or leave it out`,
    );
  const replay = (text: string, edits: readonly AuditEdit[], label: (index: number) => string) => {
    let current = text;
    for (const [index, edit] of edits.entries()) {
      const outcome = applyEdits(current, [edit.request!], {
        maxArticleChars: Number.POSITIVE_INFINITY,
        maxGrowthChars: Number.POSITIVE_INFINITY,
      });
      if (!outcome.ok) return { ok: false as const, index, message: label(index) + outcome.error.message };
      current = outcome.content;
    }
    return { ok: true as const, content: current };
  };
  // All the edits replayed must give the audited text, or the recorded edits are not what made the patch.
  const text = base as string;
  const whole = replay(text, article.edits, () => "");
  if (!whole.ok || contentHash(whole.content) !== article.hashAfter)
    refuse(
      `its recorded edits do not reproduce the audited patch (hash ${article.hashAfter}); apply it whole`,
    );
  const keptEdits = article.edits.filter((_, index) => keep[index]);
  const keptIds = ids.filter((_, index) => keep[index]);
  const partial = replay(text, keptEdits, () => "");
  if (!partial.ok) {
    const excluded = ids.filter((_, index) => !keep[index]);
    refuse(
      `${keptIds[partial.index]} changes text that ${excluded.join(", ")} wrote (${partial.message.replace(/^Edit 0: /, "").split("\n")[0]}); keep ${excluded.length === 1 ? "that edit" : "those edits"} too, or leave ${keptIds[partial.index]} out as well`,
    );
  }
  const after = (partial as { content: string }).content;
  return {
    ...article,
    edits: keptEdits,
    editReasons: keptEdits.map((edit) => edit.reason),
    patch: createFilePatch(article.path, text, after),
    hashAfter: contentHash(after),
  };
}

/** A kept edit that links to a new article whose creation was left out would write a broken link. */
function refuseLinksToLeftOut(
  kept: readonly AuditArticle[],
  all: readonly AuditArticle[],
  leftOut: readonly LeftOutEdit[],
): void {
  const keptPaths = new Set(
    kept.filter((article) => article.status === "updated").map((article) => article.path),
  );
  const droppedNew = new Set(
    all
      .filter((article) => article.created && article.status === "updated" && !keptPaths.has(article.path))
      .map((article) => article.path),
  );
  if (droppedNew.size === 0) return;
  for (const article of kept) {
    if (article.status !== "updated" || article.patch === "") continue;
    for (const link of articleFormat(article.path).links(addedLines(article.patch).join("\n"))) {
      const target = repositoryPath(article.path, link.target);
      if (target === undefined || !droppedNew.has(target)) continue;
      const creation = leftOut.find((edit) => edit.path === target)?.id ?? target;
      throw new UsageError(
        `${article.path} keeps a link to ${target}, the new article left out (${creation}); keep ${creation} too, or leave the linking edit out`,
        { code: "input" },
      );
    }
  }
}
