import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { deflateSync } from "node:zlib";
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
  const runGit = (...args: string[]) =>
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
  const ours = !options.dir;
  const fresh = ours && !existsSync(join(dir, ".git"));
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
    return runGit("rev-parse", "HEAD");
  };
  // `rev-parse HEAD`, the tests' most common question, read from .git like the commit just made.
  const git = (...args: string[]) =>
    args.length === 2 && args[0] === "rev-parse" && args[1] === "HEAD" ? head() : runGit(...args);
  const repo: TestRepo = {
    dir,
    git,
    write,
    commit(tree, message = "change") {
      write(tree);
      // A repository of our own is committed by hand when that is exactly what git would do
      // (see commitByHand); a folder given by the caller always by git itself.
      if (!(ours && commitByHand(dir, message))) gitCommit(dir, message);
      return head();
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
  if (files && fresh && writableByHand(files)) {
    write(files);
    if (!commitByHand(dir, "initial")) gitCommit(dir, "initial");
  } else if (files) repo.commit(files, "initial");
  return repo;
}

/**
 * `git add -A && git commit --allow-empty -m MESSAGE` in `dir`: one process started from the
 * test worker instead of two (a start from a worker holding a few hundred MB costs tens of
 * ms of CPU, its memory map copied and then faulted back; one from the small shell a few).
 */
function gitCommit(dir: string, message: string): void {
  execFileSync("sh", ["-c", 'git add -A && git commit -q --allow-empty -m "$1"', "sh", message], {
    cwd: dir,
    env: { ...process.env, ...GIT_ENV },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/**
 * Whether the first commit's `files` may be written by hand in an empty folder: no
 * deletions, nothing outside the folder, and nothing that changes what `git add` would take
 * (ignore or attribute files) or that git keeps apart (paths into .git).
 */
function writableByHand(files: FileTree): boolean {
  return Object.entries(files).every(
    ([path, content]) =>
      content !== null &&
      !/(^|\/)\.git(ignore|attributes|modules)?($|\/)/.test(path) &&
      !path.startsWith("/") &&
      !path.split("/").some((part) => part === "" || part === "." || part === ".."),
  );
}

/**
 * A message `git commit -m` keeps byte for byte (its default cleanup, `whitespace`, drops
 * trailing whitespace and leading, trailing and repeated empty lines): lines that start and
 * end with a non-space, one empty line at most between two ("subject\n\nDocs-Impact: none").
 */
const KEPT_MESSAGE = /^\S(?:[^\n]*\S)?(?:\n\n?\S(?:[^\n]*\S)?)*$/;

/**
 * A name git reads as its own (a nested repository, an ignore, attribute or submodule file)
 * or refuses (`.GIT`, `.git.`, NTFS's short name `git~1`: core.protectNTFS); any other name,
 * `.github` and `.gitkeep` included, is a file or folder like the rest.
 */
const GIT_OWN_NAME = /^\.git(?:ignore|attributes|modules)?\b|^git~\d/i;

/** What in .git, besides objects, refs and the index, a hand-written commit would not honour. */
const GIT_STATE_BY_GIT_ONLY = [
  "packed-refs",
  "shallow",
  "info",
  "hooks",
  "MERGE_HEAD",
  "CHERRY_PICK_HEAD",
  "REVERT_HEAD",
  "BISECT_LOG",
  "sequencer",
  "rebase-merge",
  "rebase-apply",
];

/** Environment settings that change what a commit writes, or where (GIT_SSL_CAINFO and such do not). */
const GIT_SETTING_OF_A_COMMIT =
  /^GIT_(AUTHOR|COMMITTER|INDEX|DIR|WORK_TREE|COMMON_DIR|OBJECT|ALTERNATE|CONFIG|NAMESPACE|CEILING|REPLACE|GRAFT|.*PATHSPEC)/;

/** Ignore and attribute files git reads from the user's home whatever GIT_CONFIG_GLOBAL says. */
const USER_GIT_FILES = ["ignore", "attributes"].map((name) =>
  join(process.env.XDG_CONFIG_HOME || join(process.env.HOME ?? "/nonexistent", ".config"), "git", name),
);

/**
 * `git add -A && git commit --allow-empty -m message` in `dir`, written as git's own objects,
 * ref and index, when that is certainly what git would write: the repository's config is the
 * one `gitRepo` wrote, HEAD names a branch stored as a loose ref, nothing is in progress (a
 * merge, a rebase), no hooks, no ignore or attribute file anywhere (so `add -A` takes every
 * file), only regular files (no symlinks, no nested repositories), no GIT_* setting of the
 * caller's that bears on a commit, and a message git keeps as it is (see KEPT_MESSAGE). Returns false,
 * having written nothing, otherwise. Two or three processes fewer for each of the suite's
 * several hundred commits (a process started from a test worker costs tens of ms of CPU).
 * Unlike git, it keeps no reflog.
 */
function commitByHand(dir: string, message: string): boolean {
  if (!KEPT_MESSAGE.test(message)) return false;
  if (Object.keys(process.env).some((name) => GIT_SETTING_OF_A_COMMIT.test(name) && !(name in GIT_ENV)))
    return false;
  if (USER_GIT_FILES.some((path) => existsSync(path))) return false;
  const dotGit = join(dir, ".git");
  let branch: string;
  let parent: string | undefined;
  try {
    if (!lstatSync(dotGit).isDirectory() || readFileSync(join(dotGit, "config"), "utf8") !== CONFIG)
      return false;
    const ref = /^ref: (refs\/heads\/[\w./-]+)\n$/.exec(readFileSync(join(dotGit, "HEAD"), "utf8"));
    if (!ref) return false;
    branch = ref[1]!;
    if (existsSync(join(dotGit, branch))) {
      parent = readFileSync(join(dotGit, branch), "utf8").trim();
      if (!/^[0-9a-f]{40}$/.test(parent)) return false;
    }
  } catch {
    return false;
  }
  if (GIT_STATE_BY_GIT_ONLY.some((name) => existsSync(join(dotGit, name)))) return false;
  const files = workingTreeFiles(dir);
  if (!files) return false;
  writeCommit(dir, files, message, branch, parent);
  return true;
}

interface TreeFile {
  path: string;
  /** "100644", or "100755" when its owner may execute it (core.filemode). */
  mode: string;
}

/** Every file `git add -A` would take from `dir`, or undefined when git might take another view. */
function workingTreeFiles(dir: string): TreeFile[] | undefined {
  const files: TreeFile[] = [];
  const walk = (folder: string, prefix: string): boolean => {
    for (const entry of readdirSync(join(dir, folder), { withFileTypes: true })) {
      if (!prefix && entry.name === ".git") continue;
      if (GIT_OWN_NAME.test(entry.name)) return false;
      const path = `${prefix}${entry.name}`;
      if (entry.isDirectory()) {
        if (!walk(path, `${path}/`)) return false;
      } else if (entry.isFile()) {
        const executable = (lstatSync(join(dir, path)).mode & 0o100) !== 0;
        files.push({ path, mode: executable ? "100755" : "100644" });
      } else return false;
    }
    return true;
  };
  return walk("", "") ? files : undefined;
}

/**
 * A commit of `files` (as they are in `dir`) on `branch` after `parent`, written as git's
 * own objects, ref and index, as `git add -A && git commit` leaves them.
 */
function writeCommit(dir: string, files: TreeFile[], message: string, branch: string, parent?: string): void {
  const objects = join(dir, ".git", "objects");
  const store = (type: string, body: Buffer): Buffer => {
    const object = Buffer.concat([Buffer.from(`${type} ${body.length}\0`), body]);
    const sha = createHash("sha1").update(object).digest();
    const hex = sha.toString("hex");
    const path = join(objects, hex.slice(0, 2), hex.slice(2));
    if (!existsSync(path)) {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, deflateSync(object));
    }
    return sha;
  };
  const entries = files
    .map(({ path, mode }) => ({ path, mode, sha: store("blob", readFileSync(join(dir, path))) }))
    .sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));

  // Trees, deepest first: a folder's entry sorts as its name with a "/" after it.
  const tree = (prefix: string): Buffer => {
    const children = new Map<string, { mode: string; sha: Buffer }>();
    for (const entry of entries) {
      if (!entry.path.startsWith(prefix)) continue;
      const rest = entry.path.slice(prefix.length);
      const slash = rest.indexOf("/");
      if (slash === -1) children.set(rest, { mode: entry.mode, sha: entry.sha });
      else {
        const name = rest.slice(0, slash);
        if (!children.has(`${name}/`))
          children.set(`${name}/`, { mode: "40000", sha: tree(`${prefix}${name}/`) });
      }
    }
    const sorted = [...children].sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    const body = Buffer.concat(
      sorted.flatMap(([name, child]) => [
        Buffer.from(`${child.mode} ${name.replace(/\/$/, "")}\0`),
        child.sha,
      ]),
    );
    return store("tree", body);
  };
  const when = `${Math.floor(Date.now() / 1000)} +0000`;
  const author = `${GIT_ENV.GIT_AUTHOR_NAME} <${GIT_ENV.GIT_AUTHOR_EMAIL}> ${when}`;
  const committer = `${GIT_ENV.GIT_COMMITTER_NAME} <${GIT_ENV.GIT_COMMITTER_EMAIL}> ${when}`;
  const commit = store(
    "commit",
    Buffer.from(
      `tree ${tree("").toString("hex")}\n${parent ? `parent ${parent}\n` : ""}author ${author}\ncommitter ${committer}\n\n${message}\n`,
    ),
  );
  mkdirSync(dirname(join(dir, ".git", branch)), { recursive: true });
  writeFileSync(join(dir, ".git", branch), `${commit.toString("hex")}\n`);

  // The index (version 2): each file's stat data, so git sees the working tree as committed.
  const header = Buffer.alloc(12);
  header.write("DIRC", 0);
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(entries.length, 8);
  const records = entries.map(({ path, mode, sha }) => {
    const stat = lstatSync(join(dir, path), { bigint: true });
    const name = Buffer.from(path);
    const record = Buffer.alloc(Math.ceil((62 + name.length + 1) / 8) * 8);
    const seconds = (ns: bigint) => Number((ns / 1_000_000_000n) & 0xffffffffn);
    const nanos = (ns: bigint) => Number(ns % 1_000_000_000n);
    record.writeUInt32BE(seconds(stat.ctimeNs), 0);
    record.writeUInt32BE(nanos(stat.ctimeNs), 4);
    record.writeUInt32BE(seconds(stat.mtimeNs), 8);
    record.writeUInt32BE(nanos(stat.mtimeNs), 12);
    record.writeUInt32BE(Number(stat.dev & 0xffffffffn), 16);
    record.writeUInt32BE(Number(stat.ino & 0xffffffffn), 20);
    record.writeUInt32BE(Number.parseInt(mode, 8), 24);
    record.writeUInt32BE(Number(stat.uid & 0xffffffffn), 28);
    record.writeUInt32BE(Number(stat.gid & 0xffffffffn), 32);
    record.writeUInt32BE(Number(stat.size & 0xffffffffn), 36);
    sha.copy(record, 40);
    record.writeUInt16BE(Math.min(name.length, 0xfff), 60);
    name.copy(record, 62);
    return record;
  });
  const index = Buffer.concat([header, ...records]);
  writeFileSync(
    join(dir, ".git", "index"),
    Buffer.concat([index, createHash("sha1").update(index).digest()]),
  );
}
