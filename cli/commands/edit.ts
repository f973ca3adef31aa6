import { readFile } from "node:fs/promises";
import { relative, resolve, sep } from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { readIgnoredMatcher } from "../../shared/config.js";
import { applyEdits } from "../../shared/edit/engine.js";
import { forPeople } from "../../shared/edit/messages.js";
import {
  type Edit,
  EditSchema,
  type FrontmatterValue,
  type Occurrence,
  OccurrenceSchema,
  type ReplaceEdit,
} from "../../shared/edit/schema.js";
import { UsageError } from "../../shared/errors.js";
import { articleFormat } from "../../shared/formats/index.js";
import { contentHash } from "../../shared/hash.js";
import { findSection } from "../../shared/markdown/outline.js";
import { createFilePatch } from "../../shared/patch.js";
import { printable } from "../../shared/render/escape.js";
import { describeFirstIssue } from "../../shared/zod-issues.js";
import { loadConfig } from "../config.js";
import { writeIfUnchanged } from "../edit/write-back.js";
import { repositoryRoot } from "../git/repository.js";
import type { Command, CommandIo } from "../io.js";
import { SandboxPolicy } from "../run/sandbox.js";
import { resolveReadableIn } from "../run/tools/files.js";
import { Workspace } from "../run/workspace.js";

const HELP = `Usage: impact edit <path> [edits…] [--repo DIR] [--config FILE] [--dry-run] [--json]
                   [--expected-hash H] [--reason TEXT] [--verbose]

Applies edits to one file of the repository as one atomic batch (all or none), writes it
atomically and prints the unified diff. Edits apply in the order given:

  --replace OLD NEW            replace OLD, which must occur exactly once, by NEW
    --match-all                  …every occurrence (after a --replace)
    --occurrence unique|all|first|last|N   …that occurrence (after a --replace)
    --within SECTION             …searching only that section (after a --replace)
  --check TEXT / --uncheck TEXT  tick / untick the one checklist item containing TEXT
  --section SECTION --append TEXT | --prepend TEXT | --replace TEXT
                               add to, or replace the body of, a section ("Parent::Child")
  --set KEY=VALUE / --unset KEY  set / remove a top-level frontmatter key (VALUE is read
                               as YAML: 2 is a number, true a boolean, [a, b] a list)
  --edits FILE|-               a JSON array of edits in the edit_article shape
  -h, --help                   show this help

OLD, NEW and TEXT may be - (read standard input) or @FILE (read that file).
--reason TEXT is the reason recorded for the flag edits (default: "impact edit").
--expected-hash H refuses the batch unless the file still has hash H.
--dry-run prints the diff and writes nothing. --json prints {ok, path, hashBefore,
hashAfter, edits, applied, patch}: edits in the --edits shape, applied with their lines;
on a refusal {ok: false, path, hashBefore, error: {code, index, message}}.
--verbose adds the start of the file to a "not found" refusal.
A relative <path> is relative to --repo DIR when given, else to the current directory.

Exit codes: 0 applied (or would apply, with --dry-run); 1 an edit was rejected (the
message says why and what to do; nothing is written); 2 bad usage.
Any file the sandbox allows may be edited; .git/, the deny list and git-ignored files
(unless config readIgnored allows them) stay refused. A symlink's target is edited in place.
`;

const DEFAULT_REASON = "impact edit";

/** What the command line asked for, before TEXT arguments are read. */
interface EditRequest {
  path: string | undefined;
  repo: string | undefined;
  config: string | undefined;
  dryRun: boolean;
  json: boolean;
  expectedHash: string | undefined;
  reason: string | undefined;
  help: boolean;
  verbose: boolean;
  steps: FlagEdit[];
}

/** One edit from the flags; TEXT values are still as typed (`-`, `@FILE`). */
type FlagEdit =
  | { kind: "replace"; old: string; new: string; occurrence?: string; within?: string }
  | { kind: "section"; section: string; mode: "append" | "prepend" | "replace"; content: string }
  | { kind: "checklist"; item: string; checked: boolean }
  | { kind: "frontmatter"; key: string; value: string | null }
  | { kind: "file"; source: string };

