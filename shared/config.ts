import picomatch from "picomatch";
import { z } from "zod";
import { ModelPriceSchema } from "./model/prices.js";

/** `impact.config.json` (optional, at the repository root). Unknown keys are errors. */
export const DEFAULT_DOCS_GLOBS = ["docs/**/*.{md,mdx}", "*.md"];
export const DEFAULT_DENY_GLOBS = [
  ".env*",
  "*.pem",
  "*.key",
  "id_*",
  ".npmrc",
  ".netrc",
  "*.p12",
  "*.pfx",
  // Credential stores of git, Kubernetes, the clouds, Terraform and Java/PuTTY keystores.
  ".git-credentials",
  "*kubeconfig*",
  ".kube",
  ".aws",
  ".azure",
  "application_default_credentials.json",
  "service-account*.json",
  "*.tfvars",
  "*.tfstate",
  "*.tfstate.*",
  "*.jks",
  "*.keystore",
  "*.ppk",
  ".pgpass",
];

/** The most articles worked on at once, and model calls per article, that a run may ask for. */
export const CONCURRENCY_LIMIT = 64;
export const MAX_TURNS_LIMIT = 100;

export const MappingSchema = z.strictObject({
  code: z.string().min(1),
  docs: z.string().min(1),
});

/** A docs template: what every article under `docs` must keep through an edit. */
export const TemplateSchema = z.strictObject({
  docs: z.string().min(1),
  requiredSections: z.array(z.string().min(1)).default([]),
  requiredFrontmatter: z.array(z.string().min(1)).default([]),
});

export const ConfigSchema = z.strictObject({
  docs: z.array(z.string().min(1)).default(DEFAULT_DOCS_GLOBS),
  ignore: z.array(z.string().min(1)).default([]),
  mappings: z.array(MappingSchema).default([]),
  /** Docs templates: sections and frontmatter keys an edit may not remove. */
  templates: z.array(TemplateSchema).default([]),
  /** Extra deny patterns for the sandbox, added to the defaults. */
  deny: z.array(z.string().min(1)).default([]),
  /** Symbols never used as reference evidence. */
  ignoreSymbols: z.array(z.string()).default([]),
  model: z.string().optional(),
  concurrency: z.number().int().positive().max(CONCURRENCY_LIMIT).optional(),
  maxTurns: z.number().int().positive().max(MAX_TURNS_LIMIT).optional(),
  /** Prices per model name (US dollars per million tokens), over the built-in table. */
  prices: z.record(z.string().min(1), ModelPriceSchema).default({}),
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
      /** Bytes of diff read; changed files past it are skipped. */
      diffBytes: z.number().int().positive().optional(),
      /** Bytes of one file's diff; a larger file is skipped. */
      fileDiffBytes: z.number().int().positive().optional(),
      /** Longest article (characters) an edit batch may leave. */
      articleChars: z.number().int().positive().optional(),
      /** Most characters one edit batch may add to an article. */
      editGrowthChars: z.number().int().positive().optional(),
      tokensPerArticle: z.number().int().positive().optional(),
      tokensPerRun: z.number().int().positive().optional(),
    })
    .default({}),
});

export type ImpactConfig = z.infer<typeof ConfigSchema>;
export type Mapping = z.infer<typeof MappingSchema>;
export type Template = z.infer<typeof TemplateSchema>;

/** What the templates whose `docs` glob matches an article require of it, merged. */
export function templateFor(
  templates: readonly Template[],
  articlePath: string,
): { requiredSections: string[]; requiredFrontmatter: string[] } {
  const matching = templates.filter((template) => picomatch(template.docs, { dot: true })(articlePath));
  return {
    requiredSections: [...new Set(matching.flatMap((template) => template.requiredSections))],
    requiredFrontmatter: [...new Set(matching.flatMap((template) => template.requiredFrontmatter))],
  };
}
