import pLimit from "p-limit";
import type { AuditArticle, AuditEdit } from "../../shared/audit.js";
import type { ChangeSet } from "../../shared/changeset.js";
import { addedLines } from "../../shared/diff/lines.js";
import { isAbortError, ModelApiError, ModelProtocolError } from "../../shared/errors.js";
import { MAX_PROTOCOL_RETRIES } from "../../shared/limits.js";
import { setupFailure } from "../../shared/model/preflight.js";
import { costOf, formatUsd, type ModelPrice } from "../../shared/model/prices.js";
import type {
  AssistantMessage,
  ChatMessage,
  ModelClient,
  ModelResponse,
  ToolCall,
  ToolDefinition,
} from "../../shared/model/types.js";
import type { PlannedArticle } from "../../shared/plan.js";
import { secretShapeIn } from "../../shared/redact.js";
import { plural } from "../../shared/render/markdown.js";
import { emptyUsage } from "../audit/audit-trail.js";
import { CostBudget, RunBudget, type RunLimits, resolveRunLimits } from "./budget.js";
import { buildFirstMessage } from "./first-message.js";
import { instructionsKey, NO_INSTRUCTIONS, type ProjectInstructions } from "./instructions.js";
import { NO_PROGRESS, type ProgressSink } from "./progress.js";
import { type ResultCache, resultKey } from "./result-cache.js";

/** One tool call's outcome, as the runner counts it. */
interface ToolCallOutcome {
  name: string;
  ok: boolean;
}

/** What an article's edits came to when its session finished. */
export interface ArticleOutcome {
  patch: string;
  hashBefore: string | null;
  hashAfter: string | null;
  edits: AuditEdit[];
  /** New articles the loop made with create_article; each becomes its own audit entry. */
  createdFiles?: { path: string; patch: string; hashAfter: string; edits: AuditEdit[] }[];
}

/**
 * The runner's view of one article's tool host: it runs the model's tool calls and keeps
 * the article's edits in the workspace overlay until `finish` (keep) or `abandon` (drop).
 */
export interface ArticleSession {
  /** The article's current text, for the first message. */
  readonly content: string;
  /** A new article's models (existing articles of its mapping) with their text. */
  readonly models?: readonly { path: string; content: string }[] | undefined;
  /** Runs a turn's tool calls; one tool message per call, in order, plus their outcomes. */
  execute(
    calls: ToolCall[],
    signal: AbortSignal,
  ): Promise<{ messages: ChatMessage[]; outcomes: ToolCallOutcome[] }>;
  /** True once an edit_article call with `done: true` succeeded. */
  readonly done: boolean;
  finish(): Promise<ArticleOutcome>;
  abandon(): void;
  /** The files the loop read or its edits cite as evidence, each with its content's hash (for the result cache). */
  usedFiles?(): Promise<Map<string, string>>;
  /** The hash `usedFiles` would give `path` now. */
  fileHash?(path: string): Promise<string>;
}

export interface ImpactAgentRunnerOptions {
  model: ModelClient;
  /** The system prompt: identical for every article, so providers can cache the prefix. */
  systemPrompt: string;
  /** The tool manifest: identical for every article, for the same reason. */
  tools: ToolDefinition[];
  changeSet: ChangeSet;
  openArticle: (article: PlannedArticle) => Promise<ArticleSession>;
  allowCreate?: boolean;
  /** Caps left out take their defaults (cli/run/budget.ts). */
  concurrency?: number;
  maxTurns?: number;
  tokensPerArticle?: number;
  tokensPerRun?: number;
  progress?: ProgressSink | undefined;
  now?: () => number;
  /**
   * Reuses an article's earlier result when nothing it depends on changed (resultKey), and
   * the files its loop read still hold what they held.
   */
  cache?: { results: ResultCache; impactVersion: string; endpoint: string; config: string } | undefined;
  /** The project's style instructions, in every first message and in the result key. */
  instructions?: ProjectInstructions | undefined;
  /** The name of a separate docs repository (`name:PATH`), said in every first message; absent: none. */
  docsRepositoryName?: string | undefined;
  /** The after-edit style check's key (StyleCheck.key): its findings shape the answer too. */
  styleCheckKey?: string | undefined;
  /** The model's price; without it no cost is given, and `maxCostUsd` cannot be used. */
  price?: ModelPrice | undefined;
  /** Articles not yet started when the run has spent this much end `skipped` (reason `budget`). */
  maxCostUsd?: number | undefined;
}

