import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { BENCH_CLI, random, WORDS } from "./generate.js";
import { BENCH_GIT_ENV } from "./git-env.js";

/**
 * `impact plan` end to end on a synthetic repository (20,000 Markdown articles, about
 * 80 MB; a change of 500 TypeScript files touching 2,000 symbols) against ripgrep scanning
 * the same articles for the same symbols (`rg -F -f symbols.txt docs/`), in the same run:
 * cold (no `.impact/cache/`, as on a fresh CI runner) and warm (the cache of the run
 * before). Goal: cold at most 3× ripgrep's time, under 1 GB of memory, and every article
 * ripgrep finds flagged.
 *
 * Then the cold start of `impact run` on a change that impacts nothing (the most common
 * pull request in CI) in the demo repository, against `node -e 0` and `impact --version`.
 * Goal: within 250 ms of `node -e 0`.
 *
 * ripgrep comes from the system (`apt-get install ripgrep`, `brew install ripgrep`): the
 * npm packages that wrap it download the binary from outside the registry when installed.
 * Without it the plan's figures are printed without a baseline, and the bench says so.
 */
const ARTICLES = 20_000;
const ARTICLE_BYTES = 4_000;
const FILES = 500;
const SYMBOLS_PER_FILE = 4;
const RUNS = 3;
/** Cold starts are short and noisy: more runs, and the median beside the best. */
const START_RUNS = 7;
const START_GOAL_MS = 250;

const here = dirname(fileURLToPath(import.meta.url));
const GIT_ENV = { ...process.env, ...BENCH_GIT_ENV };

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

function article(next: () => number, number: number, files: number): string {
  const parts: string[] = [`# Article ${number}\n\n`];
  let size = parts[0]!.length;
  // One article in 50 names a changed symbol, as real docs would.
  const mention =
    next() < 0.02 ? symbolName(Math.floor(next() * files), Math.floor(next() * SYMBOLS_PER_FILE)) : "";
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

/**
 * Builds the benchmark repository in `dir` (two commits: the articles and code, then a
 * change to every code file) and returns the changed symbols. Smaller sizes make the same
 * kind of repository for tests.
 */
export function buildRepository(
  dir: string,
  size: { articles: number; files: number } = { articles: ARTICLES, files: FILES },
): string[] {
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, env: GIT_ENV, stdio: "ignore" });
  git("init", "-q", "-b", "main");
  // No background `git gc --auto` after the big commit: it would race the clean-up.
  git("config", "gc.auto", "0");
  const next = random(42);
  for (let number = 0; number < size.articles; number += 1) {
    const path = join(dir, "docs", `section-${number % 100}`, `article-${number}.md`);
    if (number < 100) mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, article(next, number, size.files));
  }
  mkdirSync(join(dir, "src"), { recursive: true });
  for (let file = 0; file < size.files; file += 1)
    writeFileSync(join(dir, "src", `module-${file}.ts`), codeFile(file, 0));
  git("add", "-A");
  git("commit", "-q", "-m", "base");
  for (let file = 0; file < size.files; file += 1)
    writeFileSync(join(dir, "src", `module-${file}.ts`), codeFile(file, 1));
  git("commit", "-q", "-am", "change 500 files, 2000 signatures");
  const symbols: string[] = [];
  for (let file = 0; file < size.files; file += 1)
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

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

const round = (ms: number) => Math.round(ms);
const met = (ok: boolean) => (ok ? "met" : "NOT met");

export async function run(): Promise<void> {
  console.log(
    `load average before measuring: ${loadavg()[0]?.toFixed(2)} on ${availableParallelism()} cores`,
  );
  await planAgainstRipgrep();
  await runColdStart();
}

/** `impact plan --json` in `dir` by the CLI `bin`: the measure and the impacted articles' paths. */
function plan(dir: string, bin = BENCH_CLI): Measure & { articles: Set<string> } {
  const result = measure(process.execPath, [bin, "plan", "--json", "--repo", dir], dir);
  const articles = (JSON.parse(result.stdout) as { articles: { path: string }[] }).articles;
  return { ...result, articles: new Set(articles.map((article) => article.path)) };
}

/**
 * Another build's `cli/bin.js` (such as main's) measured in the same run, each of its runs
 * right after the same run of BENCH_CLI, so that load on the machine hits both alike.
 */