export const command: Command = async (argv, io) => {
  const request = parseEditArgs(argv);
  if (request.help) {
    io.stdout(HELP);
    return 0;
  }
  if (request.path === undefined)
    throw new UsageError("impact edit takes the path of the file to edit (see: impact edit --help)");
  if (request.steps.length === 0)
    throw new UsageError(
      "impact edit needs at least one edit: --replace, --check, --section, --set or --edits (see: impact edit --help)",
    );

  const repoDir = resolve(io.cwd, request.repo ?? ".");
  const root = await repositoryRoot(repoDir);
  const config = await loadConfig(
    root,
    request.config === undefined ? undefined : resolve(io.cwd, request.config),
  );
  const sandbox = new SandboxPolicy({ root, deny: config.deny });
  // The path is as a person types it: relative to --repo DIR when given (as git -C DIR reads
  // paths), else to where they stand; inside the repository either way.
  const asked = relative(root, resolve(repoDir, request.path)).split(sep).join("/");
  const readIgnored = readIgnoredMatcher(config);
  const workspace = new Workspace(root, { readIgnored });
  // The read policy of every entry point: the sandbox, and no git-ignored file unless allowed.
  const resolved = await resolveReadableIn(asked, sandbox, workspace);
  if (!resolved.ok) throw new UsageError(resolved.message);
  const view = await workspace.load(resolved.path);
  const shown = JSON.stringify(resolved.path);
  if (view.kind === "missing")
    throw new UsageError(`${shown} does not exist; impact edit changes existing files`);
  if (view.kind !== "text")
    throw new UsageError(`${shown} is not a text file that can be edited (${view.kind.replace("_", " ")})`);

  const edits = withBlankLinesAround(await buildEdits(request, io), view.content, resolved.path);
  const outcome = applyEdits(view.content, edits, {
    format: articleFormat(resolved.path),
    expectedHash: request.expectedHash,
  });
  // A refusal is printed here, in people's words and with its line breaks; --json gets an object too.
  const rejected = (code: string, message: string, index: number | null = null) => {
    if (request.json)
      io.stdout(
        `${JSON.stringify({ ok: false, path: resolved.path, hashBefore: contentHash(view.content), error: { code, index, message } })}\n`,
      );
    else
      io.stderr(
        `impact edit: ${printable(resolved.path)}: ${message.split("\n").map(printable).join("\n")}\nNothing was written.\n`,
      );
    return 1;
  };
  if (!outcome.ok)
    return rejected(
      outcome.error.code,
      forPeople(outcome.error.message, { verbose: request.verbose }),
      outcome.error.index,
    );
  const patch = createFilePatch(resolved.path, view.content, outcome.content);
  if (!request.dryRun) {
    // Through a symlink, the file it leads to changes and the link stays a link.
    const written = await writeIfUnchanged(root, resolved, outcome.hashBefore, outcome.content);
    if (!written.ok && "directoryChanged" in written)
      return rejected("directory_changed", written.directoryChanged.message);
    if (!written.ok)
      return rejected(
        "changed_on_disk",
        `the file changed on disk while it was being edited (hash ${written.currentHash}, expected ${outcome.hashBefore}). Run the command again.`,
      );
  }
  if (request.json) {
    // `edits` in the edit_article shape, so that `--edits` takes them back as they are.
    const applied = outcome.applied.map(({ context: _context, ...edit }) => edit);
    io.stdout(
      `${JSON.stringify({ ok: true, path: resolved.path, hashBefore: outcome.hashBefore, hashAfter: outcome.hash, dryRun: request.dryRun, edits, applied, patch })}\n`,
    );
  } else {
    io.stdout(patch);
  }
  return 0;
};

