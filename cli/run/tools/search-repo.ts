import { MAX_REGEX_LENGTH, SEARCH_LINE_CHARS } from "../../../shared/limits.js";
import { searchRepoSpec } from "../../../shared/tools/search-repo.js";
import type { ToolArgs } from "../../../shared/tools/spec.js";
import { defineTool, fail, succeed, type ToolContext, type ToolFailure, type ToolResult } from "./define.js";
import { checkGlob, readableRefusal, visibleFiles } from "./files.js";
import { RegexWorker } from "./regex-worker.js";

/** Files sandbox-checked and read at once; their results are still reported in path order. */
const SEARCH_READ_BATCH = 32;

/**
 * Patterns known to backtrack exponentially: a quantified group that itself holds a
 * quantifier (`(a+)+`, `(\w*)*`, `(a{1,9}){2,}`), and backreferences. Anything that slips
 * past this still runs under a time budget.
 */
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*(?:[+*]|\{\d+,?\d*\})(?:[^()\\]|\\.)*\)(?:[+*]|\{\d+,?\d*\})/;
const BACKREFERENCE = /\\[1-9]|\\k</;

export const searchRepoTool = defineTool(searchRepoSpec, async (args, context) => {
  let glob: ((path: string) => boolean) | null = null;
  if (args.glob !== undefined) {
    const checked = checkGlob(args.glob);
    if (!checked.ok) return fail("invalid_glob", checked.message);
    glob = checked.match;
  }
  let regex: RegExp | null = null;
  if (args.regex) {
    const compiled = compileGuarded(args.pattern);
    if (!compiled.ok) return compiled;
    regex = compiled.regex;
  }
  const cap = context.limits.searchMatches;
  const worker = regex ? new RegexWorker() : undefined;
  try {
    return await search(args, context, glob, regex, worker, cap);
  } finally {
    worker?.close();
  }
});

async function search(
  args: ToolArgs<typeof searchRepoSpec>,
  context: ToolContext,
  glob: ((path: string) => boolean) | null,
  regex: RegExp | null,
  worker: RegexWorker | undefined,
  cap: number,
): Promise<ToolResult> {
  // Only time spent matching counts against the budget, not listing or reading files.
  let regexMillis = 0;
  const matches: string[] = [];
  let searched = 0;
  let capped = false;
  const visible = await visibleFiles(context);
  const candidates = visible.filter((path) => !glob || glob(path));
  for (let start = 0; start < candidates.length; start += SEARCH_READ_BATCH) {
    context.signal.throwIfAborted();
    const batch = candidates.slice(start, start + SEARCH_READ_BATCH);
    // The batch's files stay loaded until it is matched: their bytes count against the
    // run's read budget, which every article's parallel calls share.
    const bytes = batch.reduce((sum, path) => sum + context.draft.diskBytesToLoad(path), 0);
    const release = await context.workspace.readBudget.acquire(bytes, context.signal);
    try {
      const outcome = await searchBatch(batch);
      if (outcome) return outcome;
    } finally {
      release();
    }
    if (capped) break;
  }
  const what = `${args.regex ? "regex" : "text"} ${JSON.stringify(args.pattern)}${args.glob ? ` in ${JSON.stringify(args.glob)}` : ""}`;
  if (matches.length === 0)
    return succeed(
      `No matches for ${what} (${searched} files searched).${args.regex ? "" : " The search is literal and case-sensitive; pass regex: true for a pattern."}\n`,
    );
  const note = capped
    ? `\n[capped at ${cap} matches; there are more. Narrow the pattern or pass a glob to see the rest]\n`
    : "";
  return succeed(`${matches.join("\n")}\n${note}`);

  /** Loads and matches one batch; a result when the search must stop with it (regex time), else null. */
  async function searchBatch(batch: string[]): Promise<ToolResult | null> {
    const loaded = (
      await Promise.all(
        batch.map(async (path) => {
          // The real path must pass the sandbox too (symlinks out of the root, to denied or ignored files).
          const resolved = await context.sandbox.resolve(path);
          if (!resolved.ok || readableRefusal(resolved, visible) !== null) return null;
          const view = await context.draft.load(path, { cache: false });
          return view.kind === "text" ? { path, content: view.content } : null;
        }),
      )
    ).filter((file) => file !== null);
    const split = loaded.map(({ path, content }) => ({ path, lines: content.split(/\r?\n/) }));
    let regexHits: number[][] = [];
    if (regex && worker) {
      const remaining = context.limits.regexTimeoutMs - regexMillis;
      if (remaining <= 0) return timedOut(context.limits.regexTimeoutMs);
      const started = performance.now();
      const scan = await worker.scan(
        regex.source,
        split.map((file) => file.lines),
        cap + 1 - matches.length,
        Math.ceil(remaining),
        context.signal,
      );
      regexMillis += performance.now() - started;
      if (!scan.ok) {
        context.signal.throwIfAborted();
        return timedOut(context.limits.regexTimeoutMs);
      }
      regexHits = scan.hits;
    }
    for (const [fileIndex, { path, lines }] of split.entries()) {
      searched += 1;
      let hits: number[];
      if (regex) {
        hits = regexHits[fileIndex] ?? [];
      } else {
        hits = [];
        for (let index = 0; index < lines.length && hits.length < cap + 1 - matches.length; index++) {
          if (lines[index]!.includes(args.pattern)) hits.push(index);
        }
      }
      for (const index of hits) {
        if (matches.length === cap) {
          capped = true;
          return null;
        }
        matches.push(`${path}:${index + 1}: ${shorten(lines[index]!)}`);
      }
    }
    return null;
  }
}

function compileGuarded(pattern: string): { ok: true; regex: RegExp } | ToolFailure {
  if (pattern.length > MAX_REGEX_LENGTH)
    return fail(
      "regex_too_long",
      `The regex is longer than ${MAX_REGEX_LENGTH} characters; search for a shorter pattern.`,
    );
  if (NESTED_QUANTIFIER.test(pattern) || BACKREFERENCE.test(pattern))
    return fail(
      "regex_unsafe",
      'The regex has a quantified group containing another quantifier, or a backreference; such patterns can run for ever. Write it without nesting (for example "a+" instead of "(a+)+"), or search for literal text.',
    );
  try {
    return { ok: true, regex: new RegExp(pattern) };
  } catch (error) {
    return fail(
      "regex_invalid",
      `The regex does not compile: ${error instanceof Error ? error.message : String(error)}. Fix it, or search for literal text (regex: false).`,
    );
  }
}

function timedOut(ms: number): ToolResult {
  return fail(
    "regex_timeout",
    `The regex search took longer than ${ms} ms and was stopped. Use a simpler pattern, a glob to search fewer files, or literal text.`,
  );
}

function shorten(line: string): string {
  const trimmed = line.trim();
  return trimmed.length > SEARCH_LINE_CHARS ? `${trimmed.slice(0, SEARCH_LINE_CHARS)}…` : trimmed;
}
