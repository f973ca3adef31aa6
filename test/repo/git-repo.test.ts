import { execFileSync } from "node:child_process";
import { chmodSync, existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo, makeTempDir } from "../helpers/git-repo.js";

describe("the gitRepo test helper", () => {
  it("writes a first commit, ref and index that git itself would: same tree, clean status", () => {
    const files = {
      "b.txt": "b\n",
      "a/x.md": "x",
      "a-b/y": "y",
      "a.c": "",
      "a/b/c.ts": "export const c = 1;\n",
      "ü.md": "u",
      "bytes.bin": new Uint8Array([0, 1, 2, 255]),
    };
    const byHand = gitRepo(files);
    // A folder given by the caller gets git's own `add -A` and `commit`.
    const byGit = gitRepo(files, { dir: makeTempDir() });
    expect(byHand.git("rev-parse", "HEAD^{tree}")).toBe(byGit.git("rev-parse", "HEAD^{tree}"));
    expect(byHand.git("write-tree")).toBe(byGit.git("rev-parse", "HEAD^{tree}"));
    expect(byHand.git("fsck", "--strict")).toBe("");
    expect(byHand.git("status", "--porcelain", "--ignored")).toBe("");
    expect(byHand.git("log", "--format=%an <%ae> %cn %s")).toBe(
      byGit.git("log", "--format=%an <%ae> %cn %s"),
    );
    const next = byHand.commit({ "b.txt": "B\n", "a/x.md": null });
    expect(byHand.git("rev-parse", "HEAD")).toBe(next);
    expect(byHand.git("diff", "--name-status", "HEAD~1", "HEAD")).toBe("D\ta/x.md\nM\tb.txt");
    expect(byHand.git("status", "--porcelain")).toBe("");
  });

  it("writes later commits as git itself would: same trees and parents, executable bits, clean status", () => {
    const files = { "a/x.md": "x\n", "b.txt": "b\n", "tool.sh": "echo\n" };
    const byHand = gitRepo(files);
    const byGit = gitRepo(files, { dir: makeTempDir() });
    for (const repo of [byHand, byGit]) {
      chmodSync(join(repo.dir, "tool.sh"), 0o755);
      repo.commit({ "a/x.md": null, "a/b/c.ts": "export const c = 1;\n", "ü.md": "u" }, "second");
      repo.write({ "loose.txt": "made by someone else\n" });
      repo.commit({}, "third");
      repo.commit({}, "empty");
      // Names that only start like git's own files, and a message with a body and a trailer.
      repo.commit(
        { ".github/workflows/ci.yml": "on: push\n", "docs/.gitkeep": "" },
        "Tidy up\n\nDocs-Impact: none",
      );
    }
    // Written by hand indeed: git's own commits keep a reflog.
    expect(existsSync(join(byHand.dir, ".git", "logs"))).toBe(false);
    expect(existsSync(join(byGit.dir, ".git", "logs"))).toBe(true);
    expect(byHand.git("fsck", "--strict")).toBe("");
    expect(byHand.git("status", "--porcelain", "--ignored")).toBe("");
    expect(byHand.git("write-tree")).toBe(byHand.git("rev-parse", "HEAD^{tree}"));
    const history = "--format=%T %an <%ae> %B";
    expect(byHand.git("log", history)).toBe(byGit.git("log", history));
    expect(byHand.git("ls-tree", "-r", "HEAD")).toContain("100755 blob");
    expect(byHand.git("ls-tree", "-r", "HEAD")).toBe(byGit.git("ls-tree", "-r", "HEAD"));
    // Once an ignore file is in the tree, git itself commits: what it ignores stays out.
    byHand.commit({ ".gitignore": "build/\n" }, "ignore");
    byHand.write({ "build/out.txt": "x" });
    byHand.commit({ "b.txt": "B\n" }, "after");
    expect(byHand.git("ls-tree", "-r", "--name-only", "HEAD")).not.toContain("build/out.txt");
    expect(byHand.git("status", "--porcelain")).toBe("");
  });

  it("keeps ignored files out of the first commit, and makes an empty one", () => {
    const ignoring = gitRepo({ ".gitignore": "build/\n", "docs/a.md": "a\n" });
    ignoring.write({ "build/out.txt": "x" });
    expect(ignoring.git("status", "--porcelain")).toBe("");
    const empty = gitRepo({});
    expect(empty.git("log", "--format=%s")).toBe("initial");
    expect(empty.git("status", "--porcelain")).toBe("");
  });

  it("answers rev-parse HEAD from .git as git does: on a branch, detached, packed, and with no commit", () => {
    const repo = gitRepo({ "a.md": "a\n" });
    const first = repo.git("rev-parse", "--verify", "HEAD");
    const second = repo.commit({ "a.md": "b\n" });
    const byGit = () =>
      execFileSync("git", ["rev-parse", "HEAD"], { cwd: repo.dir, encoding: "utf8" }).trim();
    expect(repo.git("rev-parse", "HEAD")).toBe(second);
    expect(byGit()).toBe(second);
    repo.git("checkout", "-q", "--detach", first);
    expect(repo.git("rev-parse", "HEAD")).toBe(first);
    repo.git("checkout", "-q", "main");
    repo.git("pack-refs", "--all");
    expect(repo.git("rev-parse", "HEAD")).toBe(byGit());
    expect(() => gitRepo().git("rev-parse", "HEAD")).toThrow();
  });
});
