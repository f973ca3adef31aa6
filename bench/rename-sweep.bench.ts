import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { BENCH_CLI, random, WORDS } from "./generate.js";
import { BENCH_GIT_ENV } from "./git-env.js";

/**
 * A big rename: does the plan flag every article that still names an old name? A synthetic
 * repository of 2,000 TypeScript files, each exporting 4 functions, and 20,000 articles of
 * about 4 KB in which about one sentence in fifty names one of those functions in backticks;
 * one commit renames the 4 functions of every fourth file (2,000 names in 500 files). Every
 * article naming an old name is wrong after that commit. A plain scan of the articles for
 * the old names (what `rg -w -F -f old-names.txt docs/` finds) is the answer; the bench
 * prints the share of those articles the plan flags. Goal: at least 90 %.
 *
 * Building the repository (80 MB of articles, two commits) takes most of a minute, so it is
 * kept under node_modules/.cache/impact-rename-sweep/, keyed by SHAPE; a later run reuses it.
 * `IMPACT_RENAME_ARTICLES=N` builds a smaller one (its own cache entry).
 */
const FILES = 2_000;
const FUNCTIONS_PER_FILE = 4;
const ARTICLE_BYTES = 4_000;
/** One sentence in this many names a function. */
const SENTENCES_PER_MENTION = 50;
/** Every this-many-th file has its functions renamed. */
const RENAMED_EVERY = 4;
const GOAL = 0.9;
/** Bumped when the generated repository changes, so a stale cache is rebuilt. */
const SHAPE = 1;

const here = dirname(fileURLToPath(import.meta.url));
const GIT_ENV = { ...process.env, ...BENCH_GIT_ENV };

const VERBS = ["resolve", "render", "measure", "collect"];
const functionName = (file: number, index: number, renamed: boolean) =>
  `${VERBS[index]}${renamed ? "Entry" : "Item"}Of${file}Unit`;
const isRenamed = (file: number) => file % RENAMED_EVERY === 0;

function codeFile(file: number, after: boolean): string {
  const lines: string[] = [];
  for (let index = 0; index < FUNCTIONS_PER_FILE; index += 1) {
    lines.push(
      `export function ${functionName(file, index, after && isRenamed(file))}(input: string): string {`,
    );
    lines.push(`  return input.trim() + "${file}-${index}";`, "}", "");
  }
  return lines.join("\n");
}

function article(next: () => number, number: number): string {
  const parts: string[] = [`# Article ${number}\n\n`];
  let size = parts[0]!.length;
  while (size < ARTICLE_BYTES) {
    const words: string[] = [];
    for (let count = 0; count < 12; count += 1) words.push(WORDS[Math.floor(next() * WORDS.length)]!);
    if (next() < 1 / SENTENCES_PER_MENTION) {
      const name = functionName(Math.floor(next() * FILES), Math.floor(next() * FUNCTIONS_PER_FILE), false);
      words.splice(6, 0, `\`${name}()\``);
    }
    const sentence = `${words.join(" ")}.\n`;
    parts.push(sentence);
    size += sentence.length;
  }
  return parts.join("");
}

/** The repository at `dir`, built unless the cache has it: articles and code, then the rename. */
function repository(articles: number): string {
  const cache = join(here, "..", "..", "node_modules", ".cache", "impact-rename-sweep");
  const dir = join(cache, `shape-${SHAPE}-${articles}`);
  if (existsSync(join(dir, ".git", "impact-bench-complete"))) return dir;
  rmSync(dir, { recursive: true, force: true });
  const building = `${dir}.building`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(building, { recursive: true });
  const git = (...args: string[]) =>
    execFileSync("git", args, { cwd: building, env: GIT_ENV, stdio: "ignore", maxBuffer: 64 * 1024 * 1024 });
  git("init", "-q", "-b", "main");
  git("config", "gc.auto", "0");
  const next = random(7);
  for (let number = 0; number < articles; number += 1) {
    const path = join(building, "docs", `section-${number % 100}`, `article-${number}.md`);
    if (number < 100) mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, article(next, number));
  }
  mkdirSync(join(building, "src"), { recursive: true });
  for (let file = 0; file < FILES; file += 1)
    writeFileSync(join(building, "src", `unit-${file}.ts`), codeFile(file, false));
  git("add", "-A");
  git("commit", "-q", "-m", "base");
  for (let file = 0; file < FILES; file += RENAMED_EVERY)
    writeFileSync(join(building, "src", `unit-${file}.ts`), codeFile(file, true));
  git("commit", "-q", "-am", "rename the functions of every fourth file");
  writeFileSync(join(building, ".git", "impact-bench-complete"), "");
  renameSync(building, dir);
  return dir;
}

