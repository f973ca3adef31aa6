import pLimit from "p-limit";
import { z } from "zod";
import type { ChangeSet } from "../../shared/changeset.js";
import type { ImpactConfig } from "../../shared/config.js";
import {
  Interrupted,
  isAbortError,
  ModelApiError,
  ModelProtocolError,
  UsageError,
} from "../../shared/errors.js";
import { fieldsHash } from "../../shared/hash.js";
import { DEFAULT_JUDGE_MAX_ARTICLES, JUDGE_ARTICLE_BYTES, JUDGE_DIFF_BYTES } from "../../shared/limits.js";
import { setupFailure } from "../../shared/model/preflight.js";
import { costOf, formatUsd, type ModelPrice } from "../../shared/model/prices.js";
import type { ChatMessage, ModelClient, ModelUsage } from "../../shared/model/types.js";
import type { ImpactPlan, JudgeSummary, JudgeVerdict, PlannedArticle } from "../../shared/plan.js";
import { loadPrompt } from "../../shared/prompts.js";
import { plural } from "../../shared/render/markdown.js";
import { articleText, relevantTerms, selectHunks } from "../run/first-message.js";
import type { ProgressSink } from "../run/progress.js";
import type { CacheSpec, CacheStore } from "../workdir/cache-store.js";
import { combineScores } from "./score.js";

/**
 * The judge (`impact plan --judge`, `impact run --judge`): one model call, without tools, per
 * related article (relevance without a stale statement), asking whether the change makes
 * something it says false. A `stale` answer promotes the article to the stale tier only when
 * its quote stands on the article near the line it names; every other answer leaves it
 * related, with the verdict kept for `--explain` and `--json`. Verdicts are cached (sealed,
 * under `.impact/cache/judge/`) by everything the answer depends on.
 */

/** Bumped when what a verdict means changes (the answer's schema, the quote check): older cache entries then miss. */
const JUDGE_PROMPT_VERSION = "judge/1";

/** The score of a judge reason: a stale statement a reader confirmed, as strong as a removed name the article writes. */
export const JUDGE_SCORE = 0.8;

/** A quote shorter than this (whitespace collapsed) could stand anywhere: not accepted as evidence. */
const MIN_QUOTE_CHARS = 8;

/** The article lines on either side of the answer's line where its quote may stand. */
const QUOTE_SLACK_LINES = 2;

/** The quote and why as the reason's detail shows them (all of them: the verdict in `--json`). */
const SHOWN_QUOTE_CHARS = 160;
const KEPT_TEXT_CHARS = 1_000;

/** The judge cache: one sealed entry per verdict, `.impact/cache/judge/<key>.json`. */
export const JUDGE_CACHE: CacheSpec = {
  kind: "judge",
  format: 1,
  names: /^[0-9a-f]{64}\.json$/,
  bounds: { maxBytes: 8 * 1024 * 1024 },
};

const ENTRY_FORMAT = "impact-judge/1";

const CachedVerdictSchema = z.object({
  format: z.literal(ENTRY_FORMAT),
  key: z.string(),
  verdict: z.object({
    verdict: z.enum(["stale", "fine", "unverified"]),
    line: z.number().int().optional(),
    quote: z.string().optional(),
    why: z.string(),
  }),
});

/** The answer asked for; anything else is malformed (one retry, then the article stays related). */
const AnswerSchema = z.object({
  stale: z.boolean(),
  line: z.number().int().nonnegative(),
  quote: z.string().max(KEPT_TEXT_CHARS * 4),
  why: z.string().min(1),
});

type Answer = z.infer<typeof AnswerSchema>;

/** The judge as configured: config `judge` and the `--judge` flag; undefined when it is off. */
export interface JudgeSettings {
  /** The model of the judge's calls (config `judge.model`); absent: the run's model. */
  model?: string | undefined;
  maxArticles: number;
  /**
   * Asked for by `--judge`, not only by config: a judge that cannot run (no API key, a
   * recording as the model) is then an error. On by config alone, it is skipped with a
   * warning, so a config shared by people and bots without a key keeps working.
   */
  requested: boolean;
}

