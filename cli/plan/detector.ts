import type { ChangedFile, ChangeSet, SkippedFile } from "../../shared/changeset.js";
import type { Dismissal, ImpactConfig } from "../../shared/config.js";
import { omitUndefined } from "../../shared/omit-undefined.js";
import type { ImpactPlan, ImpactReason, PlannedArticle, Tier } from "../../shared/plan.js";
import { plural } from "../../shared/render/markdown.js";
import { sweepTitle } from "../../shared/render/sweep.js";
import { resolveSetting } from "../../shared/settings.js";
import { articleSelector, whyNotArticle } from "./articles.js";
import { type ArticleText, textOf } from "./detect/article-text.js";
import { attentionSignals } from "./detect/attention.js";
import { removedTargetLookups, removedTargetSignals, removedTargets } from "./detect/build-targets.js";
import { declaredNameLookups, declaredNameSignals, declaredNames } from "./detect/declared-names.js";
import { dependencyChanges, dependencyLookups, dependencySignals } from "./detect/dependencies.js";
import { dismissalLookup } from "./detect/dismissed.js";
import { docstringNoteLookups, docstringNoteSignals } from "./detect/docstring-notes.js";
import { type IgnoredFile, selectEvidence } from "./detect/evidence.js";
import { linkSignals, removedLinks } from "./detect/links.js";
import { mappingSignals } from "./detect/mappings.js";
import { namesakeLookups, namesakeSignals } from "./detect/namesakes.js";
import { navigationSignals } from "./detect/navigation.js";
import { newArticles } from "./detect/new-articles.js";
import { proseLookups, proseSignals } from "./detect/prose.js";
import { quotedBlockLookups, quotedBlocks, quotedCodeSignals } from "./detect/quoted-code.js";
import { type Dropped, referenceLookups, referenceSignals } from "./detect/references.js";
import { removedProgramLookups, removedProgramSignals, removedPrograms } from "./detect/removed-programs.js";
import type { DroppedSignal, Signal, SignalSink } from "./detect/signal.js";
import { filesByPath, hunkAt, LONG_LIST, listed, locateStale, surfaceChange } from "./detect/stale.js";
import { findSweeps } from "./detect/sweeps.js";
import { removedTemplateLines, templateLineLookups } from "./detect/template-lines.js";
import type { OlderVersionArticle } from "./detect/version-folders.js";
import { droppedVersions, versionSignals, versionSources } from "./detect/versions.js";
import { HISTORY_FURTHER_FACTOR, HISTORY_MAPPED_SCORE, REASON_SCORES } from "./detect/weights.js";
import { coChanges, type HistoryCommit, historyDisowns, historyReasons } from "./history.js";
import { nameSweep } from "./name-sweep.js";
import { combineScores, roundScore, scoreThreshold } from "./score.js";
import { olderVersionScaling, versionLayout } from "./versioned-docs.js";

export type { ArticleText } from "./detect/article-text.js";

export interface DetectInput {
  changeSet: ChangeSet;
  articles: ArticleText[];
  config: ImpactConfig;
  /** Names this repository uses everywhere (its package's own name): never evidence. */
  genericNames?: Dropped[];
  /** Overrides `config.minScore` (`--min-score`), as the whole bar: no share of the strongest article applies. */
  minScore?: number | undefined;
  /** The base's own history (never commits after it), for history reasons. */
  history?: HistoryCommit[] | undefined;
  /**
   * The articles are in a separate docs repository: no changed file is an article (a
   * `README.md` of the code is not the docs repository's `README.md`), so none is touched.
   */
  articlesElsewhere?: boolean;
}

/** Every signal considered for one article, for `impact plan --explain`. */
export interface Explanation {
  path: string;
  isArticle: boolean;
  /** `weak`: impacted, but below the minimum score; `none`: no reason at all. */
  status: PlannedArticle["status"] | "weak" | "none";
  /** The article's tier when planned (`stale` flagged, `related` listed apart), and why in one line. */
  tier?: Tier | undefined;
  why: string;
  score: number;
  minScore: number;
  /** The bar in this change: minScore, or RELATIVE_MIN_SCORE of the strongest article's score if higher. */
  threshold: number;
  kept: (ImpactReason & { score: number })[];
  dropped: DroppedSignal[];
  /** Set when the article's score was scaled for being in an older version's docs folder. */
  olderVersion?: OlderVersionArticle | undefined;
  /** Set when the plan lists the article as related instead of flagging it (an older docs version). */
  related?: string;
  /** Changed files no rule used as evidence, and why. */
  ignoredFiles: IgnoredFile[];
  /** Names dropped for every article (too short, ignored, generic, too common). */
  droppedNames: Dropped[];
  /** The config's `dismissed` entries for this article (`impact dismiss`). */
  dismissed: Dismissal[];
  /** Set when the plan lists the article under a sweep (`sweeps`): the sweep in words, and the old names it writes. */
  sweep?: { title: string; names: string[] };
}