/** Reads the flags in order: modifiers apply to the --replace before them, a --section to the mode after it. */
export function parseEditArgs(argv: string[]): EditRequest {
  const request: EditRequest = {
    path: undefined,
    repo: undefined,
    config: undefined,
    dryRun: false,
    json: false,
    expectedHash: undefined,
    reason: undefined,
    help: false,
    verbose: false,
    steps: [],
  };
  let index = 0;
  const value = (flag: string): string => {
    const next = argv[index++];
    if (next === undefined) throw new UsageError(`${flag} needs a value (see: impact edit --help)`);
    return next;
  };
  const lastReplace = (flag: string) => {
    const last = request.steps.at(-1);
    if (last?.kind !== "replace")
      throw new UsageError(
        `${flag} applies to the --replace OLD NEW right before it, and there is none (see: impact edit --help)`,
      );
    return last;
  };
  let pendingSection: string | undefined;
  while (index < argv.length) {
    const arg = argv[index++]!;
    if (pendingSection !== undefined && !["--append", "--prepend", "--replace"].includes(arg))
      throw new UsageError(
        `--section ${JSON.stringify(pendingSection)} must be followed by --append, --prepend or --replace TEXT`,
      );
    switch (arg) {
      case "--help":
      case "-h":
        request.help = true;
        break;
      case "--repo":
        request.repo = value(arg);
        break;
      case "--config":
        request.config = value(arg);
        break;
      case "--dry-run":
        request.dryRun = true;
        break;
      case "--json":
        request.json = true;
        break;
      case "--verbose":
        request.verbose = true;
        break;
      case "--expected-hash":
        request.expectedHash = value(arg);
        break;
      case "--reason":
        request.reason = value(arg);
        break;
      case "--replace":
        if (pendingSection !== undefined) {
          request.steps.push({
            kind: "section",
            section: pendingSection,
            mode: "replace",
            content: value(arg),
          });
          pendingSection = undefined;
        } else {
          const old = value(arg);
          request.steps.push({ kind: "replace", old, new: value("--replace OLD") });
        }
        break;
      case "--append":
      case "--prepend":
        if (pendingSection === undefined)
          throw new UsageError(`${arg} TEXT goes after --section SECTION (see: impact edit --help)`);
        request.steps.push({
          kind: "section",
          section: pendingSection,
          mode: arg === "--append" ? "append" : "prepend",
          content: value(arg),
        });
        pendingSection = undefined;
        break;
      case "--section":
        pendingSection = value(arg);
        break;
      case "--match-all":
        setOnce(lastReplace(arg), "occurrence", "all", arg);
        break;
      case "--occurrence":
        setOnce(lastReplace(arg), "occurrence", value(arg), arg);
        break;
      case "--within":
        setOnce(lastReplace(arg), "within", value(arg), arg);
        break;
      case "--check":
      case "--uncheck":
        request.steps.push({ kind: "checklist", item: value(arg), checked: arg === "--check" });
        break;
      case "--set": {
        const assignment = value(arg);
        const equals = assignment.indexOf("=");
        if (equals <= 0) throw new UsageError(`--set takes KEY=VALUE, got ${JSON.stringify(assignment)}`);
        request.steps.push({
          kind: "frontmatter",
          key: assignment.slice(0, equals),
          value: assignment.slice(equals + 1),
        });
        break;
      }
      case "--unset":
        request.steps.push({ kind: "frontmatter", key: value(arg), value: null });
        break;
      case "--edits":
        request.steps.push({ kind: "file", source: value(arg) });
        break;
      default:
        if (arg.startsWith("-") && arg !== "-")
          throw new UsageError(`unknown option ${arg} (see: impact edit --help)`);
        if (request.path !== undefined)
          throw new UsageError(
            `impact edit takes one path, got ${JSON.stringify(request.path)} and ${JSON.stringify(arg)}`,
          );
        request.path = arg;
    }
  }
  if (pendingSection !== undefined)
    throw new UsageError(
      `--section ${JSON.stringify(pendingSection)} must be followed by --append, --prepend or --replace TEXT`,
    );
  return request;
}

function setOnce(
  step: Extract<FlagEdit, { kind: "replace" }>,
  field: "occurrence" | "within",
  text: string,
  flag: string,
) {
  if (step[field] !== undefined)
    throw new UsageError(`${flag}: the --replace before it already has its ${field}`);
  step[field] = text;
}

/** Turns the flags into engine edits, reading `-` and `@FILE` texts and `--edits` files. */
async function buildEdits(request: EditRequest, io: CommandIo): Promise<Edit[]> {
  const reason = request.reason ?? DEFAULT_REASON;
  let stdinUsed = false;
  const text = async (raw: string): Promise<string> => {
    if (raw === "-") {
      if (stdinUsed) throw new UsageError("standard input (-) can be read only once per command");
      stdinUsed = true;
      return io.readStdin();
    }
    if (raw.startsWith("@")) return readTextFile(resolve(io.cwd, raw.slice(1)), raw);
    return raw;
  };
  const edits: Edit[] = [];
  for (const step of request.steps) {
    switch (step.kind) {
      case "replace": {
        const edit: ReplaceEdit = {
          old_string: await text(step.old),
          new_string: await text(step.new),
          reason,
        };
        if (step.occurrence !== undefined) edit.occurrence = parseOccurrence(step.occurrence);
        if (step.within !== undefined) edit.within = step.within;
        edits.push(edit);
        break;
      }
      case "section":
        edits.push({ section: step.section, mode: step.mode, content: await text(step.content), reason });
        break;
      case "checklist":
        edits.push({ checklist_item: step.item, checked: step.checked, reason });
        break;
      case "frontmatter":
        edits.push({
          frontmatter: { [step.key]: step.value === null ? null : frontmatterValue(step.value) },
          reason,
        });
        break;
      case "file":
        edits.push(...parseEditsFile(await text(step.source === "-" ? "-" : `@${step.source}`), step.source));
        break;
    }
  }
  return edits;
}

