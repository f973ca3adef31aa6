import { z } from "zod";
import { EditSchema } from "./edit/schema.js";
import { DocsRepositorySchema, ImpactReasonSchema, SweepSchema } from "./plan.js";

/** The audit JSON, version 1. Exported as schema/audit.schema.json. */
const ArticleStatusSchema = z.enum([
  "updated",
  "unchanged",
  "failed",
  "skipped",
  "touched",
  "cancelled",
  /** An edit was refused and the model stopped without a successful one: the article may still be wrong. */
  "gave_up",
]);

const AuditEditSchema = z.object({
  /**
   * Stable within the audit: the article path, `#`, and the edit's 1-based place in the
   * article's edits (editId); `impact apply --only ID…` / `--exclude ID…` name edits by it.
   */
  id: z.string().optional(),
  kind: z.enum(["replace", "section", "checklist", "frontmatter", "create"]),
  reason: z.string(),
  startLine: z.number().int(),
  endLine: z.number().int(),
  evidence: z.array(z.string()).default([]),
  /** Which model call and tool call produced it. */
  turn: z.number().int().optional(),
  toolCallId: z.string().optional(),
  /**
   * The edit as the model gave it (edit_article's edit object; absent for `create`): replayed
   * on the article's base text when `impact apply` keeps only some of the edits.
   */
  request: EditSchema.optional(),
});

const ArticleUsageSchema = z.object({
  turns: z.number().int(),
  llmCalls: z.number().int(),
  promptTokens: z.number().int(),
  completionTokens: z.number().int(),
  toolCalls: z.record(z.string(), z.number().int()),
  toolErrors: z.number().int(),
  /** edit_article calls that succeeded on the first try, over all edit_article calls. */
  firstTryEdits: z.number().int().optional(),
  retries: z.number().int().optional(),
  /** Prompt tokens the provider served from its prompt cache (part of promptTokens, billed lower). */
  cachedPromptTokens: z.number().int().optional(),
  /** What these tokens cost in US dollars; absent when the model's price is unknown. */
  costUsd: z.number().nonnegative().optional(),
});

export const AuditArticleSchema = z.object({
  path: z.string(),
  status: ArticleStatusSchema,
  impact: z.array(ImpactReasonSchema),
  /** The plan's combined score of the article's reasons, when the plan scored it. */
  score: z.number().min(0).max(1).optional(),
  edits: z.array(AuditEditSchema),
  editReasons: z.array(z.string()),
  patch: z.string(),
  hashBefore: z.string().nullable(),
  hashAfter: z.string().nullable(),
  /** True when the article did not exist before (create_article). */
  created: z.boolean().optional(),
  summary: z.string(),
  usage: ArticleUsageSchema,
  durationMs: z.number().int().optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  /**
   * True when the result was reused from the result cache: `usage` is this run's (no model
   * call), `originalUsage` what the run that produced the result spent.
   */
  cached: z.boolean().optional(),
  originalUsage: ArticleUsageSchema.optional(),
  /**
   * Why a `skipped` article was not run (or not finished): `budget` when its next model call
   * could cross `--max-cost`, `setup` when an earlier call found the model setup wrong.
   */
  skipReason: z.enum(["budget", "setup"]).optional(),
});

/** One file of the project's style instructions sent to the model (config `instructions`). */
const InstructionsSourceSchema = z.object({
  path: z.string(),
  /** contentHash of the text sent (after the section was picked and the cap applied). */
  hash: z.string(),
  chars: z.number().int(),
  /** True when the text was cut at the size cap. */
  truncated: z.boolean(),
});

export const AuditTotalsSchema = z.object({
  articles: z.number().int(),
  updated: z.number().int(),
  unchanged: z.number().int(),
  failed: z.number().int(),
  skipped: z.number().int(),
  touched: z.number().int(),
  cancelled: z.number().int(),
  /** Articles whose model stopped after a refused edit (status `gave_up`); absent in older audits. */
  gave_up: z.number().int().default(0),
  promptTokens: z.number().int(),
  completionTokens: z.number().int(),
  durationMs: z.number().int(),
  /** Prompt tokens served from the provider's prompt cache, over all articles. */
  cachedPromptTokens: z.number().int().optional(),
  /** The run's cost in US dollars; absent when no article's price was known. */
  costUsd: z.number().nonnegative().optional(),
  /** Articles whose result came from the result cache. */
  cached: z.number().int().optional(),
});

export const AuditSchema = z.object({
  version: z.literal(1),
  runId: z.string(),
  startedAt: z.string(),
  finishedAt: z.string(),
  base: z.string(),
  head: z.string(),
  model: z.string(),
  applied: z.boolean(),
  /** Set by `--shard I/N`; absent for a whole run or a merged audit. */
  shard: z.object({ index: z.number().int(), count: z.number().int() }).optional(),
  articles: z.array(AuditArticleSchema),
  /** The project's style instructions every article's first message carried, by path and hash. */
  instructions: z.array(InstructionsSourceSchema).optional(),
  /** The plan's sweeps (one change that made many names false), with the articles of this audit under each. */
  sweeps: z.array(SweepSchema).optional(),
  /**
   * The separate docs repository of the run (`--docs-repo`): articles written `name:PATH` are
   * in it, and their patches name PATH, so they apply there (`git apply`, `impact apply
   * --docs-repo DIR`). Absent: every article is in the code repository.
   */
  docsRepository: DocsRepositorySchema.optional(),
  totals: AuditTotalsSchema,
});

export type ArticleStatus = z.infer<typeof ArticleStatusSchema>;
export type AuditEdit = z.infer<typeof AuditEditSchema>;
export type ArticleUsage = z.infer<typeof ArticleUsageSchema>;
export type AuditArticle = z.infer<typeof AuditArticleSchema>;
export type AuditTotals = z.infer<typeof AuditTotalsSchema>;
export type InstructionsSource = z.infer<typeof InstructionsSourceSchema>;
export type Audit = z.infer<typeof AuditSchema>;

/** The stable id of an article's edit: its path and the edit's 1-based place among the article's edits. */
export function editId(path: string, index: number): string {
  return `${path}#${index + 1}`;
}
