import picomatch from "picomatch";
import { z } from "zod";
import { DOCS_REPOSITORY_NAME } from "./docs-repository.js";
import { CONCURRENCY_LIMIT, DEFAULT_MIN_SCORE, JUDGE_MAX_ARTICLES_LIMIT, MAX_TURNS_LIMIT } from "./limits.js";
import { ModelPriceSchema } from "./model/prices.js";

/** `impact.config.json` (optional, at the repository root). Unknown keys are errors. */
export const DEFAULT_DOCS_GLOBS = ["docs/**/*.{md,mdx,rst,adoc}", "*.{md,rst,adoc}"];
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
  // Tokens of registries, container hosts and tools kept in dotfiles, and password stores.
  ".docker",
  ".dockercfg",
  ".pypirc",
  ".gem",
  ".vault-token",
  ".terraformrc",
  "terraform.rc",
  ".s3cfg",
  ".boto",
  ".htpasswd",
  "*.kdbx",
  "*.p8",
];

/**
 * Files the docs globs match that are not articles by default: records of the past
 * (changelogs, release notes, history files, changesets, migration guides) are not fixed
 * forward. Matched case-insensitively.
 */
export const DEFAULT_IGNORE_GLOBS = [
  "**/*{changelog,release-notes,release_notes,releasenotes}*",
  "**/{changes,history,news,releases,migrating,migration,upgrading}{,.*}",
  "**/{changelog,changelogs,changes,history,releases,release-notes,migrations,migration,migrating,upgrading}/**",
  "**/*{migration-guide,migration_guide,upgrade-guide,upgrade_guide,upgrading-to,migrating-to,migrate-to}*",
  // Folders of them (`docs/migration-guide/v3.md`, `upgrade-guides/2.0.md`): every page in one is a record.
  "**/*{migration-guide,migration_guide,upgrade-guide,upgrade_guide}*/**",
  ".changeset/**",
];

/**
 * Changed files that are never evidence: lockfiles of every ecosystem, tests, fixtures,
 * snapshots and CI config. What they change is not what the docs describe.
 */
const DEFAULT_EVIDENCE_IGNORE_GLOBS = [
  "**/*.lock",
  "**/{package-lock.json,npm-shrinkwrap.json,pnpm-lock.yaml,bun.lockb,go.sum,gradle.lockfile,packages.lock.json}",
  "**/{test,tests,__tests__,__mocks__,testdata,test-data,e2e,spec,specs}/**",
  "**/*{.test,.spec,_test,_spec,-test,-spec}.*",
  "**/{test_*.py,conftest.py}",
  "**/{fixtures,fixture,__fixtures__}/**",
  "**/{__snapshots__,snapshots}/**",
  "**/*.snap",
  "{.github,.circleci,.buildkite,.gitlab}/**",
  "{.gitlab-ci.yml,.travis.yml,appveyor.yml,azure-pipelines.yml,.cirrus.yml}",
];

const MappingSchema = z.strictObject({
  code: z.string().min(1),
  docs: z.string().min(1),
});

/** A docs template: what every article under `docs` must keep through an edit. */
const TemplateSchema = z.strictObject({
  docs: z.string().min(1),
  requiredSections: z.array(z.string().min(1)).default([]),
  requiredFrontmatter: z.array(z.string().min(1)).default([]),
});

/** A rejection remembered (`impact dismiss`): changes to `for` do not affect `article`. */
const DismissalSchema = z.strictObject({
  article: z.string().min(1),
  /** The changed files (a glob) the rejection covers; absent: any change. */
  for: z.string().min(1).optional(),
  reason: z.string().min(1),
});

