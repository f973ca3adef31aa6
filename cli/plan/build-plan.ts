import { readFile, stat } from "node:fs/promises";
import type { ChangeSet } from "../../shared/changeset.js";
import { DEFAULT_DOCS_GLOBS, type ImpactConfig } from "../../shared/config.js";
import { docsRepositoryPath, pathInDocsRepository } from "../../shared/docs-repository.js";
import { UsageError } from "../../shared/errors.js";
import { DEFAULT_DIFF_LIMITS, resolveLimits } from "../../shared/limits.js";
import { omitUndefined } from "../../shared/omit-undefined.js";
import type { ImpactPlan } from "../../shared/plan.js";
import { loadConfig } from "../config.js";
import { type DocsRepository, openDocsRepository } from "../git/docs-repository.js";
import {
  EMPTY_TREE,
  gitAt,
  type ListedFile,
  listWorktree,
  repositoryRoot,
  resolveCommit,
  resolveCommits,
} from "../git/repository.js";
import { Workdir } from "../workdir/workdir.js";
import {
  ARTICLE_INDEX_CACHE,
  type IndexedArticles,
  indexArticles,
  mustRead,
  termKeys,
} from "./article-index.js";
import { listArticleEntries, readArticles } from "./articles.js";
import { boilerplateNames } from "./boilerplate-names.js";
import type { Dropped } from "./detect/references.js";
import { type ArticleText, detectImpact, type Explanation, explainImpact, textLookups } from "./detector.js";
import { genericNames } from "./generic-names.js";
import { HISTORY_CACHE, type History, mineHistory, shallowHistoryWarning } from "./history.js";
import { loadChangeSet } from "./read-change-set.js";
import { type SymbolExtractor, startSymbolExtractor } from "./symbols/extractor.js";
import { moveOlderVersionsToRelated, versionLayout } from "./versioned-docs.js";

export interface BuildPlanOptions {
  repo: string;
  base?: string | undefined;
  head?: string | undefined;
  /** A unified diff file to read instead of asking git, or "-" for standard input. */
  diff?: string | undefined;
  /** A config file path (default: impact.config.json at the repository root, optional). */
  config?: string | undefined;
  readStdin: () => Promise<string>;
  /** Where symbols are extracted; the caller closes it (default: a worker started and closed here). */
  extractor?: SymbolExtractor;
  /** Overrides the config's `minScore`. */
  minScore?: number | undefined;
  /** An article to explain: every signal considered for it (`impact plan --explain`). */
  explain?: string | undefined;
  /** The environment the state key is read from (default: the process's). */
  env?: Record<string, string | undefined>;
  /**
   * Leaves the cache writes to the caller (`built.workdir.save()`), which has input of its
   * own still to check; by default they are written once the plan was built.
   */
  deferState?: boolean;
  /**
   * `--docs-repo` as given (relative to `cwd`); absent: config `docsRepo`, else the articles
   * are in the code repository.
   */
  docsRepo?: string | undefined;
  /** Where relative flags point from (default: the process's working directory). */
  cwd?: string;
}