/**
 * The ImpactDetector: which articles a change touches, why, and how strongly.
 * Pure: the caller reads the articles (working tree or a revision) and passes their text.
 * Phases: which changed files are evidence, which of them sweep one change across many
 * files, then the rules (attention, mapping, reference with its navigation and version
 * variants, history), then scoring and the threshold.
 */
export function detectImpact(input: DetectInput): ImpactPlan {
  return detect(input).plan;
}

/** detectImpact, plus every signal considered for `path`. */
export function explainImpact(
  input: DetectInput,
  path: string,
): { plan: ImpactPlan; explanation: Explanation } {
  const { plan, explanation } = detect(input, path);
  return { plan, explanation: explanation! };
}

function detect(input: DetectInput, explainPath?: string): { plan: ImpactPlan; explanation?: Explanation } {
  const { changeSet, articles, config } = input;
  // The one precedence (shared/settings.ts): --min-score, then config minScore, then the default.
  const bar = resolveSetting("minScore", { flags: { "min-score": input.minScore }, config });
  const minScore = bar.value;
  const articlePaths = new Set(articles.map((article) => article.path));
  const sortedArticles = [...articlePaths].sort();
  const changed = new Map<string, ChangedFile>();
  for (const file of changeSet.files) {
    if (file.status === "submodule") continue;
    changed.set(file.path, file);
    if (file.oldPath) changed.set(file.oldPath, file);
  }
  const signals = new Map<string, Signal[]>();
  const droppedSignals: DroppedSignal[] = [];
  // What a person dismissed (`impact dismiss`) never counts; --explain shows it dropped.
  const dismissed = dismissalLookup(config.dismissed);
  /** Why the explained article's dismissed reasons were dismissed (`impact dismiss --reason`). */
  const dismissedReasons = new Set<string>();
  const sink: SignalSink = {
    add: (signal) => {
      const dismissal = dismissed(signal.article, signal.source);
      if (dismissal) {
        if (signal.article === explainPath) {
          droppedSignals.push({ ...signal, why: `dismissed in the config: ${dismissal.reason}` });
          dismissedReasons.add(dismissal.reason);
        }
        return;
      }
      const list = signals.get(signal.article);
      if (!list) signals.set(signal.article, [signal]);
      else if (
        !list.some(
          (other) =>
            other.kind === signal.kind && other.source === signal.source && other.detail === signal.detail,
        )
      )
        list.push(signal);
    },
    drop: (signal) => droppedSignals.push(signal),
    explains: (article) => article === explainPath,
  };
  const warnings: string[] = [];

  const evidence = selectEvidence(changeSet, input.articlesElsewhere ? new Set() : articlePaths, config);
  const sweeps = findSweeps(evidence.files);
  // How the changed files and the articles changed together before the base.
  const coupling = input.history
    ? coChanges({ commits: input.history, changedFiles: evidence.files, articles: articlePaths })
    : undefined;
  attentionSignals({ articles, changed, evidence: evidence.files, warnings, sink });
  mappingSignals({
    mappings: config.mappings,
    evidence: evidence.files,
    articlePaths,
    sortedArticles,
    sweeps,
    sink,
  });
  const dropped = referenceSignals({
    changeSet,
    evidence: evidence.files,
    articles,
    ignoreSymbols: config.ignoreSymbols,
    genericNames: input.genericNames ?? [],
    // A changelog entry's code spans are the author's words for the change, not names it
    // changed: `POST` or `redirect` written as code there made pages about HTTP "stale".
    recordNames: [],
    sweeps,
    disowns: coupling && ((file: string, article: string) => historyDisowns(coupling, file, article)),
    sink,
  });
  navigationSignals({ files: [...evidence.files, ...evidence.otherDocs], articlePaths, sink });
  versionSignals({ evidence: versionSources(changeSet.files, evidence.files), articles, sink });
  linkSignals({ evidence: evidence.files, articles, sink });
  declaredNameSignals({ names: declaredNamesOf(input, evidence.files), articles, sweeps, sink });
  proseSignals({ evidence: evidence.files, articles, sink });
  dependencySignals({ evidence: evidence.files, articles, sink });
  docstringNoteSignals({ evidence: evidence.files, articles, sink });
  quotedCodeSignals({ evidence: evidence.files, articles, sink });
  removedTargetSignals({ evidence: evidence.files, articles, sink });
  removedProgramSignals({ evidence: evidence.files, articles, sink });
  // Articles that changed together with these files before the base.
  if (coupling) {
    for (const [article, reasons] of historyReasons(coupling)) {
      for (const reason of reasons)
        sink.add({
          article,
          kind: reason.kind,
          source: reason.source,
          detail: reason.detail,
          score: reason.score ?? HISTORY_DEFAULT_SCORE,
        });
    }
  }

  markStale({ signals, changeSet, articles });
  const isStale = (path: string) => (signals.get(path) ?? []).some((signal) => signal.stale !== undefined);
  // Relevance only, added past the stale marks to articles without one: no score of a stale article (nor the bar) moves.
  namesakeSignals({
    evidence: evidence.files,
    articles,
    isStale,
    tied: (article, file) =>
      (signals.get(article) ?? []).some(
        (signal) => (signal.kind === "mapping" || signal.kind === "attention") && signal.source === file,
      ),
    packageNames: (input.genericNames ?? []).map((dropped) => dropped.symbol),
    sink,
  });

  const planned: (PlannedArticle & { score: number })[] = [];
  const related: (PlannedArticle & { score: number })[] = [];
  const weak: { path: string; score: number }[] = [];
  const scores = new Map<string, number>();
  // Docs of an older version (`docs/v1/` beside `docs/v3/`) count at a share of their score.
  // Unless config versions.editOlder, they are listed as related instead (versioned-docs.ts).
  const older = olderVersionScaling(
    sortedArticles,
    evidence.files.map((file) => file.path),
    config.versions,
  );
  for (const [path, found] of signals) {
    const score = articleScore(found);
    const scaled = older.get(path);
    scores.set(path, scaled ? roundScore(score * scaled.factor) : score);
  }
  const isTouched = (path: string) => {
    if (input.articlesElsewhere) return false;
    const own = changed.get(path);
    return own !== undefined && own.status !== "deleted" && own.path === path;
  };
  // The bar rises with the strongest stale article: related ones never raise it, nor do
  // older docs versions listed as related (versioned-docs.ts).
  const relatedOlder = config.versions?.editOlder
    ? undefined
    : versionLayout(
        sortedArticles,
        changeSet.files.map((file) => file.path),
        config.versions,
      )?.older;
  let best = 0;
  for (const [path, score] of scores)
    if (!isTouched(path) && isStale(path) && !relatedOlder?.has(path)) best = Math.max(best, score);
  // An explicit --min-score is this run's whole bar; the configured one rises with the best article.
  const threshold = bar.from === "flag" ? minScore : scoreThreshold(minScore, best);
  // A big rename is one finding: its articles are grouped under it (flagged all the same).
  const sweep = nameSweep({
    symbols: changeSet.symbols,
    evidence: new Set(evidence.files.map((file) => file.path)),
    signals,
    flagged: (path) =>
      !isTouched(path) && isStale(path) && !relatedOlder?.has(path) && (scores.get(path) ?? 0) >= threshold,
  });
  const reasonOf = (signal: Signal) => ({
    ...reasonOfSignal(signal),
    ...(sweep?.member(signal) ? { sweep: sweep.sweep.id } : {}),
  });
  for (const path of sortedArticles) {
    const touched = isTouched(path);
    const found = signals.get(path) ?? [];
    if (!touched && found.length === 0) continue;
    const score = scores.get(path) ?? 0;
    const impact = found.map(reasonOf).sort(compareReasons);
    const stale = isStale(path);
    const tier: Tier = stale ? "stale" : "related";
    const files = [...new Set([...(touched ? [path] : []), ...impact.map((reason) => reason.source)])];
    if (touched) planned.push({ path, status: "touched", tier, impact, files, score });
    else if (stale && score >= threshold)
      planned.push({ path, status: "impacted", tier, impact, files, score });
    else if (!stale && score >= minScore)
      related.push({ path, status: "impacted", tier, impact, files, score });
    else weak.push({ path, score });
  }
  // New code, new docs: mapped articles the change calls for that do not exist yet.
  const created = newArticles({
    mappings: config.mappings,
    evidence: evidence.files,
    articlePaths,
    sortedArticles,
    isArticlePath: articleSelector(config),
    isDismissed: (article, file) => dismissed(article, file) !== undefined,
  });
  planned.push(...created.map((article) => ({ ...article, score: article.score ?? 0 })));
  planned.sort((left, right) => right.score - left.score || left.path.localeCompare(right.path));
  related.sort((left, right) => right.score - left.score || left.path.localeCompare(right.path));
  weak.sort((left, right) => right.score - left.score || left.path.localeCompare(right.path));
  const plan: ImpactPlan = {
    base: changeSet.base,
    head: changeSet.head,
    articles: planned,
    related,
    dropped: dedupeDropped(dropped),
    warnings: [...warnings, ...skippedWarnings(changeSet.skipped ?? [])],
    skipped: changeSet.skipped ?? [],
    minScore,
    threshold,
    weak,
    ...(sweep ? { sweeps: [sweep.sweep] } : {}),
  };
  if (explainPath === undefined) return { plan };
  const entry =
    planned.find((article) => article.path === explainPath) ??
    related.find((article) => article.path === explainPath);
  const weakEntry = weak.find((article) => article.path === explainPath);
  const found = signals.get(explainPath) ?? [];
  const olderVersion = older.get(explainPath);
  const inSweep = sweep?.sweep.articles.find((article) => article.path === explainPath);
  const isArticle = articlePaths.has(explainPath) || entry?.status === "new";
  return {
    plan,
    explanation: {
      path: explainPath,
      isArticle,
      status: entry ? entry.status : weakEntry ? "weak" : "none",
      tier: entry?.tier,
      why: isArticle
        ? tierWhy({
            tier: entry?.tier,
            touched: entry?.status === "touched",
            stale: isStale(explainPath),
            score: entry?.score ?? weakEntry?.score ?? 0,
            threshold,
            minScore,
            any: found.length > 0,
            dismissed: [...dismissedReasons],
          })
        : `not listed: ${whyNotArticle(config, explainPath)}`,
      score: entry?.score ?? weakEntry?.score ?? 0,
      minScore,
      threshold,
      // A new article's reasons are the plan's own: no rule signalled a file that does not exist.
      kept:
        entry?.status === "new"
          ? entry.impact
              .map((reason) => ({ ...reason, score: roundScore(reason.score ?? 0) }))
              .sort(compareReasons)
          : found.map(reasonOf).sort(compareReasons),
      dropped: droppedSignals.filter((signal) => signal.article === explainPath),
      olderVersion,
      ignoredFiles: evidence.ignored,
      droppedNames: plan.dropped,
      dismissed: config.dismissed.filter((entry) => entry.article === explainPath),
      ...(sweep && inSweep ? { sweep: { title: sweepTitle(sweep.sweep), names: inSweep.names } } : {}),
    },
  };
}

