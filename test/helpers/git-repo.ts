import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { onTestFinished } from "vitest";

/** Files to write: a string or bytes writes the file, null deletes it. */
export type FileTree = Record<string, string | Uint8Array | null>;

export interface TestRepo {
  dir: string;
  /** Runs git in the repository and returns its trimmed stdout. */
  git: (...args: string[]) => string;
  /** Writes (or deletes) files, commits them all, and returns the new commit sha. */
  commit: (files: FileTree, message?: string) => string;
  /** Writes (or deletes) files without committing. */
  write: (files: FileTree) => void;
  cleanup: () => void;
}

const GIT_ENV = {
  GIT_AUTHOR_NAME: "Impact Test",
  GIT_AUTHOR_EMAIL: "test@example.invalid",
  GIT_COMMITTER_NAME: "Impact Test",
  GIT_COMMITTER_EMAIL: "test@example.invalid",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
};

/** The config of every test repository: core.autocrlf=false, no background maintenance. */
const CONFIG = readFileSync(
  fileURLToPath(new URL("../fixtures/git-template/config", import.meta.url)),
  "utf8",
);

/**
 * What `git init -b main` makes, written directly: one git process fewer per repository
 * (a process costs the test run about 20 ms of CPU, and the suite makes hundreds of these).
 */
function initRepository(dir: string): void {
  const dotGit = join(dir, ".git");
  if (existsSync(dotGit)) return;
  for (const folder of ["objects/info", "objects/pack", "refs/heads", "refs/tags"])
    mkdirSync(join(dotGit, folder), { recursive: true });
  writeFileSync(join(dotGit, "HEAD"), "ref: refs/heads/main\n");
  writeFileSync(join(dotGit, "config"), CONFIG);
}

export function makeTempDir(prefix = "impact-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  } catch {
    // Outside a test (beforeAll, benches) the caller cleans up.
  }
  return dir;
}

/**
 * A real git repository in a temp dir, with `files` as its first commit (when given).
 * Removed when the current test finishes; call `cleanup` yourself outside a test.
 */
export function gitRepo(files?: FileTree, options: { dir?: string } = {}): TestRepo {
  const dir = options.dir ?? makeTempDir("impact-repo-");
  const git = (...args: string[]) =>
    execFileSync("git", args, {
      cwd: dir,
      env: { ...process.env, ...GIT_ENV },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      maxBuffer: 256 * 1024 * 1024,
    }).trimEnd();
  const write = (tree: FileTree) => {
    for (const [path, content] of Object.entries(tree)) {
      const full = join(dir, path);
      if (content === null) {
        unlinkSync(full);
        continue;
      }
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, content);
    }
  };
  initRepository(dir);
  // The commit just made, read from .git rather than by one more git process per commit.
  const head = () => {
    try {
      const ref = readFileSync(join(dir, ".git", "HEAD"), "utf8").trim();
      const sha = ref.startsWith("ref: ")
        ? readFileSync(join(dir, ".git", ref.slice(5)), "utf8").trim()
        : ref;
      if (/^[0-9a-f]{40,64}$/.test(sha)) return sha;
    } catch {
      // A packed ref or a .git file: git itself knows.
    }
    return git("rev-parse", "HEAD");
  };
  const repo: TestRepo = {
    dir,
    git,
    write,
    commit(tree, message = "change") {
      write(tree);
      git("add", "-A");
      git("commit", "-q", "--allow-empty", "-m", message);
      return head();
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
  if (files) repo.commit(files, "initial");
  return repo;
}
