import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentToolHost } from "../cli/run/agent-tool-host.js";
import { Workspace } from "../cli/run/workspace.js";

const FILES = 2_000;
const LINES = 60;
const ROUNDS = 5;

/**
 * search_repo through the tool host (sandbox check per file, overlay-aware reads, caps)
 * against a baseline of plain readFile + includes over the same file list.
 */
export async function run(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "impact-bench-host-"));
  try {
    const paths: string[] = [];
    for (let index = 0; index < FILES; index++) {
      const path = `src/m${index % 40}/file${index}.ts`;
      mkdirSync(join(root, `src/m${index % 40}`), { recursive: true });
      const body = Array.from({ length: LINES }, (_, line) => `export const value${line} = ${index * line};`);
      if (index === FILES - 1) body.push("export const needle = 1;");
      writeFileSync(join(root, path), `${body.join("\n")}\n`);
      paths.push(path);
    }
    const git = (...args: string[]) => execFileSync("git", ["-C", root, ...args], { stdio: "ignore" });
    git("init", "-q");
    git("add", "-A");

    const baseline = async () => {
      let found = 0;
      for (const path of paths) {
        for (const line of readFileSync(join(root, path), "utf8").split("\n"))
          if (line.includes("needle")) found++;
      }
      return found;
    };
    const hosted = async () => {
      // A fresh workspace each round: no warm file cache, as in a new run.
      const workspace = new Workspace(root);
      const host = new AgentToolHost({
        root,
        workspace,
        articlePath: "docs/a.md",
        changedFiles: [],
        docsGlobs: ["docs/**/*.md"],
        allowCreate: false,
      });
      const [result] = await host.execute(
        [{ id: "b", type: "function", function: { name: "search_repo", arguments: '{"pattern":"needle"}' } }],
        new AbortController().signal,
      );
      host.abandon();
      return result?.content.includes("needle") ? 1 : 0;
    };
    const time = async (fn: () => Promise<number>) => {
      await fn();
      const start = process.hrtime.bigint();
      for (let round = 0; round < ROUNDS; round++)
        if ((await fn()) !== 1) throw new Error("needle not found");
      return Number(process.hrtime.bigint() - start) / 1e6 / ROUNDS;
    };
    const base = await time(baseline);
    const host = await time(hosted);
    console.log(`search_repo over ${FILES} files × ${LINES} lines (mean of ${ROUNDS})`);
    console.log(`  baseline readFile+includes: ${base.toFixed(1)} ms`);
    console.log(`  tool host search_repo:      ${host.toFixed(1)} ms`);
    console.log(`  ratio host/baseline:        ${(host / base).toFixed(2)}x`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
