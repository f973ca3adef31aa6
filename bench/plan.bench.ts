import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { BENCH_GIT_ENV } from "./git-env.js";

/**
 * `impact plan` end to end on a synthetic repository (20,000 Markdown articles, about
 * 80 MB; a change of 500 TypeScript files touching 2,000 symbols) against ripgrep scanning
 * the same articles for the same symbols (`rg -F -f symbols.txt docs/`), in the same run.
 * Goal: at most 3× ripgrep's time and under 1 GB of memory.
 */
const ARTICLES = 20_000;
const ARTICLE_BYTES = 4_000;
const FILES = 500;
const SYMBOLS_PER_FILE = 4;
const RUNS = 3;

const here = dirname(fileURLToPath(import.meta.url));
const GIT_ENV = { ...process.env, ...BENCH_GIT_ENV };

/** A deterministic pseudo-random generator, so every run builds the same repository. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const WORDS =
  "the a to of and in is for with that this on be as it by are from or an can you your when each will which if one all use set value file run order data build change page read note see step user item list key case".split(
    " ",
  );

function symbolName(file: number, index: number): string {
  return `compute${["Index", "Route", "Budget", "Schema"][index]}For${file}Module`;
}

function codeFile(file: number, version: 0 | 1): string {
  const lines: string[] = [];
  for (let index = 0; index < SYMBOLS_PER_FILE; index += 1) {
    const extra = version === 1 ? ", options?: { strict: boolean }" : "";
    lines.push(`export function ${symbolName(file, index)}(input: string${extra}): string {`);
    lines.push(`  return input.trim() + "${file}-${index}";`, "}", "");
  }
  return lines.join("\n");
}

function article(next: () => number, number: number): string {
  const parts: string[] = [`# Article ${number}\n\n`];
  let size = parts[0]!.length;
  // One article in 50 names a changed symbol, as real docs would.
  const mention =
    next() < 0.02 ? symbolName(Math.floor(next() * FILES), Math.floor(next() * SYMBOLS_PER_FILE)) : "";
  while (size < ARTICLE_BYTES) {
    const words: string[] = [];
    for (let count = 0; count < 14; count += 1) words.push(WORDS[Math.floor(next() * WORDS.length)]!);
    if (mention && size > ARTICLE_BYTES / 2 && !parts.some((part) => part.includes(mention)))
      words.push(`\`${mention}()\``);
    const sentence = `${words.join(" ")}.\n`;
    parts.push(sentence);
    size += sentence.length;
  }
  return parts.join("");
}

export function buildRepository(dir: string): string[] {
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, env: GIT_ENV, stdio: "ignore" });
  git("init", "-q", "-b", "main");
  // No background `git gc --auto` after the big commit: it would race the clean-up.
  git("config", "gc.auto", "0");
  const next = random(42);
  for (let number = 0; number < ARTICLES; number += 1) {
    const path = join(dir, "docs", `section-${number % 100}`, `article-${number}.md`);
    if (number < 100) mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, article(next, number));
  }
  mkdirSync(join(dir, "src"), { recursive: true });
  for (let file = 0; file < FILES; file += 1)
    writeFileSync(join(dir, "src", `module-${file}.ts`), codeFile(file, 0));
  git("add", "-A");
  git("commit", "-q", "-m", "base");
  for (let file = 0; file < FILES; file += 1)
    writeFileSync(join(dir, "src", `module-${file}.ts`), codeFile(file, 1));
  git("commit", "-q", "-am", "change 500 files, 2000 signatures");
  const symbols: string[] = [];
  for (let file = 0; file < FILES; file += 1)
    for (let index = 0; index < SYMBOLS_PER_FILE; index += 1) symbols.push(symbolName(file, index));
  return symbols;
}

interface Measure {
  ms: number;
  /** User + system CPU time. */
  cpuMs: number;
  maxKiB: number;
}

/** Wall time, CPU time and peak memory (KiB) of a command, through GNU time. */
function measure(command: string, args: string[], cwd: string): Measure & { stdout: string } {
  const started = performance.now();
  const result = spawnSync("/usr/bin/time", ["-f", "%U %S %M", command, ...args], {
    cwd,
    encoding: "utf8",
    maxBuffer: 512 * 1024 * 1024,
  });
  const ms = performance.now() - started;
  if (result.status !== 0 && result.status !== 1) {
    throw new Error(`${command} failed (${result.status}): ${result.stderr.slice(0, 500)}`);
  }
  const [user = 0, system = 0, maxKiB = 0] = (result.stderr.trim().split("\n").at(-1) ?? "")
    .split(" ")
    .map(Number);
  return { ms, cpuMs: (user + system) * 1000, maxKiB, stdout: result.stdout };
}

function best(runs: Measure[]): Measure {
  return {
    ms: Math.min(...runs.map((run) => run.ms)),
    cpuMs: Math.min(...runs.map((run) => run.cpuMs)),
    maxKiB: Math.max(...runs.map((run) => run.maxKiB)),
  };
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "impact-plan-bench-"));
  try {
    const buildStarted = performance.now();
    const symbols = buildRepository(dir);
    writeFileSync(join(dir, "symbols.txt"), `${symbols.join("\n")}\n`);
    console.log(
      `load average before measuring: ${loadavg()[0]?.toFixed(2)} on ${availableParallelism()} cores`,
    );
    console.log(
      `repository: ${ARTICLES} articles (~${Math.round((ARTICLES * ARTICLE_BYTES) / 1e6)} MB), ${FILES} changed files, ${symbols.length} changed symbols (built in ${Math.round(performance.now() - buildStarted)} ms)`,
    );
    const bin = join(here, "..", "cli", "bin.js");
    const impactRuns: Measure[] = [];
    let impacted = 0;
    for (let attempt = 0; attempt < RUNS; attempt += 1) {
      const result = measure(process.execPath, [bin, "plan", "--json", "--repo", dir], dir);
      impacted = (JSON.parse(result.stdout) as { articles: unknown[] }).articles.length;
      impactRuns.push(result);
    }
    const impact = best(impactRuns);
    console.log(
      `impact plan: ${Math.round(impact.ms)} ms wall, ${Math.round(impact.cpuMs)} ms CPU (best of ${RUNS}), peak ${Math.round(impact.maxKiB / 1024)} MB, ${impacted} articles impacted`,
    );
    const hasRipgrep = spawnSync("rg", ["--version"]).status === 0;
    if (!hasRipgrep) {
      console.log("ripgrep (rg) is not installed, so there is no baseline: apt-get install -y ripgrep");
      return;
    }
    const rgRuns: Measure[] = [];
    let rgLines = 0;
    for (let attempt = 0; attempt < RUNS; attempt += 1) {
      const result = measure("rg", ["-F", "-f", "symbols.txt", "docs/"], dir);
      rgLines = result.stdout.split("\n").length - 1;
      rgRuns.push(result);
    }
    const rg = best(rgRuns);
    console.log(
      `rg -F -f symbols.txt docs/: ${Math.round(rg.ms)} ms wall, ${Math.round(rg.cpuMs)} ms CPU (best of ${RUNS}), ${rgLines} matching lines`,
    );
    const ratio = impact.ms / rg.ms;
    console.log(
      `ratio impact/rg: ${ratio.toFixed(2)}× wall (goal ≤ 3×: ${ratio <= 3 ? "met" : "NOT met"}), ${(impact.cpuMs / rg.cpuMs).toFixed(2)}× CPU; memory ${Math.round(impact.maxKiB / 1024)} MB (goal < 1024 MB: ${impact.maxKiB < 1024 * 1024 ? "met" : "NOT met"})`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  }
}
