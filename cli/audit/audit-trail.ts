import {
  type ArticleStatus,
  type ArticleUsage,
  type Audit,
  type AuditArticle,
  AuditSchema,
  editId,
  type InstructionsSource,
} from "../../shared/audit.js";
import { computeTotals } from "../../shared/merge.js";
import { omitUndefined } from "../../shared/omit-undefined.js";
import type { ImpactReason, Sweep } from "../../shared/plan.js";
import { redactSecrets, redactSecretValues } from "../../shared/redact.js";
import type { Shard } from "../../shared/shard.js";

export interface AuditTrailOptions {
  runId: string;
  startedAt: Date;
  base: string;
  head: string;
  model: string;
  shard?: Shard | undefined;
  /** The project's style instructions every first message carried (by path and hash). */
  instructions?: InstructionsSource[];
  /** The plan's sweeps, their articles limited to this run's (shared/plan.ts SweepSchema). */
  sweeps?: Sweep[];
  /** Environment whose secret values are redacted from everything the audit holds. */
  env: Record<string, string | undefined>;
  /** The separate docs repository whose `name:PATH` articles the audit holds. */
  docsRepository?: { name: string; head?: string | undefined } | undefined;
}

export function emptyUsage(): ArticleUsage {
  return {
    turns: 0,
    llmCalls: 0,
    promptTokens: 0,
    completionTokens: 0,
    toolCalls: {},
    toolErrors: 0,
    firstTryEdits: 0,
    retries: 0,
  };
}

/**
 * Collects per-article results in plan order and builds the audit JSON
 * (docs/audit-format.md). Every string that goes in (model summaries and reasons included) is passed
 * through redactSecrets, so no key or token reaches the audit, the patch or the report.
 */
export class AuditTrail {
  readonly #options: AuditTrailOptions;
  readonly #order = new Map<string, number>();
  readonly #articles = new Map<string, AuditArticle>();

  constructor(options: AuditTrailOptions) {
    this.#options = options;
  }

  /** Reserves a place for an article so the audit keeps plan order whatever finishes first. */
  plan(path: string): void {
    if (!this.#order.has(path)) this.#order.set(path, this.#order.size);
  }

  record(article: AuditArticle): void {
    this.plan(article.path);
    this.#articles.set(article.path, redactArticle(article, this.#options.env));
  }

  /** Records an article that was not sent to the model (touched, skipped, cancelled). */
  recordWithoutRun(
    path: string,
    status: ArticleStatus,
    impact: ImpactReason[],
    summary: string,
    extra: Partial<AuditArticle> = {},
  ): void {
    this.record({
      path,
      status,
      impact,
      edits: [],
      editReasons: [],
      patch: "",
      hashBefore: null,
      hashAfter: null,
      summary,
      usage: emptyUsage(),
      ...extra,
    });
  }

  has(path: string): boolean {
    return this.#articles.has(path);
  }

  /** The audit as it stands; validated against the schema so a bug cannot write a bad file. */
  build(finishedAt: Date, applied: boolean): Audit {
    const articles = [...this.#articles.values()]
      .sort((a, b) => (this.#order.get(a.path) ?? 0) - (this.#order.get(b.path) ?? 0))
      .map((article) => ({
        ...article,
        edits: article.edits.map((edit, index) => ({ ...edit, id: editId(article.path, index) })),
      }));
    const durationMs = Math.max(0, finishedAt.getTime() - this.#options.startedAt.getTime());
    const audit: Audit = {
      version: 1,
      runId: this.#options.runId,
      startedAt: this.#options.startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      base: this.#options.base,
      head: this.#options.head,
      model: redactSecrets(this.#options.model, this.#options.env),
      applied,
      ...(this.#options.shard ? { shard: { ...this.#options.shard } } : {}),
      articles,
      ...(this.#options.instructions?.length ? { instructions: this.#options.instructions } : {}),
      ...(this.#options.sweeps?.length ? { sweeps: this.#options.sweeps } : {}),
      ...(this.#options.docsRepository
        ? { docsRepository: docsRepositoryRef(this.#options.docsRepository) }
        : {}),
      totals: computeTotals(articles, durationMs),
    };
    return AuditSchema.parse(audit);
  }
}

function docsRepositoryRef({
  name,
  head,
}: {
  name: string;
  head?: string | undefined;
}): Audit["docsRepository"] {
  return omitUndefined({ name, head });
}

/** An article result with every secret taken out, as the audit (and the result cache) keeps it. */
export function redactArticle(article: AuditArticle, env: Record<string, string | undefined>): AuditArticle {
  // The patch is repository text that must apply byte for byte: only the values of our
  // own secrets are taken out of it (shapes would also hit prose like "token auth").
  // The edits as given are replayed to rebuild a patch (impact apply --only): treated as the patch is.
  const redacted = redactDeep(article, env);
  return {
    ...redacted,
    edits: redacted.edits.map((edit, index) => {
      const request = article.edits[index]?.request;
      return request === undefined ? edit : { ...edit, request: redactValuesDeep(request, env) };
    }),
    patch: redactSecretValues(article.patch, env),
  };
}

function redactValuesDeep<T>(value: T, env: Record<string, string | undefined>): T {
  if (typeof value === "string") return redactSecretValues(value, env) as T;
  if (Array.isArray(value)) return value.map((item) => redactValuesDeep(item, env)) as T;
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([key, item]) => [
        key,
        redactValuesDeep(item, env),
      ]),
    ) as T;
  }
  return value;
}

function redactDeep<T>(value: T, env: Record<string, string | undefined>): T {
  if (typeof value === "string") return redactSecrets(value, env) as T;
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, env)) as T;
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([key, item]) => [key, redactDeep(item, env)]),
    ) as T;
  }
  return value;
}
