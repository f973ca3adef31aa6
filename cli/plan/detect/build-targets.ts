import type { ChangedFile } from "../../../shared/changeset.js";
import { longestPart } from "../matcher.js";
import { includesText, textOf } from "./article-text.js";
import type { ArticleSignalInput } from "./signal.js";
import { hunkAt } from "./stale.js";
import { REASON_SCORES } from "./weights.js";

/**
 * The task runners whose targets a page tells the reader to run, each with the file that
 * declares them, how a declaring line reads, and the commands that run one.
 */
const RUNNERS: readonly {
  file: RegExp;
  /** The names a line declares as targets (none for other lines). */
  declares: (line: string) => string[];
  /** The commands a page writes before a target's name (`make`, `npm run`). */
  commands: readonly string[];
}[] = [
  {
    file: /(?:^|\/)(?:GNUmakefile|[Mm]akefile|[^/]+\.mk)$/,
    // `docs-deps:` or `build test: deps`; not `VAR := x`, `.PHONY:`, `%:` or a recipe line.
    declares: (line) => {
      const match = /^([A-Za-z0-9][\w.-]*(?:[ \t]+[A-Za-z0-9][\w.-]*)*)[ \t]*::?(?!=)/.exec(line);
      return match ? match[1]!.split(/[ \t]+/) : [];
    },
    commands: ["make"],
  },
  {
    file: /(?:^|\/)[Jj]ustfile$/,
    declares: (line) => {
      const match = /^@?([A-Za-z0-9][\w-]*)(?:[ \t]+[^:=]*)?:(?!=)/.exec(line);
      return match ? [match[1]!] : [];
    },
    commands: ["just"],
  },
  {
    file: /(?:^|\/)package\.json$/,
    // A script: `"docs:build": "vitepress build"` (a dependency's value is a version, never a command).
    declares: (line) => {
      const match =
        /^\s*"([\w:.-]+)"\s*:\s*"(?![~^<>=]*\s*\d|\*"|latest"|workspace:|npm:|github:|git\+|file:|link:)/.exec(
          line,
        );
      return match ? [match[1]!] : [];
    },
    commands: ["npm run", "yarn run", "yarn", "pnpm run", "pnpm", "bun run"],
  },
  {
    file: /(?:^|\/)Taskfile(?:\.dist)?\.ya?ml$/,
    // A task of the `tasks:` map, two spaces in.
    declares: (line) => {
      const match = /^ {2}([\w:.-]+):\s*$/.exec(line);
      return match ? [match[1]!] : [];
    },
    commands: ["task"],
  },
];

/** A name shorter than this is too likely a word of a sentence after "make" (`make it`). */
const MIN_TARGET_LENGTH = 3;

export interface RemovedTarget {
  name: string;
  file: string;
  commands: readonly string[];
  hunk?: string | undefined;
}

/** Targets a change removed from a task runner's file (a Makefile, a justfile, package.json's scripts, a Taskfile): declared on a removed line, on no line left. */
export function removedTargets(evidence: readonly ChangedFile[]): RemovedTarget[] {
  const found: RemovedTarget[] = [];
  for (const file of evidence) {
    const runner = RUNNERS.find((each) => each.file.test(file.path));
    if (!runner || file.binary || file.status !== "modified") continue;
    const removed = new Map<string, number>();
    const kept = new Set<string>();
    for (const hunk of file.hunks) {
      let oldLine = hunk.oldStart;
      for (const line of hunk.lines) {
        const marker = line[0];
        for (const name of runner.declares(line.slice(1))) {
          if (marker === "-") removed.set(name, oldLine);
          else if (marker === "+" || marker === " ") kept.add(name);
        }
        if (marker === " " || marker === "-") oldLine += 1;
      }
    }
    for (const [name, line] of removed) {
      if (kept.has(name) || name.length < MIN_TARGET_LENGTH) continue;
      found.push({ name, file: file.path, commands: runner.commands, hunk: hunkAt(file, line) });
    }
  }
  return found;
}

/** What the rule needs an article to hold before it is read: each removed target's longest word (`docs` of `docs:dev`). */
export function removedTargetLookups(targets: readonly RemovedTarget[]): string[] {
  return [...new Set(targets.map((target) => longestPart(target.name)))];
}

/** What a line running the target with one of its commands reads like (`make -C docs docs-deps`). */
function runPattern(target: RemovedTarget): RegExp {
  const name = target.name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const commands = target.commands.map((command) => command.replace(/ /g, "\\s+")).join("|");
  // The command, its options (`make -C docs`), then the name as a whole word.
  return new RegExp(
    `(?:^|[^\\w-])(?:${commands})(?:\\s+-{1,2}[\\w-]+(?:[= ][^\\s-]\\S*)?)*\\s+${name}(?![\\w-])`,
  );
}

/**
 * reference (target): the article tells the reader to run a target (`make docs-deps`,
 * `npm run docs:build`) that the change removed from its Makefile, justfile, package.json
 * scripts or Taskfile. The command the page gives no longer exists.
 */
export function removedTargetSignals(input: ArticleSignalInput): void {
  const targets = removedTargets(input.evidence);
  if (targets.length === 0) return;
  // Each target's pattern once, not once per article.
  const runs = targets.map((target) => ({ target, pattern: runPattern(target) }));
  for (const article of input.articles) {
    const hits = runs.filter(({ target }) => includesText(article.content, target.name));
    if (hits.length === 0) continue;
    const lines = textOf(article.content).split(/\r?\n/);
    for (const { target, pattern } of hits) {
      const index = lines.findIndex((text) => pattern.test(text));
      if (index < 0) continue;
      const line = index + 1;
      input.sink.add({
        article: article.path,
        kind: "reference",
        source: target.file,
        detail: `runs ${target.commands[0]} ${target.name} (target, removed)`,
        score: REASON_SCORES.removedTarget,
        stale: { terms: [], line, hunk: target.hunk },
      });
    }
  }
}
