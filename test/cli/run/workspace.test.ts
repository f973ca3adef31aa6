import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Workspace } from "../../../cli/run/workspace.js";
import { writeFileAtomic } from "../../../shared/fs.js";
import { contentHash } from "../../../shared/hash.js";
import { gitRepo, makeTempDir } from "../../helpers/git-repo.js";

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

  it("gives the changes of the named files only, when asked", async () => {
    const repo = gitRepo({ "docs/a.md": "a\n", "docs/b.md": "b\n" });
    const workspace = new Workspace(repo.dir);
    for (const [path, content] of [
      ["docs/a.md", "a2\n"],
      ["docs/b.md", "b2\n"],
    ] as const) {
      const draft = workspace.beginArticle(path);
      await draft.set(content);
      draft.commit();
    }
    expect(
      workspace.changes(["docs/b.md", "docs/unknown.md"]).map((change) => [change.path, change.after]),
    ).toEqual([["docs/b.md", "b2\n"]]);
    expect(workspace.changes().map((change) => change.path)).toEqual(["docs/a.md", "docs/b.md"]);
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
