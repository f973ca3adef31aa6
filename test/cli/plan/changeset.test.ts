import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadChangeSet } from "../../../cli/plan/read-change-set.js";
import { parseUnifiedDiff } from "../../../shared/diff/parse.js";
import { GitError, UsageError } from "../../../shared/errors.js";
import { gitRepo, makeTempDir } from "../../helpers/git-repo.js";

const summary = (files: ReturnType<typeof parseUnifiedDiff>) =>
  files.map((file) => ({
    path: file.path,
    oldPath: file.oldPath,
    status: file.status,
    binary: file.binary,
    hunks: file.hunks.length,
  }));

async function errorOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a failure");
}

describe("parseUnifiedDiff", () => {
  it("reads a plain diff -u as GitHub's API gives it, with timestamps and no a/ b/ prefixes", () => {
    const files = parseUnifiedDiff(
      [
        "--- src/a.ts\t2024-01-01 00:00:00.000000000 +0000",
        "+++ src/a.ts\t2024-01-02 00:00:00.000000000 +0000",
        "@@ -1,3 +1,3 @@",
        " one",
        "--- removed line that looks like a header",
        "+new",
        " three",
      ].join("\n"),
    );
    expect(summary(files)).toEqual([
      { path: "src/a.ts", oldPath: undefined, status: "modified", binary: false, hunks: 1 },
    ]);
    expect(files[0]?.hunks[0]?.lines).toEqual([
      " one",
      "--- removed line that looks like a header",
      "+new",
      " three",
    ]);
  });

  it("reads quoted paths with octal escapes", () => {
    const files = parseUnifiedDiff(
      [
        'diff --git "a/docs/caf\\303\\251.md" "b/docs/caf\\303\\251.md"',
        "index 1111111..2222222 100644",
        '--- "a/docs/caf\\303\\251.md"',
        '+++ "b/docs/caf\\303\\251.md"',
        "@@ -1 +1 @@",
        "-old",
        "+new",
        "\\ No newline at end of file",
      ].join("\n"),
    );
    expect(files[0]?.path).toBe("docs/café.md");
  });

  it("refuses text that is not a unified diff, in one line", () => {
    expect(() => parseUnifiedDiff("hello\nworld\n")).toThrowErrorMatchingInlineSnapshot(
      `[UsageError: not a unified diff: no file headers (\`diff --git\` or \`---\`/\`+++\`) found]`,
    );
    expect(() =>
      parseUnifiedDiff("--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n"),
    ).toThrowErrorMatchingInlineSnapshot(
      `[UsageError: not a unified diff: hunk "@@ -1,3 +1,3 @@" ends early (truncated diff?)]`,
    );
    expect(parseUnifiedDiff("")).toEqual([]);
  });
});