export interface BuiltPlan {
  plan: ImpactPlan;
  changeSet: ChangeSet;
  config: ImpactConfig;
  repoRoot: string;
  /** Where the article text came from: the working tree, or the head commit's blobs. */
  articleSource: { kind: "worktree" } | { kind: "revision"; revision: string };
  /** With `explain`: every signal considered for that article. */
  explanation?: Explanation | undefined;
  /** The repository's `.impact/`, whose cache writes wait for `workdir.save()`. */
  workdir: Workdir;
  /** The separate docs repository the articles come from; its paths in the plan are `name:path`. */
  docsRepository?: DocsRepository | undefined;
  /** The working tree's listing (listWorktree) the articles were listed from, when they were. */
  worktree?: Promise<string> | undefined;
  /** The articles as listed (with their blob shas when read from a revision): the judge reads by them. */
  listed: readonly ListedFile[];
  /** Articles of older docs versions (config `versions`), as the plan names them: related, never flagged. */
  olderVersions?: ReadonlySet<string>;
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
    // A separate docs repository: the change is read here, the articles there.
    const docsRepository = await openDocsRepository({
      flag: options.docsRepo,
      cwd: options.cwd ?? process.cwd(),
      codeRoot: repoRoot,
      config,
    });
    const docsRoot = docsRepository?.root ?? repoRoot;
    // Articles from this working tree (no --head): one `git ls-files` lists them and tells
    // which files under .impact/ git tracks, started now for both.
    const worktree = options.head === undefined && !docsRepository ? listWorktree(repoRoot) : undefined;
    worktree?.catch(() => {});
    const workdir = new Workdir(repoRoot, { env: options.env ?? process.env, worktree }).prepare();
    const diffText =
      options.diff === undefined
        ? undefined
        : await readDiff(
            options.diff,
            options.readStdin,
            resolveLimits(DEFAULT_DIFF_LIMITS, config.limits).diffBytes,
          );
    // git computes the diff while the articles are listed and read; the base's history is
    // mined as soon as the base is known, alongside both.
    let historyPromise: Promise<History | undefined> | undefined;
    const changeSetPromise = loadChangeSet({
      repo: repoRoot,
      base: options.base,
      head: options.head,
      diffText,
      extractor,
      limits: config.limits,
      workdir,
      onRange: ({ base }) => {
        // History coupling across two repositories is off: the code's history never names the docs repository's files.
        historyPromise = docsRepository ? Promise.resolve(undefined) : historyAt(repoRoot, base, workdir);
        historyPromise.catch(() => {});
      },
    });
    changeSetPromise.catch(() => {});
    const codeSource = await articleSourceFor(repoRoot, options.head);
    const codeRevision = codeSource.kind === "revision" ? codeSource.revision : undefined;
    // The docs repository's articles are read from its working tree: --head names a code commit.
    const articleSource: BuiltPlan["articleSource"] = docsRepository ? { kind: "worktree" } : codeSource;
    const revision = docsRepository ? undefined : codeRevision;
    const genericPromise = genericNames(repoRoot, codeRevision ?? "HEAD");
    genericPromise.catch(() => {});
    // Which docs globs match nothing is only said for a configured list (see docsGlobWarnings).
    const unmatchedDocsGlobs = usesDefaultDocs(config) ? undefined : [];
    const formatWarnings: string[] = [];
    const listed = await listArticleEntries(docsRoot, config, {
      revision,
      unmatchedDocsGlobs,
      warnings: formatWarnings,
      worktree: revision === undefined ? worktree : undefined,
    });
    // Every article's facts (from the article index, or read now) while git works out the change.
    const indexed = await indexArticles(docsRoot, listed, {
      revision,
      cache: await workdir.cache(ARTICLE_INDEX_CACHE),
    });
    const generic = await genericPromise;
    const changeSet = await changeSetPromise;
    // Names many code files of the base declare (one git grep), while the articles are read.
    const boilerplatePromise = boilerplateNames(repoRoot, changeSet, config);
    const articles = await readNeededArticles({
      repoRoot: docsRoot,
      revision,
      listed,
      indexed,
      changeSet,
      config,
      generic,
    });
    // A --diff input has no resolved range: its history (when its revisions are given) starts here.
    const history = docsRepository
      ? undefined
      : await (historyPromise ?? historyAt(repoRoot, changeSet.base, workdir));
    const input = {
      changeSet,
      articles,
      config,
      genericNames: [...generic, ...(await boilerplatePromise)],
      minScore: options.minScore,
      history: history?.commits,
      articlesElsewhere: docsRepository !== undefined,
    };
    const explain =
      docsRepository && options.explain !== undefined
        ? (pathInDocsRepository(docsRepository.name, options.explain) ?? options.explain)
        : options.explain;
    const { plan, explanation } =
      explain === undefined
        ? { plan: detectImpact(input), explanation: undefined }
        : explainImpact(input, explain);
    // Older versions of versioned docs are context, not edited (config versions.editOlder).
    const olderVersions = new Set<string>();
    if (!config.versions?.editOlder) {
      const layout = versionLayout(
        articles.map((article) => article.path),
        changeSet.files.map((file) => file.path),
        config.versions,
      );
      moveOlderVersionsToRelated(plan, layout);
      for (const path of layout?.older.keys() ?? []) olderVersions.add(path);
      const folder = explanation && layout?.older.get(explanation.path);
      if (explanation && folder && explanation.status === "impacted") {
        explanation.related = `${folder} is an older version than ${layout!.current.join(", ")} (config versions)`;
        explanation.tier = "related";
        explanation.why = `related: ${explanation.related}; listed apart, not flagged (versions.editOlder: true makes it a candidate)`;
      }
    }
    plan.warnings.unshift(
      ...docsGlobWarnings(config, unmatchedDocsGlobs ?? []),
      ...formatWarnings,
      ...(changeSet.warnings ?? []),
    );
    if (listed.length === 0)
      plan.warnings.unshift(
        `no file matches the docs globs (${config.docs.join(", ")}), so there is no article to check; set "docs" in impact.config.json to where the documentation lives`,
      );
    const shallow = history && shallowHistoryWarning(history);
    if (shallow) plan.warnings.push(shallow);
    plan.warnings.push(...workdir.takeWarnings());
    // The input held: what the caches were given may be written now (by the caller when it
    // has input of its own still to check).
    if (!options.deferState) await workdir.save();
    const named = (path: string) => (docsRepository ? docsRepositoryPath(docsRepository.name, path) : path);
    if (docsRepository) {
      nameDocsRepositoryPaths(plan, docsRepository);
      if (explanation) explanation.path = docsRepositoryPath(docsRepository.name, explanation.path);
    }
    return {
      plan,
      changeSet,
      config,
      repoRoot,
      articleSource,
      workdir,
      explanation,
      docsRepository,
      worktree,
      listed,
      olderVersions: new Set([...olderVersions].map(named)),
    };
  } finally {
    if (options.extractor === undefined) extractor.close();
  }
}

/**
 * Writes the plan's article paths in the docs repository's scheme (`website:content/x.md`)
 * and names the repository, once detection (which works on the docs repository's own paths)
 * is done. The change's files stay as they are: they are the code repository's.
 */
