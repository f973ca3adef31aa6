import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { extractSymbols, fragment, languageOf, type Parsers } from "../cli/plan/symbols/extract-symbols.js";
import { javascriptDeclarations, loadJavaScriptParser } from "../cli/plan/symbols/javascript.js";
import { typescriptCompiler, typescriptDeclarations } from "../cli/plan/symbols/typescript.js";
import type { ChangedFile } from "../shared/changeset.js";
import { parseUnifiedDiff } from "../shared/diff/parse.js";

/**
 * Does oxc's reading of TS/JS (cli/plan/symbols/javascript.ts) agree with the TypeScript
 * compiler's (typescript.ts)? Over every TS/JS file git tracks in each repository named on
 * the command line (default: this one):
 * - declarations: the same names, kinds, paths, lines, segments, signatures, defaults,
 *   bodies and doc comments, file by file, or oxc declines the file (a syntax error) and
 *   the compiler reads it, as in a plan;
 * - changed symbols, as the detector gets them, for the last commits that changed TS/JS
 *   files: from whole files at both sides, and from the hunks alone (a `--diff` input).
 *
 * `npm run bench:agreement -- /path/to/repo …`; prints the counts and the first
 * differences, and exits 1 when anything differs.
 */
const COMMITS = 40;
const SHOWN = 5;

const parse = await loadJavaScriptParser();
const compiler = typescriptCompiler();
const reference: Parsers = { typescript: compiler, grammars: {} };
const withOxc: Parsers = { javascript: parse, typescript: compiler, grammars: {} };
const here = join(import.meta.dirname, "..", "..");
const roots = process.argv.slice(2).length > 0 ? process.argv.slice(2) : [here];
let failed = false;

const git = (root: string, ...args: string[]) =>
  execFileSync("git", ["-C", root, ...args], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });

for (const root of roots) {
  const files = git(root, "ls-files", "-z")
    .split("\0")
    .filter((path) => path !== "" && languageOf(path) === "typescript");
  const counts = { files: 0, agree: 0, declined: 0, differ: 0, declarations: 0 };
  const differences: string[] = [];
  for (const path of files) {
    let text: string;
    try {
      text = readFileSync(join(root, path), "utf8");
    } catch {
      continue;
    }
    counts.files += 1;
    const expected = typescriptDeclarations(compiler, text, path);
    const actual = javascriptDeclarations(parse, text, path);
    counts.declarations += expected.length;
    if (actual === undefined) counts.declined += 1;
    else if (isDeepStrictEqual(actual, expected)) counts.agree += 1;
    else {
      counts.differ += 1;
      differences.push(`${path}: ${firstDifference(expected, actual)}`);
    }
  }
  console.log(
    `${root}: ${counts.files} TS/JS files, ${counts.declarations} declarations; oxc agrees on ${counts.agree}, differs on ${counts.differ}, declines ${counts.declined} (read by the compiler)`,
  );
  const changes = changedSymbolAgreement(root);
  console.log(
    `  last ${changes.commits} commits changing TS/JS: ${changes.files} changed files; changed symbols from whole files agree on ${changes.wholeAgree}/${changes.files}, from hunks alone on ${changes.fragmentAgree}/${changes.files} (oxc read ${changes.fragmentsByOxc} of ${changes.files * 2} hunk sides itself, the compiler the rest)`,
  );
  differences.push(...changes.differences);
  for (const difference of differences.slice(0, SHOWN)) console.log(`  differs: ${difference}`);
  if (differences.length > 0) failed = true;
}
process.exit(failed ? 1 : 0);

function changedSymbolAgreement(root: string) {
  const result = {
    commits: 0,
    files: 0,
    wholeAgree: 0,
    fragmentAgree: 0,
    fragmentsByOxc: 0,
    differences: [] as string[],
  };
  const commits = git(
    root,
    "log",
    `-n${COMMITS}`,
    "--no-merges",
    "--format=%H",
    "--",
    "*.ts",
    "*.js",
    "*.mjs",
    "*.cjs",
    "*.tsx",
  )
    .split("\n")
    .filter((sha) => sha !== "");
  for (const commit of commits) {
    let diff: string;
    try {
      diff = git(root, "diff", "--no-color", "--find-renames", `${commit}~1`, commit);
    } catch {
      continue; // the first commit
    }
    result.commits += 1;
    for (const file of parseUnifiedDiff(diff)) {
      if (languageOf(file.path) !== "typescript" || file.binary || file.hunks.length === 0) continue;
      result.files += 1;
      const before = file.status === "added" ? "" : show(root, `${commit}~1`, file.oldPath ?? file.path);
      const after = file.status === "deleted" ? "" : show(root, commit, file.path);
      const whole = compare(file, { before, after });
      if (whole === undefined) result.wholeAgree += 1;
      else result.differences.push(`${commit.slice(0, 8)} ${file.path} (whole files): ${whole}`);
      const fromHunks = compare(file, {});
      if (fromHunks === undefined) result.fragmentAgree += 1;
      else result.differences.push(`${commit.slice(0, 8)} ${file.path} (hunks): ${fromHunks}`);
      for (const side of ["-", "+"] as const) {
        if (javascriptDeclarations(parse, fragment(file, side), file.path) !== undefined)
          result.fragmentsByOxc += 1;
      }
    }
  }
  return result;
}

function compare(file: ChangedFile, sides: { before?: string; after?: string }): string | undefined {
  const expected = extractSymbols({ file, ...sides, parsers: reference });
  const actual = extractSymbols({ file, ...sides, parsers: withOxc });
  return isDeepStrictEqual(actual, expected) ? undefined : firstDifference(expected, actual);
}

function show(root: string, revision: string, path: string): string {
  try {
    return git(root, "show", `${revision}:${path}`);
  } catch {
    return "";
  }
}

function firstDifference(expected: readonly unknown[], actual: readonly unknown[]): string {
  for (let index = 0; index < Math.max(expected.length, actual.length); index += 1) {
    if (!isDeepStrictEqual(expected[index], actual[index])) {
      return `#${index}: compiler ${JSON.stringify(expected[index])} / oxc ${JSON.stringify(actual[index])}`;
    }
  }
  return "equal";
}
