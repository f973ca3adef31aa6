import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  gitAt,
  isShallow,
  listWorktree,
  readFilesAt,
  repositoryRoot,
  resolveCommits,
  rootOnDisk,
  trackedUnder,
} from "../../../cli/git/repository.js";
import { genericNames } from "../../../cli/plan/generic-names.js";
import { GitError } from "../../../shared/errors.js";
import { gitRepo, makeTempDir } from "../../helpers/git-repo.js";

describe("git through plain child processes", () => {
  it("answers with git's output, and fails with a GitError naming git's complaint", async () => {
    const repo = gitRepo({ "a.txt": "a\n" });
    const git = gitAt(repo.dir);
    expect(await git.revparse(["HEAD"])).toBe(repo.git("rev-parse", "HEAD"));
    const failure = await git
      .raw(["rev-parse", "--verify", "no-such-branch"])
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(GitError);
    expect((failure as GitError).message).toBe("git rev-parse failed: fatal: Needed a single revision");
  });

  it("finds a repository's root once, but asks again for a directory that was no repository", async () => {
    const dir = makeTempDir();
    await expect(repositoryRoot(dir)).rejects.toThrow(/^not a git repository: .* pass --repo DIR\)$/);
    const repo = gitRepo({ "a.txt": "a\n" }, { dir });
    expect(await repositoryRoot(repo.dir)).toBe(repo.git("rev-parse", "--show-toplevel"));
  });

  it("finds the root on disk where git would find the same, and leaves the rest to git", async () => {
    const repo = gitRepo({ "src/deep/a.txt": "a\n" });
    const top = repo.git("rev-parse", "--show-toplevel");
    expect(rootOnDisk(repo.dir)).toBe(top);
    expect(rootOnDisk(join(repo.dir, "src", "deep"))).toBe(top);
    // Through a symlink, as git prints it: the real path.
    const link = join(makeTempDir(), "link");
    symlinkSync(join(repo.dir, "src"), link);
    expect(rootOnDisk(link)).toBe(top);
    expect(await repositoryRoot(link)).toBe(top);
    // A repository inside another: the inner one.
    const inner = gitRepo({ "b.txt": "b\n" }, { dir: join(repo.dir, "vendor", "inner") });
    expect(rootOnDisk(join(inner.dir))).toBe(inner.git("rev-parse", "--show-toplevel"));
    // Inside .git, a linked worktree (a .git file), a configured work tree, no repository: git decides.
    expect(rootOnDisk(join(repo.dir, ".git", "refs"))).toBeUndefined();
    const worktree = join(makeTempDir(), "wt");
    repo.git("worktree", "add", "-q", worktree);
    expect(rootOnDisk(worktree)).toBeUndefined();
    expect(await repositoryRoot(worktree)).toBe(repo.git("-C", worktree, "rev-parse", "--show-toplevel"));
    const moved = gitRepo({ "c.txt": "c\n" });
    mkdirSync(join(moved.dir, "tree"));
    moved.git("config", "core.worktree", join(moved.dir, "tree"));
    expect(rootOnDisk(moved.dir)).toBeUndefined();
    expect(rootOnDisk(makeTempDir())).toBeUndefined();
  });

  it("reads the package's own names from every manifest at the root of a revision, in one read", async () => {
    const repo = gitRepo({
      "package.json": JSON.stringify({ name: "@acme/widget" }),
      "go.mod": "module github.com/acme/gadget\n",
      "sub/Cargo.toml": '[package]\nname = "not-at-the-root"\n',
    });
    const first = repo.git("rev-parse", "HEAD");
    repo.commit({ "pyproject.toml": '[project]\nname = "later"\n' });
    expect((await genericNames(repo.dir, first)).map((name) => name.symbol)).toEqual([
      "@acme/widget",
      "widget",
      "github.com/acme/gadget",
      "gadget",
    ]);
    expect((await genericNames(repo.dir, "HEAD")).map((name) => name.symbol)).toContain("later");
    expect(await genericNames(repo.dir, "no-such-revision")).toEqual([]);
  });

  it("reads files of a revision by fixed path in one batch, and refuses a name with a line break", async () => {
    const repo = gitRepo({ "package.json": "{}\n", "sub/file.txt": "nested\n" });
    const texts = await readFilesAt(repo.dir, "HEAD", [
      "package.json",
      "missing.json",
      "sub",
      "sub/file.txt",
    ]);
    expect([...texts]).toEqual([
      ["package.json", "{}\n"],
      ["missing.json", undefined],
      ["sub", undefined],
      ["sub/file.txt", "nested\n"],
    ]);
    await expect(readFilesAt(repo.dir, "HEAD", ["a\nHEAD:package.json"])).rejects.toThrow(/one-line names/);
  });

  it("answers reads asked at once each with its own objects, and sees a commit made after a read", async () => {
    const repo = gitRepo({ "a.txt": "first\n", "b.txt": "bee\n" });
    const first = repo.git("rev-parse", "HEAD");
    // Three requests in flight on the one shared cat-file process, answered in order.
    const [commits, early, late] = await Promise.all([
      resolveCommits(gitAt(repo.dir), ["HEAD", "no-such-revision", first]),
      readFilesAt(repo.dir, first, ["a.txt", "missing.txt"]),
      readFilesAt(repo.dir, "HEAD", ["b.txt"]),
    ]);
    expect(commits).toEqual([first, undefined, first]);
    expect([...early]).toEqual([
      ["a.txt", "first\n"],
      ["missing.txt", undefined],
    ]);
    expect([...late]).toEqual([["b.txt", "bee\n"]]);
    repo.commit({ "a.txt": "second\n" });
    const second = repo.git("rev-parse", "HEAD");
    expect(second).not.toBe(first);
    expect(await resolveCommits(gitAt(repo.dir), ["HEAD"])).toEqual([second]);
    expect([...(await readFilesAt(repo.dir, "HEAD", ["a.txt"]))]).toEqual([["a.txt", "second\n"]]);
  });

  it("tells a shallow clone from a full one", async () => {
    const repo = gitRepo({ "a.txt": "one\n" });
    repo.commit({ "a.txt": "two\n" });
    expect(await isShallow(gitAt(repo.dir))).toBe(false);
    const clone = join(makeTempDir(), "clone");
    repo.git("clone", "-q", "--depth", "1", `file://${repo.dir}`, clone);
    expect(await isShallow(gitAt(clone))).toBe(true);
  });

  it("tells the files git tracks under a folder from the working tree's listing, as ls-files --cached -- folder does", async () => {
    // Tracked: one deleted from the working tree since; not: a folder sharing the prefix, an untracked file.
    const tracked = [
      ".impact/cache/gone from disk.json",
      ".impact/cache/kept.json",
      ".impact/instructions.md",
    ];
    const repo = gitRepo(
      Object.fromEntries([...tracked, ".impactx/other.json"].map((path) => [path, "{}\n"])),
    );
    rmSync(join(repo.dir, ".impact/cache/gone from disk.json"));
    writeFileSync(join(repo.dir, ".impact/untracked.json"), "{}\n");
    const found = trackedUnder(await listWorktree(repo.dir), ".impact").sort();
    expect(found).toEqual(tracked);
    expect(found).toEqual(
      repo.git("ls-files", "-z", "--cached", "--", ".impact").split("\0").filter(Boolean).sort(),
    );
  });
});