/** A signal as a plan reason: stale evidence carries the article line it contradicts and the hunk. */
function reasonOfSignal(signal: Signal): ImpactReason & { score: number } {
  const reason = {
    kind: signal.kind,
    source: signal.source,
    detail: signal.detail,
    score: roundScore(signal.score),
  };
  const { stale } = signal;
  return stale ? omitUndefined({ ...reason, stale: true, line: stale.line, hunk: stale.hunk }) : reason;
}

/**
 * Stale-statement evidence, made final: a mapping or attention reason is stale when its
 * file's public surface changed (exported names, options, flags, signatures; not a body, a
 * doc comment or a private helper); every stale mark is located in the article (its line),
 * and a list mark whose siblings are not on the article's list lines is relevance only.
 */
function markStale(input: {
  signals: Map<string, Signal[]>;
  changeSet: ChangeSet;
  articles: readonly ArticleText[];
}): void {
  const files = filesByPath(input.changeSet);
  const surfaces = new Map<string, ReturnType<typeof surfaceChange>>();
  const surfaceOf = (path: string, attention: boolean) => {
    const key = `${attention}\u0000${path}`;
    if (!surfaces.has(key)) {
      const file = files.get(path);
      surfaces.set(key, file && surfaceChange(file, input.changeSet.symbols, attention));
    }
    return surfaces.get(key);
  };
  const texts = new Map(input.articles.map((article) => [article.path, article.content]));
  for (const [path, list] of input.signals) {
    let lines: string[] | undefined;
    for (const signal of list) {
      // A history coupling this strong is a mapping the repository's own commits wrote (what
      // `impact init` proposes as one): with a surface change it counts like a mapping, never alone.
      const mapped =
        signal.kind === "mapping" ||
        signal.kind === "attention" ||
        (signal.kind === "history" && signal.score >= HISTORY_MAPPED_SCORE);
      if (!signal.stale && mapped) {
        const surface = surfaceOf(signal.source, signal.kind === "attention");
        if (surface) signal.stale = surface;
      }
      if (!signal.stale) continue;
      if (lines === undefined) {
        const content = texts.get(path) ?? "";
        lines = textOf(content).split(/\r?\n/);
      }
      const line = locateStale(lines, signal.stale);
      if (line === false) {
        delete signal.stale;
        signal.detail += "; not on a list of the article";
        continue;
      }
      if (signal.stale.list !== undefined) {
        // A member per list line, for five or more of the parent's members: the page is their
        // reference (a heading per option), and the one added is missing from it.
        const count = listed(lines, signal.stale.terms, signal.stale.entries).count;
        if (count >= LONG_LIST && signal.score < REASON_SCORES.longList) {
          signal.score = REASON_SCORES.longList;
          signal.detail += `; ${count} of them on list lines of the article`;
        }
      }
      const file = files.get(signal.source);
      const hunk = signal.stale.hunk ?? (file && hunkAt(file, undefined));
      // A mark located before keeps its line when this pass finds none.
      signal.stale = { ...signal.stale, line: line ?? signal.stale.line, hunk };
    }
  }
}

