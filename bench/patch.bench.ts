import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyEdits } from "../shared/edit/engine.js";
import { createFilePatch } from "../shared/patch.js";
import { makeArticle, makeEdits, median } from "./edit-engine.bench.js";

function gitDiff(dir: string): string {
  try {
    execFileSync("git", ["diff", "--no-index", "--no-color", "a.md", "b.md"], {
      cwd: dir,
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
    return "";
  } catch (error) {
    // git diff --no-index exits 1 when the files differ; the diff is on stdout.
    return String((error as { stdout?: string }).stdout ?? "");
  }
}

export async function run(): Promise<void> {
  const before = makeArticle();
  const outcome = applyEdits(before, makeEdits());
  if (!outcome.ok) throw new Error(outcome.error.message);
  const after = outcome.content;
  const dir = mkdtempSync(join(tmpdir(), "impact-bench-patch-"));
  try {
    writeFileSync(join(dir, "a.md"), before);
    writeFileSync(join(dir, "b.md"), after);
    const ours: number[] = [];
    const git: number[] = [];
    let patch = "";
    let gitPatch = "";
    for (let round = 0; round < 9; round++) {
      let start = performance.now();
      patch = createFilePatch("docs/a.md", before, after);
      ours.push(performance.now() - start);
      start = performance.now();
      gitPatch = gitDiff(dir);
      git.push(performance.now() - start);
    }
    const hunks = (text: string) => text.split("\n@@ ").length - 1;
    console.log(
      `article: ${(before.length / 1e6).toFixed(2)} MB after 200 edits; hunks: ours ${hunks(patch)}, git ${hunks(gitPatch)}`,
    );
    console.log(`createFilePatch: ${median(ours).toFixed(1)} ms (median)`);
    console.log(`git diff --no-index (process included): ${median(git).toFixed(1)} ms (median)`);
    console.log(`ratio: ${(median(ours) / median(git)).toFixed(2)}× (goal ≤ 3×)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