/** Whether the judge runs, and how: `--judge`, or config `judge` (`true` or an object). */
export function judgeSettings(
  flag: boolean | undefined,
  config: Pick<ImpactConfig, "judge">,
): JudgeSettings | undefined {
  const configured = config.judge;
  if (!flag && (configured === undefined || configured === false)) return undefined;
  const own = typeof configured === "object" ? configured : {};
  return {
    model: own.model,
    maxArticles: own.maxArticles ?? DEFAULT_JUDGE_MAX_ARTICLES,
    requested: flag === true,
  };
}

export interface JudgeOptions {
  plan: ImpactPlan;
  changeSet: ChangeSet;
  /** The article's text now (the bytes the plan read), or undefined when it cannot be read. */
  readArticle: (path: string) => Promise<string | undefined>;
  client: ModelClient;
  /** The endpoint's identity (endpointIdentity): part of every cache key. */
  endpoint: string;
  impactVersion: string;
  maxArticles: number;
  concurrency: number;
  signal: AbortSignal;
  cache?: CacheStore | undefined;
  price?: ModelPrice | undefined;
  /** Judge only the related articles this takes (`--explain PATH`; a run's `--only` and `--shard`). */
  only?: ((path: string) => boolean) | undefined;
  /** Related articles never judged: older docs versions, which are never flagged. */
  skip?: ReadonlySet<string> | undefined;
  progress?: Pick<ProgressSink, "articleStarted" | "articleFinished" | "tokens"> | undefined;
  /** Problems that do not stop the judge (a cache entry that is not ours). */
  onWarning?: (message: string) => void;
}

/**
 * Judges the plan's related articles, strongest first, at most `maxArticles`: sets each one's
 * `judge` verdict, moves those promoted on a verified quote into `articles` (tier `stale`, with
 * a `judge` reason), and sets the plan's `judge` summary. A refused key or an unknown model
 * stops it with a UsageError (exit 2, one line), as it stops a run.
 */
export async function judgeRelated(options: JudgeOptions): Promise<JudgeSummary> {
  const { plan, client } = options;
  const candidates = [...plan.related]
    .filter((article) => judgeable(article.path, options))
    .sort((left, right) => (right.score ?? 0) - (left.score ?? 0) || left.path.localeCompare(right.path));
  const judged = candidates.slice(0, options.maxArticles);
  const summary: JudgeSummary = {
    ...emptyJudgeSummary(client.model),
    notJudged: candidates.length - judged.length,
  };
  const controller = new AbortController();
  const signal = AbortSignal.any([options.signal, controller.signal]);
  let stopped: string | undefined;
  const limit = pLimit(options.concurrency);
  await Promise.all(
    judged.map((article) =>
      limit(async () => {
        if (signal.aborted) return;
        options.progress?.articleStarted(article.path);
        try {
          const outcome = await judgeArticle(article, options, signal);
          if (outcome === undefined) return;
          article.judge = outcome.verdict;
          summary.judged += 1;
          if (outcome.verdict.cached) summary.cached += 1;
          summary.promptTokens += outcome.usage.promptTokens;
          summary.completionTokens += outcome.usage.completionTokens;
          if (options.price) summary.costUsd = (summary.costUsd ?? 0) + costOf(outcome.usage, options.price);
          options.progress?.tokens(outcome.usage.promptTokens + outcome.usage.completionTokens);
        } catch (error) {
          if (setupFailure(error, client) === undefined) throw error;
          // The key or the model is wrong for every article: stop the others, say it once.
          stopped ??= setupFailure(error, client, "the judge stopped");
          controller.abort();
        } finally {
          options.progress?.articleFinished(article.path, article.judge?.verdict ?? "error");
        }
      }),
    ),
  );
  if (stopped !== undefined) throw new UsageError(stopped, { code: "config" });
  if (options.signal.aborted) throw new Interrupted("interrupted: the judge stopped; nothing was written");
  if (summary.costUsd !== undefined) summary.costUsd = Math.round(summary.costUsd * 1_000_000) / 1_000_000;
  for (const article of judged) if (article.judge?.verdict === "stale") promote(plan, article);
  summary.promoted = judged.filter((article) => article.judge?.verdict === "stale").length;
  plan.judge = summary;
  return summary;
}