export const ConfigSchema = z.strictObject({
  /** The JSON Schema the file follows (schema/config.schema.json); editors read it, Impact does not. */
  $schema: z.string().optional(),
  docs: z.array(z.string().min(1)).default(DEFAULT_DOCS_GLOBS),
  ignore: z.array(z.string().min(1)).default(DEFAULT_IGNORE_GLOBS),
  mappings: z.array(MappingSchema).default([]),
  /** Docs templates: sections and frontmatter keys an edit may not remove. */
  templates: z.array(TemplateSchema).default([]),
  /**
   * Files (repository-relative) whose text goes into every article's first message as the
   * project's style guidance. Absent: the first of `.impact/instructions.md`, the
   * documentation section of `AGENTS.md` and the style section of `docs/CONTRIBUTING.md`
   * that exists; `[]`: none.
   */
  instructions: z.array(z.string().min(1)).optional(),
  /**
   * A versioned docs layout (`docs/v3/` beside `docs/v2/`, or Docusaurus `docs/` with
   * `versioned_docs/version-N/`): `current` is the folder the code describes (detected when
   * absent); articles of older versions are `related`, never flagged, unless `editOlder`.
   */
  versions: z
    .strictObject({
      current: z.string().min(1).optional(),
      editOlder: z.boolean().default(false),
    })
    .optional(),
  /**
   * The docs repository, when the articles live apart from the code: a path relative to this
   * repository (`../website`), or a git URL that the GitHub Action and the bot clone. The
   * change is read here; `docs`, `ignore`, the docs side of `mappings`, `templates` and
   * `versions` are paths of the docs repository, and edits go there.
   */
  docsRepo: z.string().min(1).optional(),
  /** The prefix that names the docs repository's paths (`website:content/x.md`); default: its folder's name. */
  docsRepoName: z.string().regex(DOCS_REPOSITORY_NAME).optional(),
  /** Extra deny patterns for the sandbox, added to the defaults. */
  deny: z.array(z.string().min(1)).default([]),
  /** Git-ignored files the tools may list, search and read (globs); by default none. */
  readIgnored: z.array(z.string().min(1)).default([]),
  /** Symbols never used as reference evidence. */
  ignoreSymbols: z.array(z.string()).default([]),
  /** Which changed files count as evidence. */
  evidence: z
    .strictObject({
      /** Changed files that are never evidence (globs). */
      ignore: z.array(z.string().min(1)).default(DEFAULT_EVIDENCE_IGNORE_GLOBS),
    })
    .prefault({}),
  /** Impacted articles scoring below this (0–1) are left out of the plan. */
  minScore: z.number().min(0).max(1).default(DEFAULT_MIN_SCORE),
  /** More tiers for `plan` to list and `run` to send to the model: `related` (default: stale and new only). */
  include: z.array(z.enum(["related"])).default([]),
  /** A pull request label that acknowledges a change: `plan --check` passes with it, saying so. */
  checkAcknowledgeLabel: z.string().min(1).optional(),
  /** Let `impact run` create the new articles the change calls for, as `--allow-create` does. */
  allowCreate: z.boolean().default(false),
  /** Articles a person said some changes do not affect (`impact dismiss`): plan and run leave them out. */
  dismissed: z.array(DismissalSchema).default([]),
  model: z.string().optional(),
  /**
   * `plan --judge` / `run --judge` by default: one model call per related article, which
   * promotes it to stale on a quoted false line. `true`, or the model (default: the run's) and
   * how many related articles at most (default 20).
   */
  judge: z
    .union([
      z.boolean(),
      z.strictObject({
        model: z.string().min(1).optional(),
        maxArticles: z.number().int().positive().max(JUDGE_MAX_ARTICLES_LIMIT).optional(),
      }),
    ])
    .optional(),
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
      /** Bytes of files the read tools of all articles hold at once. */
      readBytesInFlight: z.number().int().positive().optional(),
      tokensPerArticle: z.number().int().positive().optional(),
      tokensPerRun: z.number().int().positive().optional(),
    })
    .default({}),
});

export type ImpactConfig = z.infer<typeof ConfigSchema>;
export type Mapping = z.infer<typeof MappingSchema>;
export type Template = z.infer<typeof TemplateSchema>;
export type Dismissal = z.infer<typeof DismissalSchema>;

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

/** Which git-ignored files the tools may see (config `readIgnored`), or undefined for none. */
export function readIgnoredMatcher(
  config: Pick<ImpactConfig, "readIgnored">,
): ((path: string) => boolean) | undefined {
  if (config.readIgnored.length === 0) return undefined;
  const isMatch = picomatch(config.readIgnored, { dot: true });
  return (path) => isMatch(path);
}
