import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeFileAtomic } from "../cli/fs.js";
import { Workspace } from "../cli/host/workspace.js";
import { contentHash } from "../shared/hash.js";
import { gitRepo, makeTempDir } from "./helpers/git-repo.js";

async function edit(workspace: Workspace, path: string, change: (text: string | null) => string) {
  const draft = workspace.beginArticle(path);
  await draft.set(change(await draft.read()));
  return draft.commit();
}

describe("Workspace overlay", () => {
  it("reads the overlay first, keeps the base, and leaves disk alone", async () => {
    const repo = gitRepo({ "docs/a.md": "# A\nold\n" });
    const workspace = new Workspace(repo.dir);
    await edit(workspace, "docs/a.md", (text) => text!.replace("old", "new"));
    expect(await workspace.read("docs/a.md")).toBe("# A\nnew\n");
    expect(await workspace.baseContent("docs/a.md")).toBe("# A\nold\n");
    expect(await workspace.baseHash("docs/a.md")).toBe(contentHash("# A\nold\n"));
    expect(readFileSync(join(repo.dir, "docs/a.md"), "utf8")).toBe("# A\nold\n");
    expect(await workspace.read("docs/missing.md")).toBeNull();
  });

  it("keeps a draft private until commit, and a discarded draft leaves no trace", async () => {
    const repo = gitRepo({ "docs/a.md": "a\n", "docs/b.md": "b\n" });
    const workspace = new Workspace(repo.dir);
    const first = workspace.beginArticle("docs/a.md");
    const second = workspace.beginArticle("docs/b.md");
    await first.set("a2\n");
    await second.set("b2\n");
    expect(await workspace.read("docs/a.md")).toBe("a\n");
    expect(await first.read()).toBe("a2\n");
    second.discard();
    expect(first.commit()).toEqual({ committed: ["docs/a.md"], conflicts: [] });
    expect(workspace.changes().map((change) => change.path)).toEqual(["docs/a.md"]);
    expect(await workspace.read("docs/b.md")).toBe("b\n");
    expect(() => workspace.beginArticle("docs/a.md")).not.toThrow();
  });

  it("commits nothing of an article whose new file another article created first", async () => {
    const repo = gitRepo({ "docs/a.md": "a\n", "docs/b.md": "b\n" });
    const workspace = new Workspace(repo.dir);
    const first = workspace.beginArticle("docs/a.md");
    const second = workspace.beginArticle("docs/b.md");
    await first.set("new from a\n", "docs/new.md");
    await second.set("b2\n");
    await second.set("new from b\n", "docs/new.md");
    expect(first.commit()).toEqual({ committed: ["docs/new.md"], conflicts: [] });
    expect(second.commit()).toEqual({ committed: [], conflicts: ["docs/new.md"] });
    expect(workspace.changes().map((change) => [change.path, change.after])).toEqual([
      ["docs/new.md", "new from a\n"],
    ]);
  });

  it("refuses a second open draft of the same article", () => {
    const workspace = new Workspace(gitRepo({ "docs/a.md": "a\n" }).dir);
    workspace.beginArticle("docs/a.md");
    expect(() => workspace.beginArticle("docs/a.md")).toThrow("already open");
  });

  it("describes changes with hashes and a patch that git applies to the base", async () => {
    const repo = gitRepo({ "docs/a.md": "# A\n\nold line\n" });
    const workspace = new Workspace(repo.dir);
    await edit(workspace, "docs/a.md", (text) => text!.replace("old", "new"));
    await edit(workspace, "docs/new.md", () => "# New\n");
    const changes = workspace.changes();
    expect(changes.map(({ patch: _patch, ...rest }) => rest)).toEqual([
      {
        path: "docs/a.md",
        before: "# A\n\nold line\n",
        after: "# A\n\nnew line\n",
        hashBefore: contentHash("# A\n\nold line\n"),
        hashAfter: contentHash("# A\n\nnew line\n"),
      },
      {
        path: "docs/new.md",
        before: null,
        after: "# New\n",
        hashBefore: null,
        hashAfter: contentHash("# New\n"),
      },
    ]);
    writeFileSync(join(repo.dir, "all.patch"), changes.map((change) => change.patch).join(""));
    repo.git("apply", "--check", "all.patch");
  });

  it("treats a NUL byte or invalid UTF-8 as binary, and a directory as not a file", async () => {
    const repo = gitRepo({
      "bin/x.dat": new Uint8Array([1, 0, 2]),
      "bin/y.dat": new Uint8Array([0xff, 0xfe, 0x41]),
    });
    const workspace = new Workspace(repo.dir);
    expect((await workspace.load("bin/x.dat")).kind).toBe("binary");
    expect((await workspace.load("bin/y.dat")).kind).toBe("binary");
    expect((await workspace.load("bin")).kind).toBe("not_file");
    await expect(workspace.read("bin/x.dat")).rejects.toThrow("not a text file");
  });
});