function nameDocsRepositoryPaths(plan: ImpactPlan, { name, head }: DocsRepository): void {
  const named = (path: string) => docsRepositoryPath(name, path);
  for (const article of [...plan.articles, ...plan.related]) {
    article.path = named(article.path);
    if (article.models) article.models = article.models.map(named);
  }
  for (const weak of plan.weak ?? []) weak.path = named(weak.path);
  plan.docsRepository = omitUndefined({ name, head });
}

/**
 * The articles as detection reads them: the text of each one that can hold something
 * detection looks for (a term of the change in its fingerprint, an attention list, or any
 * article when a removed message is searched as a substring), and empty content for the
 * rest, which detection would find nothing in. Most of a large docs tree is never opened
 * again after the article index was built.
 */
async function readNeededArticles(input: {
  repoRoot: string;
  revision: string | undefined;
  /** The articles as listed, with their blobs when read from `revision`. */
  listed: readonly ListedFile[];
  indexed: IndexedArticles;
  changeSet: ChangeSet;
  config: ImpactConfig;
  generic: Dropped[];
}): Promise<ArticleText[]> {
  const paths = [...input.indexed.keys()];
  const lookups = textLookups({
    changeSet: input.changeSet,
    config: input.config,
    genericNames: input.generic,
    articlePaths: new Set(paths),
  });
  const keys = termKeys(lookups.terms);
  const needed =
    lookups.substrings.length > 0 ? paths : paths.filter((path) => mustRead(input.indexed.get(path)!, keys));
  const read = new Map(
    (await readArticles(input.repoRoot, needed, { revision: input.revision, listed: input.listed })).map(
      (article) => [article.path, article.content],
    ),
  );
  return paths.map((path) => ({
    path,
    content: read.get(path) ?? EMPTY,
    hashes: input.indexed.get(path)!.hashes,
  }));
}

const EMPTY = new Uint8Array(0);

/**
 * A `docs` glob that matches no file is most likely a typo (`doc/**` for `docs/`); said
 * once per glob. The defaults are exempt: a repository without a docs/ folder is normal.
 */
function docsGlobWarnings(config: ImpactConfig, unmatched: string[]): string[] {
  if (usesDefaultDocs(config)) return [];
  return unmatched.map(
    (glob) =>
      `config docs glob "${glob}" matches no file; check its spelling (globs are relative to the repository root)`,
  );
}

function usesDefaultDocs(config: ImpactConfig): boolean {
  return config.docs.join("\0") === DEFAULT_DOCS_GLOBS.join("\0");
}

async function readDiff(source: string, readStdin: () => Promise<string>, maxBytes: number): Promise<string> {
  const text = await readDiffText(source, readStdin, maxBytes);
  // An empty diff is most often a `git diff` that failed before the pipe: never "nothing impacted".
  if (text.trim() === "")
    throw new UsageError(
      source === "-"
        ? "--diff -: standard input is empty; pipe a unified diff (git diff BASE HEAD | impact plan --diff -), or leave --diff out to ask git"
        : `--diff ${source}: the file is empty; pass a unified diff, or leave --diff out to ask git`,
      { code: "input" },
    );
  return text;
}

async function readDiffText(
  source: string,
  readStdin: () => Promise<string>,
  maxBytes: number,
): Promise<string> {
  if (source === "-") return readStdin();
  try {
    // Refused before it is read: a generated-code diff can be larger than memory.
    if ((await stat(source)).size > maxBytes) {
      throw new UsageError(
        `--diff ${source}: the diff is over limits.diffBytes (${maxBytes} bytes); pass a smaller diff or raise the limit in impact.config.json`,
        { code: "input" },
      );
    }
    return await readFile(source, "utf8");
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    throw new UsageError(`--diff ${source}: cannot read the diff file (${code}); check the path`, {
      code: "input",
      cause: error,
    });
  }
}

/** Where a plan for `head` reads its articles: the working tree when it is the checked-out commit (or not given). */
export async function articleSourceFor(
  repoRoot: string,
  head: string | undefined,
): Promise<BuiltPlan["articleSource"]> {
  if (head === undefined) return { kind: "worktree" };
  const git = gitAt(repoRoot);
  // Through the command's one object reader, which reads the change's blobs too: no process of their own.
  const [wanted, current] = await resolveCommits(git, [head, "HEAD"]);
  if (wanted === undefined || wanted === current) return { kind: "worktree" };
  return { kind: "revision", revision: wanted };
}

/**
 * The base's history for history reasons, or undefined when the base is no commit here (a
 * `--diff` without revisions, the empty tree of a first commit).
 */
async function historyAt(repoRoot: string, base: string, workdir: Workdir): Promise<History | undefined> {
  if (base === EMPTY_TREE || base.startsWith("diff:")) return undefined;
  const sha = /^[0-9a-f]{40}$/.test(base) ? base : await resolveCommit(gitAt(repoRoot), base);
  return sha === undefined
    ? undefined
    : mineHistory(repoRoot, sha, { cache: await workdir.cache(HISTORY_CACHE) });
}
