import type { ChangedFile } from "../../../shared/changeset.js";
import { closesFence, type Fence, measureIndent, openFence } from "../../../shared/markdown/fences.js";
import { includesText, textOf } from "./article-text.js";
import { perChangeSet } from "./per-file.js";
import type { ArticleSignalInput } from "./signal.js";
import { hunkAt } from "./stale.js";
import { REASON_SCORES } from "./weights.js";

/** A name shorter than this is a word of a sentence or another tool's (`go`, `rg`). */
const MIN_PROGRAM_LENGTH = 3;
/** An example program, a test or a fixture is no command the docs tell a reader to run. */
const NOT_A_PRODUCT = /(?:^|\/)(?:examples?|tests?|testdata|fixtures?|benches|_?internal)\//;

export interface RemovedProgram {
  name: string;
  file: string;
  hunk?: string | undefined;
}

/**
 * The program a file makes, by its path and text: a Go `package main` file makes the program
 * named by its folder (`cobra/main.go`, `cmd/task/task.go`), a Rust binary target under
 * `src/bin/` the one named by its file or folder (`src/bin/mdbook.rs`, `src/bin/mdbook/main.rs`).
 */
function programOf(path: string, lines: readonly string[]): string | undefined {
  if (NOT_A_PRODUCT.test(path)) return undefined;
  const parts = path.split("/");
  if (path.endsWith(".go") && !path.endsWith("_test.go") && parts.length >= 2) {
    if (!lines.some((line) => /^package\s+main\s*$/.test(line))) return undefined;
    return parts[parts.length - 2];
  }
  const bin = /(?:^|\/)src\/bin\/([\w-]+)(?:\.rs|\/main\.rs)$/.exec(path);
  return bin?.[1];
}

/** The lines a file version holds as far as its hunks show it (a deleted or added file: all of them). */
function sideLines(file: ChangedFile, side: "-" | "+"): string[] {
  return file.hunks.flatMap((hunk) =>
    hunk.lines.filter((line) => line[0] === side).map((line) => line.slice(1)),
  );
}

/**
 * Programs the change deletes: every file making one is deleted, and no file the change adds
 * makes one of the same name (a program moved to another folder is still there). A program
 * spans files: the change is read once per plan, for the lookups and the signals.
 */
export const removedPrograms = perChangeSet(programsDeleted);

function programsDeleted(evidence: readonly ChangedFile[]): RemovedProgram[] {
  const deleted = new Map<string, RemovedProgram>();
  const kept = new Set<string>();
  for (const file of evidence) {
    if (file.binary) continue;
    if (file.status === "deleted") {
      const name = programOf(file.path, sideLines(file, "-"));
      if (name && name.length >= MIN_PROGRAM_LENGTH && !deleted.has(name))
        deleted.set(name, { name, file: file.path, hunk: hunkAt(file, undefined) });
    } else {
      // A file of the program left in place (modified) or added elsewhere: the program stays.
      const name = programOf(file.path, file.status === "added" ? sideLines(file, "+") : ["package main"]);
      if (name) kept.add(name);
    }
  }
  return [...deleted.values()].filter((program) => !kept.has(program.name));
}

/** What the rule needs an article to hold before it is read: the programs' names. */
export function removedProgramLookups(programs: readonly RemovedProgram[]): string[] {
  return programs.map((program) => program.name);
}

/**
 * The first line running `name` with an argument: at the start of a command in a fenced code
 * block (after a `$` prompt or not), or an inline code span starting with it (`cobra init`).
 */
function lineRunning(lines: readonly string[], name: string): number | undefined {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const inBlock = new RegExp(`^\\s*(?:[$>]\\s*)?${escaped}\\s+[\\w-]`);
  const inSpan = new RegExp(`\`${escaped}\\s+[\\w-][^\`]*\``);
  let fence: Fence | null = null;
  for (const [index, line] of lines.entries()) {
    if (fence) {
      if (closesFence(fence, line)) fence = null;
      else if (inBlock.test(line)) return index + 1;
      continue;
    }
    const { columns, offset } = measureIndent(line);
    fence = columns <= 3 ? openFence(line.slice(offset)) : null;
    if (!fence && inSpan.test(line)) return index + 1;
  }
  return undefined;
}

/**
 * reference (program): the article runs a command-line program (`cobra add completion`) that
 * the change deleted (its Go `package main` folder, its Rust `src/bin` target): the command
 * it gives no longer exists.
 */
export function removedProgramSignals(input: ArticleSignalInput): void {
  const programs = removedPrograms(input.evidence);
  if (programs.length === 0) return;
  for (const article of input.articles) {
    const hits = programs.filter((program) => includesText(article.content, program.name));
    if (hits.length === 0) continue;
    const lines = textOf(article.content).split(/\r?\n/);
    for (const program of hits) {
      const line = lineRunning(lines, program.name);
      if (line === undefined) continue;
      input.sink.add({
        article: article.path,
        kind: "reference",
        source: program.file,
        detail: `runs ${program.name} (program, deleted)`,
        score: REASON_SCORES.removedProgram,
        stale: { terms: [], line, hunk: program.hunk },
      });
    }
  }
}