const BASELINE = process.env.IMPACT_BENCH_BASELINE_CLI;

async function planAgainstRipgrep(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "impact-plan-bench-"));
  try {
    const buildStarted = performance.now();
    const symbols = buildRepository(dir);
    // Outside the repository, so the plan does not see it as a new file.
    const symbolsFile = join(dir, "..", `${basename(dir)}-symbols.txt`);
    writeFileSync(symbolsFile, `${symbols.join("\n")}\n`);
    console.log(
      `repository: ${ARTICLES} articles (~${Math.round((ARTICLES * ARTICLE_BYTES) / 1e6)} MB), ${FILES} changed files, ${symbols.length} changed symbols (built in ${round(performance.now() - buildStarted)} ms)`,
    );
    const cache = join(dir, ".impact");
    // Cold: no cache left by an earlier plan (history, article index), as on a fresh CI runner.
    const coldRuns: Measure[] = [];
    const baselineColdRuns: Measure[] = [];
    let impacted = new Set<string>();
    let baselineImpacted = new Set<string>();
    for (let attempt = 0; attempt < RUNS; attempt += 1) {
      rmSync(cache, { recursive: true, force: true });
      const result = plan(dir);
      impacted = result.articles;
      coldRuns.push(result);
      if (BASELINE) {
        rmSync(cache, { recursive: true, force: true });
        const baseline = plan(dir, BASELINE);
        baselineImpacted = baseline.articles;
        baselineColdRuns.push(baseline);
      }
    }
    const cold = best(coldRuns);
    // Warm: the cache the run before left (each build its own).
    const warmRuns: Measure[] = [];
    const baselineWarmRuns: Measure[] = [];
    for (const [bin, runs] of [
      [BENCH_CLI, warmRuns],
      ...(BASELINE ? [[BASELINE, baselineWarmRuns] as const] : []),
    ] as const) {
      rmSync(cache, { recursive: true, force: true });
      plan(dir, bin);
      for (let attempt = 0; attempt < RUNS; attempt += 1) runs.push(plan(dir, bin));
    }
    const warm = best(warmRuns);
    const describe = (name: string, figures: Measure) =>
      `${name}: ${round(figures.ms)} ms wall, ${round(figures.cpuMs)} ms CPU (best of ${RUNS}), peak ${Math.round(figures.maxKiB / 1024)} MB`;
    console.log(`${describe("impact plan, cold", cold)}, ${impacted.size} articles impacted`);
    console.log(describe("impact plan, warm", warm));
    if (BASELINE) {
      const same = [...impacted].sort().join("\n") === [...baselineImpacted].sort().join("\n");
      console.log(
        `${describe("baseline plan, cold", best(baselineColdRuns))}, ${baselineImpacted.size} articles impacted (${same ? "the same articles" : "OTHER articles"})`,
      );
      console.log(describe("baseline plan, warm", best(baselineWarmRuns)));
    }
    if (spawnSync("rg", ["--version"]).status !== 0) {
      console.log(
        "ripgrep (rg) is not installed, so the plan has no baseline here: apt-get install ripgrep (or brew install ripgrep)",
      );
      return;
    }
    const rgRuns: Measure[] = [];
    let rgLines = 0;
    for (let attempt = 0; attempt < RUNS; attempt += 1) {
      const result = measure("rg", ["-F", "-f", symbolsFile, "docs/"], dir);
      rgLines = result.stdout.split("\n").length - 1;
      rgRuns.push(result);
    }
    const rg = best(rgRuns);
    const found = measure("rg", ["-l", "-F", "-f", symbolsFile, "docs/"], dir)
      .stdout.split("\n")
      .filter((path) => path !== "");
    const missed = found.filter((path) => !impacted.has(path));
    console.log(
      `rg -F -f symbols.txt docs/: ${round(rg.ms)} ms wall, ${round(rg.cpuMs)} ms CPU (best of ${RUNS}), ${rgLines} matching lines in ${found.length} articles`,
    );
    const ratio = cold.ms / rg.ms;
    console.log(
      `cold ratio impact/rg: ${ratio.toFixed(2)}× wall (goal ≤ 3×: ${met(ratio <= 3)}), ${(cold.cpuMs / rg.cpuMs).toFixed(2)}× CPU; memory ${Math.round(cold.maxKiB / 1024)} MB (goal < 1024 MB: ${met(cold.maxKiB < 1024 * 1024)})`,
    );
    console.log(
      `warm ratio impact/rg: ${(warm.ms / rg.ms).toFixed(2)}× wall, ${(warm.cpuMs / rg.cpuMs).toFixed(2)}× CPU`,
    );
    if (BASELINE) {
      const [baseCold, baseWarm] = [best(baselineColdRuns), best(baselineWarmRuns)];
      console.log(
        `baseline ratios to rg: cold ${(baseCold.ms / rg.ms).toFixed(2)}× wall, ${(baseCold.cpuMs / rg.cpuMs).toFixed(2)}× CPU; warm ${(baseWarm.ms / rg.ms).toFixed(2)}× wall, ${(baseWarm.cpuMs / rg.cpuMs).toFixed(2)}× CPU`,
      );
    }
    console.log(
      `articles ripgrep finds that the plan flags: ${found.length - missed.length} of ${found.length} (goal all: ${met(missed.length === 0)})${missed.length > 0 ? `; missed ${missed.slice(0, 5).join(", ")}` : ""}`,
    );
    rmSync(symbolsFile, { force: true });
  } finally {
    rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  }
}

