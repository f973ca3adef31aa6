import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../../cli/main.js";
import { gitRepo, makeTempDir } from "../../helpers/git-repo.js";
import { captureIo } from "../../helpers/io.js";

async function impact(dir: string, args: string[], stdin?: string) {
  const io = captureIo(dir, {}, { stdin });
  const code = await main(args, io);
  return { code, out: io.out, err: io.err };
}

/** Four commits, each changing the code a doc describes. */
function history() {
  const repo = gitRepo({
    "src/a.ts": "export const A = 1;\n",
    "docs/a.md": "# A\n\nA is 1, see src/a.ts.\n",
  });
  for (const value of [2, 3, 4]) repo.commit({ "src/a.ts": `export const A = ${value};\n` });
  return repo;
}

describe("empty or odd input is never silence", () => {
  it("refuses a reversed range, saying how to swap it", async () => {
    const repo = history();
    const reversed = await impact(repo.dir, ["plan", "--base", "HEAD", "--head", "HEAD~3"]);
    expect(reversed).toEqual({
      code: 2,
      out: "",
      err: "impact plan: --base HEAD comes after --head HEAD~3 (a reversed range: the change between them is empty); swap them: --base HEAD~3 --head HEAD\n",
    });
    expect((await impact(repo.dir, ["plan", "--base", "HEAD~3", "--head", "HEAD"])).code).toBe(0);
  });

  it("refuses an empty diff on standard input or in a file", async () => {
    const repo = history();
    const piped = await impact(repo.dir, ["plan", "--diff", "-"], "");
    expect(piped.code).toBe(2);
    expect(piped.err).toBe(
      "impact plan: --diff -: standard input is empty; pipe a unified diff (git diff BASE HEAD | impact plan --diff -), or leave --diff out to ask git\n",
    );
    repo.write({ "empty.diff": "\n" });
    const file = await impact(repo.dir, ["run", "--diff", "empty.diff"]);
    expect(file.code).toBe(2);
    expect(file.err).toMatch(/--diff .*empty\.diff: the file is empty; pass a unified diff/);
  });

  it("says when no file matches the docs globs", async () => {
    const repo = gitRepo({
      "src/a.ts": "export const A = 1;\n",
      "impact.config.json": '{"docs": ["guides/**/*.md"]}',
    });
    repo.commit({ "src/a.ts": "export const A = 2;\n" });
    const plan = await impact(repo.dir, ["plan"]);
    expect(plan.code).toBe(0);
    expect(plan.err).toContain(
      'warning: no file matches the docs globs (guides/**/*.md), so there is no article to check; set "docs" in impact.config.json to where the documentation lives\n',
    );
  });

  it("refuses --explain for a file that does not exist, and explains one that is no article", async () => {
    const repo = history();
    const missing = await impact(repo.dir, ["plan", "--explain", "docs/nope.md"]);
    expect(missing).toMatchObject({
      code: 2,
      err: "impact plan: --explain docs/nope.md: no such file in the repository; give an article's path from the repository root, such as docs/guide.md\n",
    });
    const code = await impact(repo.dir, ["plan", "--explain", "src/a.ts"]);
    expect(code.code).toBe(0);
    expect(code.out).toMatch(/^src\/a.ts is not an article/);
  });

  it("impact init: one line for an empty repository, and a shallow clone names the missing history", async () => {
    const empty = makeTempDir();
    execFileSync("git", ["init", "-q", empty]);
    const none = await impact(empty, ["init"]);
    expect(none).toEqual({
      code: 2,
      out: "",
      err: "impact init: the repository has no commits yet: impact init reads its files and history; commit something first\n",
    });

    const repo = history();
    const clone = join(makeTempDir(), "clone");
    mkdirSync(clone);
    execFileSync("git", ["clone", "-q", "--depth", "1", `file://${repo.dir}`, clone]);
    const shallow = await impact(clone, ["init"]);
    expect(shallow.code).toBe(0);
    expect(shallow.out).toContain(
      "Nothing to score it on: the clone is shallow, so its history is missing (git fetch --unshallow, or fetch-depth: 0 in actions/checkout), then run impact init again.",
    );
  });
});