/** Why an article is in its tier (or in none), in one line for `--explain`. */
function tierWhy(input: {
  tier: Tier | undefined;
  touched: boolean;
  stale: boolean;
  score: number;
  threshold: number;
  minScore: number;
  any: boolean;
  /** Why the article's dismissed reasons were dismissed, if any were. */
  dismissed: readonly string[];
}): string {
  if (input.tier === "new") return "new: a mapping calls for this article, which does not exist yet";
  if (!input.any && !input.touched && input.dismissed.length > 0)
    return `not listed: every reason the change gives was dismissed in the config (${input.dismissed.join("; ")})`;
  if (!input.any && !input.touched) return "no reason: nothing in the change concerns this article";
  if (input.touched)
    return `touched: the change edits it already${input.stale ? " (it has stale-statement evidence)" : ""}`;
  if (input.tier === "stale")
    return `stale: it writes something the change made false (or keeps a list the change made incomplete), and scores ${input.score} ≥ the bar ${input.threshold}`;
  if (input.tier === "related")
    return "related: it is about the changed code, but nothing it writes is contradicted (no stale-statement evidence); listed apart, not flagged";
  if (input.stale)
    return `weak: it has stale-statement evidence, but scores ${input.score} < the bar ${input.threshold}`;
  return `weak: relevance only, scoring ${input.score} < minScore ${input.minScore}`;
}