describe("loadChangeSet from git", () => {
  it("lists added, modified, deleted, renamed, binary and mode-changed files", async () => {
    const repo = gitRepo({
      "src/keep.ts": "export const a = 1;\n",
      "src/gone.ts": "export function gone() {}\n",
      "src/old-name.ts": `${"export function moved(x: number) { return x; }\n".repeat(5)}`,
      "tool.sh": "echo hi\n",
      "logo.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]),
    });
    repo.commit({
      "src/keep.ts": "export const a = 2;\n",
      "src/gone.ts": null,
      "src/old-name.ts": null,
      "src/new-name.ts": `${"export function moved(x: number) { return x; }\n".repeat(5)}`,
      "src/added.ts": "export function fresh() {}\n",
      "logo.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 9, 9, 9]),
    });
    repo.git("update-index", "--chmod=+x", "tool.sh");
    repo.git("commit", "-q", "--amend", "--no-edit");
    const changeSet = await loadChangeSet({ repo: repo.dir });
    expect(changeSet.base).toBe(repo.git("rev-parse", "HEAD~1"));
    expect(changeSet.head).toBe(repo.git("rev-parse", "HEAD"));
    expect(summary(changeSet.files).sort((a, b) => a.path.localeCompare(b.path))).toEqual([
      { path: "logo.png", oldPath: undefined, status: "modified", binary: true, hunks: 0 },
      { path: "src/added.ts", oldPath: undefined, status: "added", binary: false, hunks: 1 },
      { path: "src/gone.ts", oldPath: undefined, status: "deleted", binary: false, hunks: 1 },
      { path: "src/keep.ts", oldPath: undefined, status: "modified", binary: false, hunks: 1 },
      { path: "src/new-name.ts", oldPath: "src/old-name.ts", status: "renamed", binary: false, hunks: 0 },
      { path: "tool.sh", oldPath: undefined, status: "modified", binary: false, hunks: 0 },
    ]);
    const symbols = changeSet.symbols
      .map((symbol) => `${symbol.change} ${symbol.kind} ${symbol.name}`)
      .sort();
    expect(symbols).toEqual(["added function fresh", "removed function gone", "signature constant a"]);
  });

  it("compares a merge commit with its first parent", async () => {
    const repo = gitRepo({ "src/a.ts": "export const a = 1;\n", "src/b.ts": "export const b = 1;\n" });
    repo.git("checkout", "-q", "-b", "topic");
    repo.commit({ "src/b.ts": "export const b = 2;\n" }, "topic change");
    repo.git("checkout", "-q", "main");
    repo.commit({ "src/a.ts": "export const a = 2;\n" }, "main change");
    repo.git("merge", "-q", "--no-ff", "-m", "merge topic", "topic");
    const changeSet = await loadChangeSet({ repo: repo.dir });
    expect(changeSet.files.map((file) => file.path)).toEqual(["src/b.ts"]);
  });

  it("diffs a branch from where it left --base, not against commits the base gained since", async () => {
    const repo = gitRepo({ "src/a.ts": "export const a = 1;\n", "src/b.ts": "export const b = 1;\n" });
    const forkPoint = repo.git("rev-parse", "HEAD");
    repo.git("checkout", "-q", "-b", "topic");
    const head = repo.commit({ "src/b.ts": "export const b = 2;\n" }, "topic change");
    repo.git("checkout", "-q", "main");
    repo.commit({ "src/a.ts": "export const a = 2;\n" }, "main moved on");
    const changeSet = await loadChangeSet({ repo: repo.dir, base: "main", head: "topic" });
    expect(changeSet.files.map((file) => file.path)).toEqual(["src/b.ts"]);
    expect([changeSet.base, changeSet.head]).toEqual([forkPoint, head]);
    // Unrelated histories have no merge base: the diff is base..head as given.
    repo.git("checkout", "-q", "--orphan", "other");
    repo.git("rm", "-rfq", ".");
    const orphan = repo.commit({ "src/c.ts": "export const c = 1;\n" }, "unrelated");
    const unrelated = await loadChangeSet({ repo: repo.dir, base: "main", head: orphan });
    expect(unrelated.base).toBe(repo.git("rev-parse", "main"));
    expect(unrelated.files.map((file) => file.path).sort()).toEqual(["src/a.ts", "src/b.ts", "src/c.ts"]);
  });

  it("lists a submodule change with status submodule and no symbols", async () => {
    const inner = gitRepo({ "x.txt": "1\n" });
    const repo = gitRepo({ "README.md": "# r\n" });
    repo.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", inner.dir, "vendor/inner");
    repo.git("commit", "-q", "-m", "add submodule");
    const changeSet = await loadChangeSet({ repo: repo.dir });
    const submodule = changeSet.files.find((file) => file.path === "vendor/inner");
    expect(submodule?.status).toBe("submodule");
    expect(changeSet.symbols.filter((symbol) => symbol.file === "vendor/inner")).toEqual([]);
  });

  it("reads no symbols from a minified file (a changed line over MAX_SYMBOL_LINE_CHARS), and still lists it", async () => {
    // A bundled script: one long line of unbalanced quotes and flags, as a minifier writes it.
    const bundle = (flag: string) =>
      `var a=function(){return"${flag}"+'x'.repeat(3)+"\\"};${"b='\"';".repeat(400)}\n`;
    const repo = gitRepo({ "theme/bundle.js": bundle("--old-flag"), "src/cli.js": 'opt("--old-flag");\n' });
    repo.commit({ "theme/bundle.js": bundle("--new-flag"), "src/cli.js": 'opt("--new-flag");\n' });
    const changeSet = await loadChangeSet({ repo: repo.dir });
    expect(changeSet.files.map((file) => file.path).sort()).toEqual(["src/cli.js", "theme/bundle.js"]);
    expect(changeSet.symbols.filter((symbol) => symbol.file === "theme/bundle.js")).toEqual([]);
    expect(
      changeSet.symbols.filter((symbol) => symbol.file === "src/cli.js").map((symbol) => symbol.name),
    ).toContain("--old-flag");
  });

  it("diffs a first commit against the empty tree", async () => {
    const repo = gitRepo({ "src/a.ts": "export function first() {}\n" });
    const changeSet = await loadChangeSet({ repo: repo.dir });
    expect(changeSet.files.map((file) => `${file.status} ${file.path}`)).toEqual(["added src/a.ts"]);
  });

  it("says what to do for an unknown revision, a non-repository and a shallow clone", async () => {
    const repo = gitRepo({ "a.ts": "export const a = 1;\n" });
    repo.commit({ "a.ts": "export const a = 2;\n" });
    repo.commit({ "a.ts": "export const a = 3;\n" });
    const unknown = await errorOf(loadChangeSet({ repo: repo.dir, base: "nope-branch" }));
    expect(unknown).toBeInstanceOf(GitError);
    expect(unknown.message).toMatchInlineSnapshot(
      `"unknown revision "nope-branch" for --base (check the name, or fetch it: git fetch origin nope-branch)"`,
    );
    // A remote-tracking name is fetched by its branch name, not as "origin/origin/main".
    const remote = await errorOf(loadChangeSet({ repo: repo.dir, base: "origin/main" }));
    expect(remote.message).toBe(
      'unknown revision "origin/main" for --base (check the name, or fetch it: git fetch origin main)',
    );

    const plain = makeTempDir();
    const notRepo = await errorOf(loadChangeSet({ repo: plain }));
    expect(notRepo).toBeInstanceOf(GitError);
    expect(notRepo.message.replace(plain, "<dir>")).toMatchInlineSnapshot(
      `"not a git repository: <dir> (run impact inside a git checkout, or pass --repo DIR)"`,
    );

    const clone = join(makeTempDir(), "clone");
    execFileSync("git", ["clone", "-q", "--depth", "1", `file://${repo.dir}`, clone]);
    const shallow = await errorOf(loadChangeSet({ repo: clone }));
    expect(shallow).toBeInstanceOf(GitError);
    expect(shallow.message).toMatchInlineSnapshot(
      `"the parent of HEAD is not available: this is a shallow clone without that history; fetch it (GitHub Actions: actions/checkout with fetch-depth: 0, or git fetch --unshallow)"`,
    );
    const missing = await errorOf(loadChangeSet({ repo: join(plain, "nowhere") }));
    expect(missing).toBeInstanceOf(UsageError);
  });
});

