import { spawn } from "node:child_process";
import { type SimpleGit, simpleGit } from "simple-git";
import { GitError } from "../shared/errors.js";

/** The tree of an empty commit: the base of a repository's first commit. */
export const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/** simple-git for one repository, with settings that keep output stable whatever the user's config. */
export function gitAt(dir: string): SimpleGit {
  return simpleGit({
    baseDir: dir,
    maxConcurrentProcesses: 4,
    config: ["core.quotePath=true", "diff.noprefix=false", "color.ui=false"],
  });
}

/** The repository root containing `dir`, or a GitError saying what to do. */
export async function repositoryRoot(dir: string): Promise<string> {
  try {
    return (await gitAt(dir).revparse(["--show-toplevel"])).trim();
  } catch (error) {
    throw new GitError(
      `not a git repository: ${dir} (run impact inside a git checkout, or pass --repo DIR)`,
      {
        cause: error,
      },
    );
  }
}

/** The full sha of a commit, or undefined when the revision does not resolve. */
export async function resolveCommit(git: SimpleGit, revision: string): Promise<string | undefined> {
  try {
    return (await git.raw(["rev-parse", "--verify", "--quiet", `${revision}^{commit}`])).trim() || undefined;
  } catch {
    return undefined;
  }
}

export async function isShallow(git: SimpleGit): Promise<boolean> {
  try {
    return (await git.raw(["rev-parse", "--is-shallow-repository"])).trim() === "true";
  } catch {
    return false;
  }
}

/**
 * Reads many blobs (`rev:path`) through one `git cat-file --batch` process. A spec that
 * does not exist maps to undefined; binary content is returned as latin1-free UTF-8 text.
 */
export function readBlobs(repoRoot: string, specs: string[]): Promise<Map<string, string | undefined>> {
  const result = new Map<string, string | undefined>();
  if (specs.length === 0) return Promise.resolve(result);
  return new Promise((resolve, reject) => {
    const child = spawn("git", ["cat-file", "--batch"], { cwd: repoRoot, stdio: ["pipe", "pipe", "pipe"] });
    let parts: Buffer[] = [];
    let partsLength = 0;
    /** Bytes needed before the next answer can be read (avoids re-joining a large blob per chunk). */
    let needed = 1;
    let index = 0;
    let stderr = "";
    const consume = (pending: Buffer): Buffer => {
      // Each answer is "<sha> <type> <size>\n<bytes>\n" or "<spec> missing\n".
      for (;;) {
        const newline = pending.indexOf(10);
        const spec = specs[index];
        if (newline < 0 || spec === undefined) {
          needed = pending.length + 1;
          return pending;
        }
        const header = pending.subarray(0, newline).toString("utf8");
        if (/ (missing|ambiguous)$/.test(header)) {
          result.set(spec, undefined);
          pending = pending.subarray(newline + 1);
          index += 1;
          continue;
        }
        const [, type, sizeText] = header.split(" ");
        const end = newline + 1 + Number(sizeText) + 1;
        if (pending.length < end) {
          needed = end;
          return pending;
        }
        result.set(spec, type === "blob" ? pending.toString("utf8", newline + 1, end - 1) : undefined);
        pending = pending.subarray(end);
        index += 1;
      }
    };
    child.stdout.on("data", (chunk: Buffer) => {
      parts.push(chunk);
      partsLength += chunk.length;
      if (partsLength < needed) return;
      const rest = consume(parts.length === 1 ? parts[0]! : Buffer.concat(parts, partsLength));
      parts = rest.length > 0 ? [rest] : [];
      partsLength = rest.length;
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.on("error", (error) =>
      reject(new GitError(`git cat-file failed: ${error.message}`, { cause: error })),
    );
    child.on("close", (code) => {
      if (code !== 0 || index < specs.length) {
        reject(new GitError(`git cat-file failed (exit ${code}): ${stderr.split("\n")[0] ?? ""}`));
        return;
      }
      resolve(result);
    });
    child.stdin.on("error", () => {});
    child.stdin.end(`${specs.join("\n")}\n`);
  });
}