/** The articles that name an old name as a whole word: what ripgrep finds. */
function articlesNamingOldNames(dir: string): Set<string> {
  const old = new Set<string>();
  for (let file = 0; file < FILES; file += RENAMED_EVERY)
    for (let index = 0; index < FUNCTIONS_PER_FILE; index += 1) old.add(functionName(file, index, false));
  const found = new Set<string>();
  for (const section of readdirSync(join(dir, "docs"))) {
    for (const name of readdirSync(join(dir, "docs", section))) {
      const path = `docs/${section}/${name}`;
      const text = readFileSync(join(dir, path), "utf8");
      for (const match of text.matchAll(/\w+/g)) {
        if (old.has(match[0])) {
          found.add(path);
          break;
        }
      }
    }
  }
  return found;
}

export async function run(): Promise<void> {
  const articles = Number(process.env.IMPACT_RENAME_ARTICLES ?? 20_000);
  const started = performance.now();
  const dir = repository(articles);
  const built = ((performance.now() - started) / 1000).toFixed(1);
  const answer = articlesNamingOldNames(dir);
  const planStarted = performance.now();
  const result = spawnSync(process.execPath, [BENCH_CLI, "plan", "--json", "--repo", dir], {
    cwd: dir,
    encoding: "utf8",
    maxBuffer: 512 * 1024 * 1024,
  });
  const seconds = ((performance.now() - planStarted) / 1000).toFixed(1);
  if (result.status !== 0)
    throw new Error(`impact plan failed (${result.status}): ${result.stderr.slice(0, 500)}`);
  const plan = JSON.parse(result.stdout) as {
    articles: { path: string; status: string }[];
    sweeps?: { articles: { path: string }[] }[];
  };
  const flagged = new Set(
    plan.articles.filter((entry) => entry.status === "impacted").map((entry) => entry.path),
  );
  const found = [...answer].filter((path) => flagged.has(path)).length;
  const share = answer.size === 0 ? 0 : found / answer.size;
  console.log(
    `repository: ${articles} articles, ${FILES} files, ${FILES / RENAMED_EVERY} renamed (${built} s to build or reuse, cached under node_modules/.cache/impact-rename-sweep)`,
  );
  console.log(`articles naming an old name (plain scan): ${answer.size}`);
  console.log(
    `flagged by the plan: ${found} of them (${(share * 100).toFixed(1)} %), ${flagged.size} flagged in all, plan in ${seconds} s`,
  );
  console.log(`goal: at least ${GOAL * 100} % ${share >= GOAL ? "met" : "NOT met"}`);
  // The same flags as people read them: one sweep with the articles under it, not a row each.
  const grouped = new Set((plan.sweeps ?? []).flatMap((sweep) => sweep.articles.map((entry) => entry.path)));
  const text = spawnSync(process.execPath, [BENCH_CLI, "plan", "--repo", dir], {
    cwd: dir,
    encoding: "utf8",
    maxBuffer: 512 * 1024 * 1024,
  });
  console.log(
    `grouped: ${plan.sweeps?.length ?? 0} sweep(s) holding ${[...answer].filter((path) => grouped.has(path)).length} of those articles; the table is ${text.stdout.split("\n").length - 1} lines`,
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await run();