/** A summary of no verdict yet: the start of every count (a plan's, the truth bench's). */
export function emptyJudgeSummary(model: string): JudgeSummary {
  return { model, judged: 0, promoted: 0, notJudged: 0, cached: 0, promptTokens: 0, completionTokens: 0 };
}

/** Whether the judge reads this related article: not an older docs version, and one `only` takes. */
export function judgeable(path: string, options: Pick<JudgeOptions, "only" | "skip">): boolean {
  return !options.skip?.has(path) && (options.only?.(path) ?? true);
}

/** Moves a related article the judge found stale into the flagged articles, with its judge reason. */
function promote(plan: ImpactPlan, article: PlannedArticle): void {
  const verdict = article.judge!;
  plan.related = plan.related.filter((entry) => entry !== article);
  const quote = shorten(verdict.quote ?? "", SHOWN_QUOTE_CHARS);
  const why = shorten(verdict.why, SHOWN_QUOTE_CHARS * 2);
  const promoted: PlannedArticle = {
    ...article,
    status: "impacted",
    tier: "stale",
    impact: [
      ...article.impact,
      {
        kind: "judge",
        source: article.files[0] ?? article.impact[0]?.source ?? "",
        detail: `judge (${verdict.model}): line ${verdict.line} says "${quote}": ${why}`,
        score: JUDGE_SCORE,
        stale: true,
        ...(verdict.line !== undefined ? { line: verdict.line } : {}),
      },
    ],
    score: combineScores([article.score ?? 0, JUDGE_SCORE]),
  };
  plan.articles.push(promoted);
  plan.articles.sort(
    (left, right) => (right.score ?? 0) - (left.score ?? 0) || left.path.localeCompare(right.path),
  );
}

interface Outcome {
  verdict: JudgeVerdict;
  usage: ModelUsage;
}

/** One article's verdict: from the cache, or from one model call (and at most one retry); undefined when aborted. */
async function judgeArticle(
  article: PlannedArticle,
  options: JudgeOptions,
  signal: AbortSignal,
): Promise<Outcome | undefined> {
  const model = options.client.model;
  const none: ModelUsage = { promptTokens: 0, completionTokens: 0 };
  const content = await options.readArticle(article.path);
  if (content === undefined)
    return { verdict: { verdict: "error", model, why: "the article could not be read" }, usage: none };
  const messages = await judgeMessages(article, content, options.changeSet);
  const key = cacheKey(options, content, messages);
  const cached = await readCached(options, key);
  if (cached) return { verdict: { ...cached, model, cached: true }, usage: none };
  const usage: ModelUsage = { promptTokens: 0, completionTokens: 0 };
  let answer: Answer | undefined;
  let problem = "";
  for (let attempt = 0; attempt < 2 && answer === undefined; attempt++) {
    let response: Awaited<ReturnType<ModelClient["complete"]>>;
    try {
      response = await options.client.complete({ model, article: article.path, messages, tools: [] }, signal);
    } catch (error) {
      if (signal.aborted && isAbortError(error)) return undefined;
      if (setupFailure(error, options.client) !== undefined) throw error;
      if (!(error instanceof ModelApiError || error instanceof ModelProtocolError)) throw error;
      const why =
        error instanceof ModelApiError && error.reason === "timeout"
          ? "no answer in time (timeout)"
          : `no answer: ${error.message}`;
      return { verdict: { verdict: "error", model, why }, usage };
    }
    usage.promptTokens += response.usage.promptTokens;
    usage.completionTokens += response.usage.completionTokens;
    if (response.finishReason === "content_filter")
      return { verdict: { verdict: "refused", model, why: "the model refused to answer" }, usage };
    const text = response.message.content ?? "";
    const parsed = parseAnswer(text);
    if (parsed.success) {
      answer = parsed.answer;
      break;
    }
    problem = parsed.problem;
    messages.push(
      { role: "assistant", content: text },
      {
        role: "user",
        content: `That answer could not be used (${problem}). Answer with only the JSON object {"stale": boolean, "line": number, "quote": string, "why": string}.`,
      },
    );
  }
  if (answer === undefined)
    return {
      verdict: { verdict: "malformed", model, why: `no usable answer after one retry: ${problem}` },
      usage,
    };
  const verdict = verdictOf(answer, content);
  await options.cache?.put(`${key}.json`, `${JSON.stringify({ format: ENTRY_FORMAT, key, verdict })}\n`);
  return { verdict: { ...verdict, model }, usage };
}