/**
 * What detection looks for in article text, known before any article is read: the terms and
 * substrings of the reference rule. Besides these, only frontmatter that names `attention`
 * is read (attentionOf). An article whose text holds none of them is detected the same with
 * its content left empty, which lets the plan skip reading it; a rule that comes to read
 * other text must say so here.
 */
export function textLookups(
  input: Pick<DetectInput, "changeSet" | "config" | "genericNames"> & { articlePaths: ReadonlySet<string> },
): { terms: string[]; substrings: string[] } {
  const evidence = selectEvidence(input.changeSet, input.articlePaths, input.config);
  const lookups = referenceLookups({
    changeSet: input.changeSet,
    evidence: evidence.files,
    ignoreSymbols: input.config.ignoreSymbols,
    genericNames: input.genericNames ?? [],
    recordNames: [],
    sweeps: findSweeps(evidence.files),
  });
  // Versions a manifest or CI config dropped are looked for as substrings (the version rule's search).
  const versions = droppedVersions(versionSources(input.changeSet.files, evidence.files)).map(
    (dropped) => dropped.version,
  );
  const declared = declaredNameLookups(declaredNamesOf(input, evidence.files));
  // Addresses a changed file dropped are looked for as substrings (the link rule's search).
  const links = removedLinks(evidence.files).map((removed) => removed.link);
  // Names a docstring note the change added or removed cites (docstring-notes.ts).
  const notes = docstringNoteLookups(evidence.files);
  return {
    // The prose rule ranks only the articles that write one of its words as a whole word.
    // Quoted code and removed targets: a word of the copied lines (`make docs-deps`) the article must hold.
    terms: [
      ...lookups.terms,
      ...declared,
      ...proseLookups(evidence.files),
      ...quotedBlockLookups(quotedBlocks(evidence.files)),
      ...removedTargetLookups(removedTargets(evidence.files)),
      ...removedProgramLookups(removedPrograms(evidence.files)),
      ...templateLineLookups(removedTemplateLines(evidence.files)),
      ...notes.terms,
      ...namesakeLookups(evidence.files),
    ],
    // Dependencies a manifest added or removed: scoped and path-like names are no single word.
    substrings: [
      ...lookups.substrings,
      ...versions,
      ...links,
      ...dependencyLookups(dependencyChanges(evidence.files)),
      ...notes.substrings,
    ],
  };
}