describe("loadChangeSet from a diff", () => {
  it("names base and head after the diff's hash unless revisions are given", async () => {
    const repo = gitRepo({ "src/a.py": "def old_name(x):\n    return x\n" });
    const diff = [
      "diff --git a/src/a.py b/src/a.py",
      "--- a/src/a.py",
      "+++ b/src/a.py",
      "@@ -1,2 +1,2 @@",
      "-def old_name(x):",
      "+def new_name(x):",
      "     return x",
      "",
    ].join("\n");
    const changeSet = await loadChangeSet({ repo: repo.dir, diffText: diff });
    expect(changeSet.base).toMatch(/^diff:[0-9a-f]{16}$/);
    expect(changeSet.head).toBe(changeSet.base);
    expect(changeSet.symbols).toEqual([
      {
        name: "new_name",
        oldName: "old_name",
        kind: "function",
        change: "renamed",
        file: "src/a.py",
        line: 1,
      },
    ]);
    const named = await loadChangeSet({ repo: repo.dir, diffText: diff, base: "abc", head: "def" });
    expect([named.base, named.head]).toEqual(["abc", "def"]);
  });

  it("reads whole files at the given revisions, for paths with spaces and non-ASCII letters too", async () => {
    const body = (value: string) =>
      [
        "export function loadWidget(id: string): string {",
        ...Array.from({ length: 8 }, (_, index) => `  const step${index} = ${index};`),
        `  return id + "${value}";`,
        "}",
        "",
      ].join("\n");
    const repo = gitRepo({ "src/my widget.ts": body("a"), "src/größe.ts": body("a") });
    const base = repo.git("rev-parse", "HEAD");
    const head = repo.commit({ "src/my widget.ts": body("b"), "src/größe.ts": body("b") });
    const diff = execFileSync("git", ["diff", base, head], { cwd: repo.dir, encoding: "utf8" });
    // The hunks' lines show only the return line: the function's name comes from the whole files.
    const hunkLines = diff.split("\n").filter((line) => /^[-+ ]/.test(line) && !/^(---|\+\+\+) /.test(line));
    expect(hunkLines.join("\n")).not.toContain("loadWidget");
    const changeSet = await loadChangeSet({ repo: repo.dir, diffText: diff, base, head });
    expect(
      changeSet.symbols
        .filter((symbol) => symbol.name === "loadWidget")
        .map((symbol) => `${symbol.change} ${symbol.file}`)
        .sort(),
    ).toEqual(["body src/größe.ts", "body src/my widget.ts"]);
    const fromHunks = await loadChangeSet({ repo: repo.dir, diffText: diff });
    expect(fromHunks.symbols.some((symbol) => symbol.name === "loadWidget")).toBe(false);
  });

  it("refuses a diff that is not one", async () => {
    const repo = gitRepo({ "a.txt": "a\n" });
    const error = await errorOf(loadChangeSet({ repo: repo.dir, diffText: "this is not a diff\n" }));
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).code).toBe("input");
  });
});