/** The judge's verdict on an article in one line (`--explain --judge`); the caller prints it through `printable`. */
export function verdictLine(judge: JudgeVerdict): string {
  const by = `Judge (${judge.model}${judge.cached ? ", cached" : ""})`;
  const quoted = judge.quote ? ` line ${judge.line ?? "?"} "${judge.quote}"` : "";
  switch (judge.verdict) {
    case "stale":
      return `${by}: stale:${quoted}: ${judge.why}; promoted to stale (flagged, fails --check)`;
    case "fine":
      return `${by}: fine (${judge.why}); stays related`;
    case "unverified":
      return `${by}: said stale (${judge.why}),${quoted}, but that text does not stand on the article within two lines of it; stays related`;
    default:
      return `${by}: ${judge.verdict}: ${judge.why}; stays related`;
  }
}

/** The judge's verdict on each related article it read, in a few words, for the related table (`--include related`). */
export function verdictNotes(related: readonly PlannedArticle[]): Map<string, string> {
  const notes = new Map<string, string>();
  for (const { path, judge } of related) {
    if (!judge) continue;
    const why = shorten(judge.why, SHOWN_QUOTE_CHARS);
    notes.set(
      path,
      judge.verdict === "unverified"
        ? `said stale at line ${judge.line}, but the quote does not stand on the article there`
        : `${judge.verdict} (${why})${judge.cached ? ", cached" : ""}`,
    );
  }
  return notes;
}

/** The judge's summary under the plan's table (`plan --judge`). */
export function summaryLine(summary: JudgeSummary): string {
  if (summary.skipped !== undefined) return `Judge (${summary.model}): skipped: ${summary.skipped}`;
  const parts = [
    `${plural(summary.judged, "related article")} judged${summary.cached > 0 ? ` (${summary.cached} from the cache)` : ""}`,
    `${summary.promoted} promoted to stale`,
  ];
  if (summary.notJudged > 0) parts.push(`${summary.notJudged} not judged (over judge.maxArticles)`);
  const tokens = `${(summary.promptTokens + summary.completionTokens).toLocaleString("en-US")} tokens`;
  const cost = summary.costUsd === undefined ? "" : `, ${formatUsd(summary.costUsd)}`;
  return `Judge (${summary.model}): ${parts.join(", ")}; ${tokens}${cost}`;
}

/** What a well-formed answer comes to, checked against the article's text. */
function verdictOf(answer: Answer, content: string): Omit<JudgeVerdict, "model"> {
  const why = shorten(answer.why.trim(), KEPT_TEXT_CHARS);
  if (!answer.stale) return { verdict: "fine", why };
  const quote = shorten(answer.quote, KEPT_TEXT_CHARS);
  const line = quoteLine(content, answer.line, answer.quote);
  if (line === undefined) return { verdict: "unverified", line: answer.line, quote, why };
  return { verdict: "stale", line, quote, why };
}

/**
 * The line where `quote` starts when it stands on the article within QUOTE_SLACK_LINES of
 * `line` (whitespace collapsed on both sides; a line-number prefix the model copied is
 * dropped), or undefined: a quote the article does not hold is no evidence.
 */