/** Why a loop stopped; each value is one stop predicate of `runArticle`. */
type StopReason = "answered" | "done" | "turn_cap" | "article_budget" | "run_budget" | "cost_budget";

/** What every audit entry of an article shares, before its status and summary are known. */
type ArticleBase = Omit<AuditArticle, "status" | "summary">;

/** A model call's share of `--max-cost`, reserved before it is sent (CostBudget). */
type CostReservation = NonNullable<ReturnType<CostBudget["reserve"]>>;

/** Thrown by `openArticle` when the article cannot be worked on at all (deleted, binary): it is `skipped`. */
export class ArticleSkipped extends Error {}

class ArticleFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * ImpactAgentRunner: one model loop per impacted article, articles
 * in parallel under p-limit. It never throws for an article's sake: every article ends as
 * updated, unchanged, failed (with a reason) or cancelled (on abort).
 */
export class ImpactAgentRunner {
  readonly #options: ImpactAgentRunnerOptions;
  readonly #limits: RunLimits;
  readonly #budget: RunBudget;
  readonly #progress: ProgressSink;
  readonly #now: () => number;
  /** `--max-cost`: what the run's calls spent and reserved, when a cap and the price are given. */
  readonly #cost: CostBudget | undefined;
  /** The characters of the tool manifest, part of every request's size. */
  readonly #toolsChars: number;
  /** Set by the first call that found the model setup wrong (setupFailure): no article starts after it. */
  #setupFailure: string | undefined;

  constructor(options: ImpactAgentRunnerOptions) {
    this.#options = options;
    this.#limits = resolveRunLimits(options);
    this.#budget = new RunBudget(this.#limits.tokensPerRun);
    this.#cost =
      options.price && options.maxCostUsd !== undefined
        ? new CostBudget(options.maxCostUsd, options.price)
        : undefined;
    this.#toolsChars = JSON.stringify(options.tools).length;
    this.#progress = options.progress ?? NO_PROGRESS;
    this.#now = options.now ?? Date.now;
  }

