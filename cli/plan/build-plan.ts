import { readFile } from "node:fs/promises";
import type { ChangeSet } from "../../shared/changeset.js";
import { DEFAULT_DOCS_GLOBS, type ImpactConfig } from "../../shared/config.js";
import { UsageError } from "../../shared/errors.js";
import type { ImpactPlan } from "../../shared/plan.js";
import { loadConfig } from "../config.js";
import { gitAt, repositoryRoot, resolveCommit } from "../git.js";
import { listArticles, readArticles } from "./articles.js";
import { detectImpact, type Explanation, explainImpact } from "./detector.js";
import { genericNames } from "./generic-names.js";
import { loadChangeSet } from "./read-change-set.js";
import { type SymbolExtractor, startSymbolExtractor } from "./symbols/extractor.js";

export interface BuildPlanOptions {
  repo: string;
  base?: string;
  head?: string;
  /** A unified diff file to read instead of asking git, or "-" for standard input. */
  diff?: string;
  /** A config file path (default: impact.config.json at the repository root, optional). */
  config?: string;
  readStdin: () => Promise<string>;
  /** Where symbols are extracted; the caller closes it (default: a worker started and closed here). */
  extractor?: SymbolExtractor;
  /** Overrides the config's `minScore`. */
  minScore?: number;
  /** An article to explain: every signal considered for it (`impact plan --explain`). */
  explain?: string;
}

export interface BuiltPlan {
  plan: ImpactPlan;
  changeSet: ChangeSet;
  config: ImpactConfig;
  repoRoot: string;
  /** Where the article text came from: the working tree, or the head commit's blobs. */
  articleSource: { kind: "worktree" } | { kind: "revision"; revision: string };
  /** With `explain`: every signal considered for that article. */
  explanation?: Explanation;
}

/**
 * diff → ChangeSet → ImpactPlan, shared by `impact plan` and `impact run`.
 * Articles are read from the working tree when the head is the checked-out commit (the
 * default), and from the head commit's blobs when `--head` names another commit, so the
 * plan describes the docs as they are at that head.
 */
export async function buildPlan(options: BuildPlanOptions): Promise<BuiltPlan> {
  // First, so the worker compiles TypeScript while this thread talks to git.
  const extractor = options.extractor ?? startSymbolExtractor();
  try {
    const repoRoot = await repositoryRoot(options.repo);
    const config = await loadConfig(repoRoot, options.config);
    const diffText = options.diff === undefined ? undefined : await readDiff(options.diff, options.readStdin);
    // git computes the diff while the articles are listed and read.
    const changeSetPromise = loadChangeSet({
      repo: repoRoot,
      base: options.base,
      head: options.head,
      diffText,
      extractor,
    });
    changeSetPromise.catch(() => {});
    const articleSource = await articleSourceFor(repoRoot, options.head);
    const revision = articleSource.kind === "revision" ? articleSource.revision : undefined;
    const unmatchedDocsGlobs: string[] = [];
    const paths = await listArticles(repoRoot, config, { revision, unmatchedDocsGlobs });
    const articles = await readArticles(repoRoot, paths, { revision });
    const generic = await genericNames(repoRoot, revision ?? "HEAD");
    const changeSet = await changeSetPromise;
    const input = { changeSet, articles, config, genericNames: generic, minScore: options.minScore };
    const { plan, explanation } =
      options.explain === undefined
        ? { plan: detectImpact(input), explanation: undefined }
        : explainImpact(input, options.explain);
    plan.warnings.unshift(...docsGlobWarnings(config, unmatchedDocsGlobs));
    return { plan, changeSet, config, repoRoot, articleSource, ...(explanation ? { explanation } : {}) };
  } finally {
    if (options.extractor === undefined) extractor.close();
  }
}

/**
 * A `docs` glob that matches no file is most likely a typo (`doc/**` for `docs/`); said
 * once per glob. The defaults are exempt: a repository without a docs/ folder is normal.
 */
function docsGlobWarnings(config: ImpactConfig, unmatched: string[]): string[] {
  if (config.docs.join("\0") === DEFAULT_DOCS_GLOBS.join("\0")) return [];
  return unmatched.map(
    (glob) =>
      `config docs glob "${glob}" matches no file; check its spelling (globs are relative to the repository root)`,
  );
}

async function readDiff(source: string, readStdin: () => Promise<string>): Promise<string> {
  if (source === "-") return readStdin();
  try {
    return await readFile(source, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    throw new UsageError(`--diff ${source}: cannot read the diff file (${code}); check the path`, {
      code: "input",
      cause: error,
    });
  }
}

async function articleSourceFor(
  repoRoot: string,
  head: string | undefined,
): Promise<BuiltPlan["articleSource"]> {
  if (head === undefined) return { kind: "worktree" };
  const git = gitAt(repoRoot);
  const [wanted, current] = await Promise.all([resolveCommit(git, head), resolveCommit(git, "HEAD")]);
  if (wanted === undefined || wanted === current) return { kind: "worktree" };
  return { kind: "revision", revision: wanted };
}