export function quoteLine(content: string, line: number, quote: string): number | undefined {
  const wanted = normalize(
    quote
      .split("\n")
      .map((part) => part.replace(/^\s*\d+: /, ""))
      .join("\n"),
  );
  if (wanted.length < MIN_QUOTE_CHARS) return undefined;
  const lines = content.split("\n");
  const quoteLines = quote.split("\n").length;
  const first = Math.max(1, line - QUOTE_SLACK_LINES);
  const last = Math.min(lines.length, line + QUOTE_SLACK_LINES);
  // The nearest start first: the answer's line, then one off, then two.
  const starts = [...Array(last - first + 1).keys()]
    .map((offset) => first + offset)
    .sort((a, b) => Math.abs(a - line) - Math.abs(b - line) || a - b);
  for (const start of starts) {
    // The quote may begin mid-line and run over the lines after it; it starts on this line
    // when the lines from here hold it and those from the next one do not.
    const from = (index: number) => normalize(lines.slice(index - 1, index + quoteLines).join("\n"));
    if (from(start).includes(wanted) && !from(start + 1).includes(wanted)) return start;
  }
  return undefined;
}

function normalize(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function shorten(text: string, chars: number): string {
  return text.length > chars ? `${text.slice(0, chars - 1)}…` : text;
}

/** The answer's JSON object, with or without a code fence around it, checked. */
function parseAnswer(text: string): { success: true; answer: Answer } | { success: false; problem: string } {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end < start) return { success: false, problem: "no JSON object in it" };
  let json: unknown;
  try {
    json = JSON.parse(text.slice(start, end + 1));
  } catch {
    return { success: false, problem: "its JSON does not parse" };
  }
  const parsed = AnswerSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { success: false, problem: `${issue.path.join(".") || "the object"}: ${issue.message}` };
  }
  return { success: true, answer: parsed.data };
}

/** The system message and the article's message: the change's relevant hunks and the numbered article, each capped. */
async function judgeMessages(
  article: PlannedArticle,
  content: string,
  changeSet: ChangeSet,
): Promise<ChatMessage[]> {
  const terms = relevantTerms(article, changeSet, content);
  // Budgets in tokens at four characters each (cli/run/budget.ts estimateTokens).
  const diff = selectHunks(article, changeSet, terms, Math.floor(JUDGE_DIFF_BYTES / 4), { tools: false });
  const lines = article.impact.flatMap((reason) => (reason.line === undefined ? [] : [reason.line]));
  const text = articleText(content, terms, Math.floor(JUDGE_ARTICLE_BYTES / 4), article.path, {
    numbered: true,
    lines,
    tools: false,
  });
  const leftOut = [
    ...diff.leftOut.map((line) => `${line} (cut to fit ${JUDGE_DIFF_BYTES / 1024} KB of hunks)`),
    ...text.leftOut.map((line) => `${line} (cut to fit ${JUDGE_ARTICLE_BYTES / 1024} KB of article)`),
  ];
  return [
    { role: "system", content: await loadPrompt("judge-system", {}) },
    {
      role: "user",
      content: await loadPrompt("judge", {
        path: article.path,
        reasons:
          article.impact.map((reason) => `- ${reason.kind} ${reason.source}: ${reason.detail}`).join("\n") ||
          "- (no reason recorded)",
        diff: diff.diff || "(no textual hunks for this article's files)",
        article: text.text,
        trimmed:
          leftOut.length === 0
            ? "Nothing was left out."
            : `${plural(leftOut.length, "part was", "parts were")} cut; judge only what is shown:\n${leftOut.map((line) => `- ${line}`).join("\n")}`,
      }),
    },
  ];
}

/** sha256 over everything a verdict depends on (fieldsHash). */
function cacheKey(options: JudgeOptions, content: string, messages: readonly ChatMessage[]): string {
  return fieldsHash([
    ENTRY_FORMAT,
    JUDGE_PROMPT_VERSION,
    options.impactVersion,
    options.client.model,
    options.endpoint,
    content,
    JSON.stringify(messages),
  ]);
}

/** A cached verdict for `key`, or undefined; a sealed entry that is not one is said once and ignored. */
function readCached(options: JudgeOptions, key: string): Promise<Omit<JudgeVerdict, "model"> | undefined> {
  const name = `${key}.json`;
  return (
    options.cache?.getJson(
      name,
      (json) => {
        const parsed = CachedVerdictSchema.safeParse(json);
        return parsed.success && parsed.data.key === key ? parsed.data.verdict : undefined;
      },
      () => options.onWarning?.(`judge cache: ignoring ${name}: not an Impact verdict for this key`),
    ) ?? Promise.resolve(undefined)
  );
}