/** The names the change declares in quotes, for the declared-name rule and its lookups. */
function declaredNamesOf(
  input: Pick<DetectInput, "changeSet" | "config" | "genericNames">,
  evidence: readonly ChangedFile[],
) {
  return declaredNames({
    evidence,
    symbols: input.changeSet.symbols,
    ignoreSymbols: input.config.ignoreSymbols,
    genericNames: input.genericNames ?? [],
  });
}

/**
 * The article's score: its signals combined (combineScores), where the signals of one
 * group (one sweeping change) count once, by their strongest, and the history reasons
 * after the strongest count at HISTORY_FURTHER_FACTOR of their score.
 */
function articleScore(signals: readonly Pick<Signal, "kind" | "score" | "group">[]): number {
  const groups = new Map<string, number>();
  const scores: number[] = [];
  const history: number[] = [];
  for (const signal of signals) {
    if (signal.group !== undefined)
      groups.set(signal.group, Math.max(groups.get(signal.group) ?? 0, signal.score));
    else if (signal.kind === "history") history.push(signal.score);
    else scores.push(signal.score);
  }
  history.sort((left, right) => right - left);
  for (const [index, score] of history.entries())
    scores.push(index === 0 ? score : score * HISTORY_FURTHER_FACTOR);
  return combineScores([...scores, ...groups.values()]);
}

function compareReasons(
  left: ImpactReason & { score: number },
  right: ImpactReason & { score: number },
): number {
  return (
    right.score - left.score ||
    left.kind.localeCompare(right.kind) ||
    left.source.localeCompare(right.source) ||
    left.detail.localeCompare(right.detail)
  );
}

function dedupeDropped(dropped: Dropped[]): Dropped[] {
  const seen = new Set<string>();
  return dropped
    .filter((entry) => {
      if (seen.has(entry.symbol)) return false;
      seen.add(entry.symbol);
      return true;
    })
    .sort((left, right) => left.symbol.localeCompare(right.symbol));
}

/** A history reason always carries its co-change score; this is only the fallback. */
const HISTORY_DEFAULT_SCORE = 0.3;

/** One warning per cap that left files out, naming a few of them. */
function skippedWarnings(skipped: readonly SkippedFile[]): string[] {
  const warnings: string[] = [];
  for (const [reason, limit] of [
    ["file_too_large", "limits.fileDiffBytes"],
    ["diff_too_large", "limits.diffBytes"],
  ] as const) {
    const paths = skipped.filter((file) => file.reason === reason).map((file) => file.path);
    if (paths.length === 0) continue;
    const shown =
      paths.length > 5 ? `${paths.slice(0, 5).join(", ")} and ${paths.length - 5} more` : paths.join(", ");
    warnings.push(
      `${plural(paths.length, "changed file was", "changed files were")} skipped, ${reason === "file_too_large" ? "each file's diff" : "the whole diff"} being over ${limit} (raise it in impact.config.json to read them): ${shown}`,
    );
  }
  return warnings;
}