/**
 * Text a person appends to (or prepends to) a section is a block of its own: Markdown wants a
 * blank line between it and the body line it lands against (a table or a heading right after
 * a paragraph line would not start). Added where missing, unless the two lines are of one
 * list or one table, which the text then continues.
 */
function withBlankLinesAround(edits: Edit[], content: string, path: string): Edit[] {
  // reST, AsciiDoc and MDX want the same blank lines around a block; a format without sections has none to edit.
  const outlineOf = articleFormat(path).outline;
  if (outlineOf === null) return edits;
  const outline = outlineOf(content);
  const lines = content.split(/\r?\n/);
  const eol = content.includes("\r\n") ? "\r\n" : "\n";
  return edits.map((edit) => {
    if (!("section" in edit) || edit.mode === "replace" || edit.content.trim() === "") return edit;
    const found = findSection(outline, edit.section);
    if (!found.ok) return edit;
    const body: string[] = [];
    for (let line = found.section.bodyStartLine; line <= found.section.endLine; line++)
      if ((lines[line - 1] ?? "").trim() !== "") body.push(lines[line - 1]!);
    const text = edit.content.split(/\r?\n/);
    if (edit.mode === "append") {
      const neighbour = body.at(-1);
      if (neighbour === undefined || text[0]!.trim() === "" || sameBlock(neighbour, text[0]!)) return edit;
      return { ...edit, content: `${eol}${edit.content}` };
    }
    const neighbour = body[0];
    const last = edit.content
      .replace(/\r?\n$/, "")
      .split(/\r?\n/)
      .at(-1)!;
    if (neighbour === undefined || /\r?\n\s*\r?\n$/.test(edit.content) || sameBlock(last, neighbour))
      return edit;
    return { ...edit, content: `${edit.content.replace(/\r?\n$/, "")}${eol}${eol}` };
  });
}

const LIST_ITEM = /^\s*(?:[-*+]|\d+[.)])\s/;

/** Two lines of one list, or of one table. */
function sameBlock(line: string, other: string): boolean {
  if (LIST_ITEM.test(line) && LIST_ITEM.test(other)) return true;
  return line.trimStart().startsWith("|") && other.trimStart().startsWith("|");
}

async function readTextFile(path: string, shown: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    const why =
      (error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message;
    throw new UsageError(`cannot read ${shown}: ${why}`);
  }
}

function parseOccurrence(text: string): Occurrence {
  const parsed = OccurrenceSchema.safeParse(/^\d+$/.test(text) ? Number(text) : text);
  if (!parsed.success)
    throw new UsageError(
      `--occurrence takes unique, all, first, last or a number of 1 or more, got ${JSON.stringify(text)}`,
    );
  return parsed.data;
}

/** VALUE read as YAML: numbers, booleans and [lists] keep their type; anything else stays text. */
function frontmatterValue(text: string): FrontmatterValue {
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch {
    return text;
  }
  const scalar = (item: unknown) =>
    typeof item === "string" || typeof item === "number" || typeof item === "boolean";
  if (scalar(value)) return value as string | number | boolean;
  if (Array.isArray(value) && value.every(scalar)) return value as (string | number | boolean)[];
  return text;
}

const EditsFileSchema = z.array(EditSchema).min(1);

function parseEditsFile(text: string, source: string): Edit[] {
  const shown = source === "-" ? "standard input" : source;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--edits ${shown} is not valid JSON (${(error as Error).message})`);
  }
  const parsed = EditsFileSchema.safeParse(value);
  if (!parsed.success) {
    const first = describeFirstIssue(parsed.error.issues);
    throw new UsageError(`--edits ${shown} is not a JSON array of edits in the edit_article shape: ${first}`);
  }
  return parsed.data;
}
