import { statSync } from "node:fs";
import { resolve } from "node:path";
import type { ImpactConfig } from "../../shared/config.js";
import { docsRepositoryName, isGitUrl } from "../../shared/docs-repository.js";
import { GitError, UsageError } from "../../shared/errors.js";
import { gitAt, repositoryRoot, resolveCommit } from "./repository.js";

/** The checkout of a separate docs repository: where its articles are, and the prefix of its paths. */
export interface DocsRepository {
  /** The docs repository's root (a git work tree apart from the code repository's). */
  root: string;
  /** The prefix of its paths in the plan, the audit and the tools (`website:content/x.md`). */
  name: string;
  /** Its checked-out commit, when it has one: what the articles were read at. */
  head?: string | undefined;
}

/**
 * The docs repository of a command: `--docs-repo DIR` (relative to the working directory),
 * else config `docsRepo` (relative to the code repository), else none. A config URL names a
 * repository that the Action or the bot clones: a local run needs the checkout's folder as
 * `--docs-repo`. Every problem is a UsageError saying what to do, before anything is written.
 */
export async function openDocsRepository(input: {
  /** The flag as given, relative to `cwd`. */
  flag: string | undefined;
  cwd: string;
  codeRoot: string;
  config: Pick<ImpactConfig, "docsRepo" | "docsRepoName">;
}): Promise<DocsRepository | undefined> {
  const fromFlag = input.flag !== undefined && input.flag.trim() !== "";
  const location = fromFlag ? input.flag! : input.config.docsRepo;
  if (location === undefined) return undefined;
  const source = fromFlag ? `--docs-repo ${location}` : `config docsRepo "${location}"`;
  if (isGitUrl(location)) {
    throw new UsageError(
      fromFlag
        ? `${source}: a git URL; clone it first and pass the checkout's folder (--docs-repo DIR)`
        : `${source} is a git URL, which only the GitHub Action and the bot clone; clone it and pass the checkout's folder with --docs-repo DIR`,
      { code: "input" },
    );
  }
  const dir = resolve(fromFlag ? input.cwd : input.codeRoot, location);
  let isDirectory = false;
  try {
    isDirectory = statSync(dir).isDirectory();
  } catch {}
  if (!isDirectory)
    throw new UsageError(
      `${source}: no such directory (${dir}); clone the docs repository there, or fix the path`,
      {
        code: "input",
      },
    );
  let root: string;
  try {
    root = await repositoryRoot(dir);
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    throw new UsageError(`${source}: not a git repository (${dir}); pass the docs repository's checkout`, {
      code: "input",
      cause: error,
    });
  }
  if (root === input.codeRoot)
    throw new UsageError(
      `${source} is the code repository itself; leave it out when the docs live beside the code`,
      { code: "input" },
    );
  const head = await resolveCommit(gitAt(root), "HEAD");
  return {
    root,
    name: input.config.docsRepoName ?? docsRepositoryName(root),
    head,
  };
}