  /** Runs every article; on abort the unfinished ones come back `cancelled`. Results keep input order. */
  async run(articles: readonly PlannedArticle[], signal: AbortSignal): Promise<AuditArticle[]> {
    const limit = pLimit(this.#limits.concurrency);
    const results = new Map<PlannedArticle, AuditArticle[]>();
    const runAll = (list: readonly PlannedArticle[]) =>
      Promise.all(
        list.map((article) =>
          limit(async () => results.set(article, await this.runArticle(article, signal))),
        ),
      );
    // New articles first, to the end: the others' loops then see them, and may link to them.
    await runAll(articles.filter((article) => article.status === "new"));
    await runAll(articles.filter((article) => article.status !== "new"));
    return articles.flatMap((article) => results.get(article)!);
  }

  /** One article's loop: its audit entry, followed by an entry for each article it created. */
  async runArticle(article: PlannedArticle, signal: AbortSignal): Promise<AuditArticle[]> {
    const started = this.#now();
    const usage = emptyUsage();
    const base: ArticleBase = {
      path: article.path,
      impact: article.impact,
      score: article.score,
      edits: [],
      editReasons: [],
      patch: "",
      hashBefore: null,
      hashAfter: null,
      usage,
    };
    const elapsed = () => Math.max(0, Math.round(this.#now() - started));
    const notStarted = this.#notStarted(base, signal);
    if (notStarted) return [notStarted];

    this.#progress.articleStarted(article.path);
    let session: ArticleSession | undefined;
    let status: AuditArticle["status"] = "failed";
    try {
      session = await this.#options.openArticle(article);
      const firstMessage = await buildFirstMessage({
        article,
        content: session.content,
        changeSet: this.#options.changeSet,
        instructions: this.#options.instructions?.text,
        models: session.models,
        docsRepositoryName: this.#options.docsRepositoryName,
      });
      const key = this.#options.cache
        ? resultKey({
            impactVersion: this.#options.cache.impactVersion,
            model: this.#options.model.model,
            endpoint: this.#options.cache.endpoint,
            systemPrompt: this.#options.systemPrompt,
            tools: this.#options.tools,
            config: this.#options.cache.config,
            article: session.content,
            firstMessage,
            instructions: [
              instructionsKey(this.#options.instructions ?? NO_INSTRUCTIONS),
              this.#options.styleCheckKey ?? "",
            ].join("\n"),
          })
        : undefined;
      const opened = session;
      const reused =
        key === undefined
          ? undefined
          : await this.#options.cache?.results.get(
              key,
              opened.fileHash && ((path) => opened.fileHash!(path)),
            );
      if (reused) {
        session.abandon();
        session = undefined;
        const [own, ...created] = reused;
        status = own!.status;
        return [
          { ...own!, impact: article.impact, ...this.#reusedFields(own!), durationMs: elapsed() },
          ...created.map((entry) => ({ ...entry, ...this.#reusedFields(entry) })),
        ];
      }
      // Checked after the cache: a reused result costs nothing, so it is never skipped. The
      // first call's cost is reserved now, before the article starts (CostBudget).
      const messages: ChatMessage[] = [
        { role: "system", content: this.#options.systemPrompt },
        { role: "user", content: firstMessage },
      ];
      const firstCall = this.#cost?.reserve(this.#requestChars(messages));
      if (this.#cost && !firstCall) {
        session.abandon();
        session = undefined;
        status = "skipped";
        return [this.#overBudget(base, "not_started")];
      }
      const { summary, stop, refusal } = await this.#loop(
        article,
        session,
        messages,
        usage,
        signal,
        firstCall,
      );
      if (stop === "cost_budget") {
        session.abandon();
        session = undefined;
        status = "skipped";
        return [{ ...this.#overBudget(base, "stopped"), durationMs: elapsed() }];
      }
      if (stop !== "answered" && stop !== "done") {
        throw new ArticleFailure(stop, capMessage(stop, this.#limits, this.#budget));
      }
      const [own, ...created] = this.#finished(article, base, await session.finish(), summary, refusal);
      own!.durationMs = elapsed();
      status = own!.status;
      this.#priced(usage);
      // A model that gave up is asked again next time, as a failed article is.
      if (key !== undefined && status !== "gave_up")
        await this.#options.cache?.results.put(key, [own!, ...created], await session.usedFiles?.());
      return [own, ...created];
    } catch (error) {
      session?.abandon();
      const entry = { ...this.#ended(base, error, signal), durationMs: elapsed() };
      status = entry.status;
      return [entry];
    } finally {
      // Every entry returned above shares `usage`; its cost is what the article's calls spent.
      this.#priced(usage);
      this.#progress.articleFinished(article.path, status);
    }
  }

  /** The entry of an article that is not started at all: the run was interrupted, or its model setup failed. */
  #notStarted(base: ArticleBase, signal: AbortSignal): AuditArticle | undefined {
    if (signal.aborted)
      return { ...base, status: "cancelled", summary: "the run was interrupted before this article started" };
    if (this.#setupFailure !== undefined)
      return {
        ...base,
        status: "skipped",
        skipReason: "setup",
        summary: `not started: ${this.#setupFailure}`,
      };
    return undefined;
  }

  /** The entry of an article `--max-cost` leaves no room for: before its first call, or before its next one. */
  #overBudget(base: ArticleBase, when: "not_started" | "stopped"): AuditArticle {
    const spent = formatUsd(this.#cost?.spentUsd ?? 0);
    const cap = formatUsd(this.#cost?.capUsd ?? 0);
    return {
      ...base,
      status: "skipped",
      skipReason: "budget",
      summary:
        when === "not_started"
          ? `not started: the run had spent ${spent} of its ${cap} budget (--max-cost), too little is left for its first call`
          : `stopped: the next model call could cross the run's --max-cost budget (${spent} of ${cap} spent); this article's edits were dropped`,
    };
  }

  /**
   * The entries of a finished article: its own and one for each article it created. A model
   * can copy a credential it read into an edit; the patch would then reach the audit, the PR
   * comment and the job summary. Only what the edits add counts: an article may already show
   * an example key, which its context lines then carry.
   */
  #finished(
    article: PlannedArticle,
    base: ArticleBase,
    outcome: ArticleOutcome,
    summary: string,
    refusal: string | undefined,
  ): [AuditArticle, ...AuditArticle[]] {
    for (const patch of [outcome.patch, ...(outcome.createdFiles ?? []).map((file) => file.patch)]) {
      const secret = secretShapeIn(addedLines(patch).join("\n"));
      if (secret)
        throw new ArticleFailure(
          "secret_in_patch",
          `the edits hold ${secret}, so the patch was dropped; credentials never go into documentation`,
        );
    }
    const created: AuditArticle[] = (outcome.createdFiles ?? []).map((file) => ({
      ...base,
      path: file.path,
      status: "updated",
      usage: emptyUsage(),
      edits: file.edits,
      editReasons: file.edits.map((edit) => edit.reason),
      patch: file.patch,
      hashBefore: null,
      hashAfter: file.hashAfter,
      created: true,
      summary: `created by the loop of ${article.path}`,
    }));
    // A refused edit and then nothing that passed: the article may still be wrong, so never "unchanged".
    const status = outcome.patch !== "" ? "updated" : refusal !== undefined ? "gave_up" : "unchanged";
    const own: AuditArticle = {
      ...base,
      status,
      edits: outcome.edits,
      editReasons: outcome.edits.map((edit) => edit.reason),
      patch: outcome.patch,
      hashBefore: outcome.hashBefore,
      hashAfter: outcome.hashAfter,
      ...(article.status === "new" && outcome.patch !== "" ? { created: true } : {}),
      summary: summary !== "" ? summary : summariseEdits(outcome.edits),
      ...(status === "gave_up" ? { error: { code: "edit_refused", message: refusal! } } : {}),
    };
    return [own, ...created];
  }

  /** The entry of an article whose loop threw: interrupted, skipped, or failed with a reason. */
  #ended(base: ArticleBase, error: unknown, signal: AbortSignal): AuditArticle {
    if (signal.aborted || isAbortError(error))
      return {
        ...base,
        status: "cancelled",
        summary: "the run was interrupted; this article's edits were dropped",
      };
    if (error instanceof ArticleSkipped) return { ...base, status: "skipped", summary: error.message };
    const setup = setupFailure(error, this.#options.model);
    if (setup !== undefined) {
      // The model setup is wrong for every article: the articles not started yet never start.
      this.#setupFailure ??= setup;
      return { ...base, status: "failed", summary: setup, error: { code: "model_setup", message: setup } };
    }
    const failure = describeFailure(error);
    return { ...base, status: "failed", summary: failure.message, error: failure };
  }

  /** The characters of a request: its messages and the tool manifest, as sent. */
  #requestChars(messages: readonly ChatMessage[]): number {
    return JSON.stringify(messages).length + this.#toolsChars;
  }

  /** Sets `usage.costUsd` when the price is known; returns `usage`. */
  #priced(usage: AuditArticle["usage"]): AuditArticle["usage"] {
    if (this.#options.price) usage.costUsd = costOf(usage, this.#options.price);
    return usage;
  }

  /** A cached result in this run: no model call now, the original run's usage kept apart. */
  #reusedFields(entry: AuditArticle): Pick<AuditArticle, "cached" | "usage" | "originalUsage"> {
    return { cached: true, usage: this.#priced(emptyUsage()), originalUsage: entry.usage };
  }

  /**
   * The loop of one article. It stops when the model answers without tool calls, after a
   * successful `done`, or when a cap is reached (turns, the article's tokens, the run's).
   */
  async #loop(
    article: PlannedArticle,
    session: ArticleSession,
    messages: ChatMessage[],
    usage: AuditArticle["usage"],
    signal: AbortSignal,
    firstCall: CostReservation | undefined,
  ): Promise<{ summary: string; stop: StopReason; refusal?: string | undefined }> {
    const options = this.#options;
    const { maxTurns, tokensPerArticle } = this.#limits;
    let reserved = firstCall;
    let summary = "";
    let protocolErrors = 0;
    let failedEditSinceSuccess = false;
    // The last refused edit or creation, for an article whose model then stopped without one that passed.
    let refusal: string | undefined;
    const stopped = (stop: StopReason) => ({ summary, stop, refusal });

    // Each pass is one model call (a turn); the stop predicates below are the only exits.
    while (usage.turns < maxTurns) {
      if (this.#budget.exhausted) return stopped("run_budget");
      if (usage.promptTokens + usage.completionTokens >= tokensPerArticle) return stopped("article_budget");
      signal.throwIfAborted();
      // Under --max-cost, no call is sent that could cross the cap next to the calls under way.
      const requestChars = this.#requestChars(messages);
      const reservation = reserved ?? this.#cost?.reserve(requestChars);
      reserved = undefined;
      if (this.#cost && !reservation) return { summary, stop: "cost_budget" };

      usage.turns += 1;
      usage.llmCalls += 1;
      let response: ModelResponse;
      try {
        response = await options.model.complete(
          {
            model: options.model.model,
            article: article.path,
            messages,
            tools: options.tools,
            ...(options.allowCreate ? { allowCreate: true } : {}),
            maxTokens: reservation?.maxTokens,
          },
          signal,
        );
      } catch (error) {
        // An HTTP error status cost nothing; anything else may have been answered and billed.
        if (error instanceof ModelApiError && error.reason === "status") reservation?.settle(0);
        else reservation?.settle();
        if (error instanceof ModelProtocolError) {
          // An answer came but could not be used (invalid usage among others): its tokens are
          // counted as estimated, high, so a cap cannot be dodged by answers without usable usage.
          const estimated = Math.ceil(requestChars / 3);
          usage.promptTokens += estimated;
          this.#budget.spend(estimated);
          if (protocolErrors < MAX_PROTOCOL_RETRIES && !signal.aborted) {
            protocolErrors += 1;
            continue;
          }
        }
        throw error;
      }
      const tokens = response.usage.promptTokens + response.usage.completionTokens;
      usage.promptTokens += response.usage.promptTokens;
      usage.completionTokens += response.usage.completionTokens;
      usage.retries = (usage.retries ?? 0) + response.retries;
      const cachedTokens = response.usage.cachedPromptTokens ?? 0;
      if (cachedTokens > 0) usage.cachedPromptTokens = (usage.cachedPromptTokens ?? 0) + cachedTokens;
      // An answer without usage is charged its reservation: a server that reports nothing
      // cannot run past the cap.
      reservation?.settle(
        options.price && !response.usage.unreported ? costOf(response.usage, options.price) : undefined,
      );
      this.#budget.spend(tokens);
      this.#progress.tokens(tokens);
      if (response.retries > 0) this.#progress.retries(response.retries);

      const message = normaliseMessage(response.message, usage.turns);
      // The summary is the model's last words, not a plan it stated along the way.
      const content = message.content?.trim() ?? "";
      summary = content;
      const calls = message.tool_calls ?? [];

      if (calls.length === 0) {
        if (response.finishReason === "length") {
          // Cut off mid-answer: keep what came, ask for the rest, and spend another turn.
          messages.push({ role: "assistant", content: message.content ?? "" });
          messages.push({ role: "user", content: CUT_OFF_NOTE });
          continue;
        }
        if (response.finishReason === "content_filter") {
          throw new ArticleFailure(
            "content_filter",
            "the model's answer was withheld by the provider's content filter",
          );
        }
        if (content === "") {
          if (protocolErrors >= MAX_PROTOCOL_RETRIES) {
            throw new ArticleFailure("model_protocol", "the model answered with neither text nor tool calls");
          }
          protocolErrors += 1;
          messages.push({ role: "assistant", content: "" });
          messages.push({ role: "user", content: EMPTY_ANSWER_NOTE });
          continue;
        }
        return stopped("answered");
      }

      messages.push({ role: "assistant", content: message.content, tool_calls: calls });
      const { messages: results, outcomes } = await session.execute(calls, signal);
      messages.push(...results);
      for (const [index, outcome] of outcomes.entries()) {
        usage.toolCalls[outcome.name] = (usage.toolCalls[outcome.name] ?? 0) + 1;
        if (!outcome.ok) usage.toolErrors += 1;
        if (outcome.name === "edit_article" || outcome.name === "create_article") {
          if (outcome.ok && !failedEditSinceSuccess) usage.firstTryEdits = (usage.firstTryEdits ?? 0) + 1;
          failedEditSinceSuccess = !outcome.ok;
          if (!outcome.ok) refusal = refusalOf(results[index]?.content);
        }
      }
      if (session.done) return stopped("done");
      if (usage.promptTokens + usage.completionTokens >= tokensPerArticle) return stopped("article_budget");
    }
    return stopped("turn_cap");
  }
}

const CUT_OFF_NOTE =
  "Your answer was cut off at the output length limit. Continue: send the edits as an edit_article call with fewer, smaller edits, or say in one sentence why nothing needs to change.";
const EMPTY_ANSWER_NOTE =
  "Your answer was empty. Either call edit_article to fix the article, or say in one or two sentences why it is still correct.";

/** Gives tool calls without an id one, so the tool results can answer them. */
function normaliseMessage(message: AssistantMessage, turn: number): AssistantMessage {
  const calls = (message.tool_calls ?? []).map((call, index) => ({
    ...call,
    id: call.id || `call_${turn}_${index}`,
    type: "function" as const,
    function: { name: call.function?.name ?? "", arguments: call.function?.arguments ?? "" },
  }));
  return {
    role: "assistant",
    content: message.content ?? null,
    ...(calls.length > 0 ? { tool_calls: calls } : {}),
  };
}

/** The longest refusal an audit keeps of a tool result. */
const MAX_REFUSAL_CHARS = 500;

/** A refused edit's tool result as the audit keeps it: its first line, without the "Error: " the model saw. */
function refusalOf(content: unknown): string {
  const line =
    (typeof content === "string" ? content : "")
      .replace(/^Error: /, "")
      .split("\n")[0]!
      .trim() || "the edit was refused";
  return line.length > MAX_REFUSAL_CHARS ? `${line.slice(0, MAX_REFUSAL_CHARS - 1)}…` : line;
}

/** For a loop that ended with a silent `done`: what was edited, from the edit reasons. */
function summariseEdits(edits: readonly AuditEdit[]): string {
  if (edits.length === 0) return "No edit was needed.";
  const reasons = [...new Set(edits.map((edit) => edit.reason.trim()))];
  return `${plural(edits.length, "edit")}: ${reasons.join(" ")}`;
}

function capMessage(stop: StopReason, limits: RunLimits, budget: RunBudget): string {
  switch (stop) {
    case "turn_cap":
      return `turn cap reached: the article was not finished in ${limits.maxTurns} turns (--max-turns)`;
    case "article_budget":
      return `token budget per article reached (${limits.tokensPerArticle.toLocaleString("en-US")} tokens)`;
    case "run_budget":
      return `token budget of the run reached (${budget.limit.toLocaleString("en-US")} tokens)`;
    default:
      return stop;
  }
}

function describeFailure(error: unknown): { code: string; message: string } {
  if (error instanceof ArticleFailure) return { code: error.code, message: error.message };
  if (error instanceof ModelApiError || error instanceof ModelProtocolError) {
    return { code: error.code, message: error.message };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { code: "internal", message: `unexpected error: ${message}` };
}