describe("Workspace.listFiles", () => {
  it("lists tracked and untracked files without ignored ones, plus overlay files", async () => {
    const repo = gitRepo({ ".gitignore": "dist/\n", "docs/a.md": "a\n" });
    repo.write({ "dist/out.js": "x\n", "notes.md": "n\n" });
    const workspace = new Workspace(repo.dir);
    await edit(workspace, "docs/new.md", () => "new\n");
    expect(await workspace.listFiles()).toEqual([".gitignore", "docs/a.md", "docs/new.md", "notes.md"]);
  });

  it("walks a plain directory that is not a git work tree", async () => {
    const dir = makeTempDir();
    mkdirSync(join(dir, "docs/deep"), { recursive: true });
    writeFileSync(join(dir, "docs/deep/a.md"), "a\n");
    writeFileSync(join(dir, "README.md"), "r\n");
    expect(await new Workspace(dir).listFiles()).toEqual(["README.md", "docs/deep/a.md"]);
  });
});

describe("Workspace.commitToDisk", () => {
  it("writes each changed file and keeps its mode", async () => {
    const repo = gitRepo({ "docs/a.md": "a\n", "tool.md": "t\n" });
    chmodSync(join(repo.dir, "tool.md"), 0o750);
    const workspace = new Workspace(repo.dir);
    await edit(workspace, "docs/a.md", () => "a2\n");
    await edit(workspace, "tool.md", () => "t2\n");
    await edit(workspace, "docs/deep/new.md", () => "# New\n");
    expect(await workspace.commitToDisk()).toEqual({
      written: ["docs/a.md", "docs/deep/new.md", "tool.md"],
      refused: [],
    });
    expect(readFileSync(join(repo.dir, "docs/a.md"), "utf8")).toBe("a2\n");
    expect(readFileSync(join(repo.dir, "docs/deep/new.md"), "utf8")).toBe("# New\n");
    expect(statSync(join(repo.dir, "tool.md")).mode & 0o777).toBe(0o750);
    expect(readdirSync(join(repo.dir, "docs")).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  it("refuses a file changed on disk since it was read, names it, and still writes the others", async () => {
    const repo = gitRepo({ "docs/a.md": "a\n", "docs/b.md": "b\n" });
    const workspace = new Workspace(repo.dir);
    await edit(workspace, "docs/a.md", () => "a2\n");
    await edit(workspace, "docs/b.md", () => "b2\n");
    await edit(workspace, "docs/c.md", () => "c\n");
    writeFileSync(join(repo.dir, "docs/a.md"), "someone else\n");
    writeFileSync(join(repo.dir, "docs/c.md"), "created meanwhile\n");
    const result = await workspace.commitToDisk();
    expect(result.written).toEqual(["docs/b.md"]);
    expect(result.refused).toEqual([
      {
        path: "docs/a.md",
        reason: `it changed on disk since the run read it (hash ${contentHash("someone else\n")}, expected ${contentHash("a\n")})`,
      },
      { path: "docs/c.md", reason: "it was created on disk after the run read it" },
    ]);
    expect(readFileSync(join(repo.dir, "docs/a.md"), "utf8")).toBe("someone else\n");
    expect(readFileSync(join(repo.dir, "docs/c.md"), "utf8")).toBe("created meanwhile\n");
    expect(readFileSync(join(repo.dir, "docs/b.md"), "utf8")).toBe("b2\n");
  });

  it("writes only the paths asked for", async () => {
    const repo = gitRepo({ "docs/a.md": "a\n", "docs/b.md": "b\n" });
    const workspace = new Workspace(repo.dir);
    await edit(workspace, "docs/a.md", () => "a2\n");
    await edit(workspace, "docs/b.md", () => "b2\n");
    expect(await workspace.commitToDisk(["docs/b.md", "docs/zzz.md"])).toEqual({
      written: ["docs/b.md"],
      refused: [{ path: "docs/zzz.md", reason: "no change to write" }],
    });
    expect(readFileSync(join(repo.dir, "docs/a.md"), "utf8")).toBe("a\n");
  });

  it("leaves every file old when a write fails midway, and no temp file behind", async () => {
    const repo = gitRepo({ "docs/a.md": "a\n", "docs/b.md": "b\n" });
    const workspace = new Workspace(repo.dir);
    await edit(workspace, "docs/a.md", () => "a2\n");
    await edit(workspace, "docs/b.md", () => "b2\n");
    await edit(workspace, "docs/x/new.md", () => "new\n");
    // docs/x becomes a file: the third write cannot create its directory.
    writeFileSync(join(repo.dir, "docs/x"), "in the way\n");
    await expect(workspace.commitToDisk()).rejects.toThrow();
    expect(readFileSync(join(repo.dir, "docs/a.md"), "utf8")).toBe("a\n");
    expect(readFileSync(join(repo.dir, "docs/b.md"), "utf8")).toBe("b\n");
    expect(readdirSync(join(repo.dir, "docs")).sort()).toEqual(["a.md", "b.md", "x"]);
  });

  it("round-trips CRLF, a BOM and a missing final newline byte for byte", async () => {
    const original = "\uFEFF# Title\r\n\r\nUse --old-flag here.\r\nLast line without newline";
    const repo = gitRepo({ "docs/crlf.md": original });
    const workspace = new Workspace(repo.dir);
    await edit(workspace, "docs/crlf.md", (text) => text!.replace("--old-flag", "--new-flag"));
    const [change] = workspace.changes();
    expect(change?.hashBefore).toBe(contentHash(Buffer.from(original, "utf8")));
    await workspace.commitToDisk();
    const bytes = readFileSync(join(repo.dir, "docs/crlf.md"));
    expect(bytes.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    expect(bytes.toString("utf8")).toBe(original.replace("--old-flag", "--new-flag"));
  });

  it("writes through a symlink inside the repository to its target", async () => {
    const repo = gitRepo({ "docs/real.md": "real\n" });
    repo.git("config", "core.symlinks", "true");
    const { symlinkSync, lstatSync } = await import("node:fs");
    symlinkSync("real.md", join(repo.dir, "docs/link.md"));
    const workspace = new Workspace(repo.dir);
    await edit(workspace, "docs/link.md", () => "changed\n");
    await workspace.commitToDisk();
    expect(lstatSync(join(repo.dir, "docs/link.md")).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(repo.dir, "docs/real.md"), "utf8")).toBe("changed\n");
  });
});

describe("writeFileAtomic", () => {
  it("replaces the file, keeps its mode and leaves no temp file", async () => {
    const repo = gitRepo({ "run.sh": "echo 1\n" });
    const path = join(repo.dir, "run.sh");
    chmodSync(path, 0o755);
    await writeFileAtomic(path, "echo 2\n");
    expect(readFileSync(path, "utf8")).toBe("echo 2\n");
    expect(statSync(path).mode & 0o777).toBe(0o755);
    expect(readdirSync(repo.dir).filter((name) => name !== ".git")).toEqual(["run.sh"]);
  });
});
