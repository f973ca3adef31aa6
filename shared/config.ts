import { z } from "zod";

/** `impact.config.json` (optional, at the repository root). Unknown keys are errors. */
export const DEFAULT_DOCS_GLOBS = ["docs/**/*.{md,mdx}", "*.md"];
export const DEFAULT_DENY_GLOBS = [".env*", "*.pem", "*.key", "id_*", ".npmrc", ".netrc", "*.p12", "*.pfx"];

/** The most articles worked on at once, and model calls per article, that a run may ask for. */
export const CONCURRENCY_LIMIT = 64;
export const MAX_TURNS_LIMIT = 100;

export const MappingSchema = z.strictObject({
  code: z.string().min(1),
  docs: z.string().min(1),
});

export const ConfigSchema = z.strictObject({
  docs: z.array(z.string().min(1)).default(DEFAULT_DOCS_GLOBS),
  ignore: z.array(z.string().min(1)).default([]),
  mappings: z.array(MappingSchema).default([]),
  /** Extra deny patterns for the sandbox, added to the defaults. */
  deny: z.array(z.string().min(1)).default([]),
  /** Symbols never used as reference evidence. */
  ignoreSymbols: z.array(z.string()).default([]),
  model: z.string().optional(),
  concurrency: z.number().int().positive().max(CONCURRENCY_LIMIT).optional(),
  maxTurns: z.number().int().positive().max(MAX_TURNS_LIMIT).optional(),
  limits: z
    .strictObject({
      toolResultBytes: z.number().int().positive().optional(),
      searchMatches: z.number().int().positive().optional(),
      listFiles: z.number().int().positive().optional(),
      toolCallsPerTurn: z.number().int().positive().optional(),
      /** Lines per read_file page when the model gives no limit. */
      readPageLines: z.number().int().positive().optional(),
      /** Time budget of one regex search_repo call, in milliseconds. */
      regexTimeoutMs: z.number().int().positive().optional(),
      tokensPerArticle: z.number().int().positive().optional(),
      tokensPerRun: z.number().int().positive().optional(),
    })
    .default({}),
});

export type ImpactConfig = z.infer<typeof ConfigSchema>;
export type Mapping = z.infer<typeof MappingSchema>;