/**
 * `impact run` on a doc-neutral change in the demo repository (a new file no article
 * watches or names), against `node -e 0` (the floor) and `impact --version` (the CLI's own
 * start), each as a fresh process, interleaved so that load on the machine hits all three.
 */
async function runColdStart(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "impact-start-bench-"));
  try {
    const demo = pathToFileURL(join(here, "..", "..", "examples", "demo", "demo.mjs")).href;
    const { buildDemoRepository } = (await import(demo)) as { buildDemoRepository: (dir: string) => void };
    buildDemoRepository(dir);
    writeFileSync(join(dir, "build.txt"), "a file no article watches or names\n");
    execFileSync("git", ["add", "build.txt"], { cwd: dir, env: GIT_ENV });
    execFileSync("git", ["commit", "-q", "-m", "doc-neutral"], { cwd: dir, env: GIT_ENV });
    const check = plan(dir);
    if (check.articles.size > 0)
      throw new Error(`the doc-neutral change impacts ${[...check.articles].join(", ")}`);
    const times: Record<"run" | "node" | "version" | "baselineRun" | "baselineVersion", number[]> = {
      run: [],
      node: [],
      version: [],
      baselineRun: [],
      baselineVersion: [],
    };
    for (let attempt = 0; attempt < START_RUNS; attempt += 1) {
      times.node.push(measure(process.execPath, ["-e", "0"], dir).ms);
      times.version.push(measure(process.execPath, [BENCH_CLI, "--version"], dir).ms);
      times.run.push(measure(process.execPath, [BENCH_CLI, "run", "--quiet"], dir).ms);
      if (!BASELINE) continue;
      times.baselineVersion.push(measure(process.execPath, [BASELINE, "--version"], dir).ms);
      times.baselineRun.push(measure(process.execPath, [BASELINE, "run", "--quiet"], dir).ms);
    }
    const show = (values: number[]) =>
      `${round(Math.min(...values))} ms best, ${round(median(values))} ms median`;
    console.log(`impact run, doc-neutral change (demo repository): ${show(times.run)} (${START_RUNS} runs)`);
    console.log(`node -e 0: ${show(times.node)}`);
    console.log(`impact --version: ${show(times.version)}`);
    if (BASELINE) {
      console.log(
        `baseline impact run: ${show(times.baselineRun)}; baseline impact --version: ${show(times.baselineVersion)}`,
      );
      console.log(
        `baseline impact run − node -e 0: ${round(Math.min(...times.baselineRun) - Math.min(...times.node))} ms`,
      );
    }
    const over = Math.min(...times.run) - Math.min(...times.node);
    console.log(
      `impact run − node -e 0: ${round(over)} ms (goal ≤ ${START_GOAL_MS} ms: ${met(over <= START_GOAL_MS)}); impact run − impact --version: ${round(Math.min(...times.run) - Math.min(...times.version))} ms`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  }
}
