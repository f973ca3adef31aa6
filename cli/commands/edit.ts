import { readFile } from "node:fs/promises";
import { relative, resolve, sep } from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { applyEdits } from "../../shared/edit/engine.js";
import {
  type Edit,
  EditSchema,
  type FrontmatterValue,
  type Occurrence,
  OccurrenceSchema,
  type ReplaceEdit,
} from "../../shared/edit/schema.js";
import { ImpactError, UsageError } from "../../shared/errors.js";
import { createFilePatch } from "../../shared/patch.js";
import { describeFirstIssue } from "../../shared/zod-issues.js";
import { loadConfig } from "../config.js";
import { writeIfUnchanged } from "../edit/write-back.js";
import { repositoryRoot } from "../git.js";
import type { Command, CommandIo } from "../io.js";
import { SandboxPolicy } from "../run/sandbox.js";
import { Workspace } from "../run/workspace.js";

const HELP = `Usage: impact edit <path> [edits…] [--repo DIR] [--config FILE] [--dry-run] [--json]
                   [--expected-hash H] [--reason TEXT]

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
--dry-run prints the diff and writes nothing. --json prints
{path, hashBefore, hashAfter, edits, patch}.

Exit codes: 0 applied (or would apply, with --dry-run); 1 an edit was rejected (the
message says why and what to do; nothing is written); 2 bad usage.
Any file the sandbox allows may be edited; .git/ and the deny list stay refused.
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

  const root = await repositoryRoot(resolve(io.cwd, request.repo ?? "."));
  const config = await loadConfig(
    root,
    request.config === undefined ? undefined : resolve(io.cwd, request.config),
  );
  const sandbox = new SandboxPolicy({ root, deny: config.deny });
  // The path is as a person types it: relative to where they stand, inside the repository.
  const asked = relative(root, resolve(io.cwd, request.path)).split(sep).join("/");
  const resolved = await sandbox.resolve(asked);
  if (!resolved.ok) throw new UsageError(resolved.message);
  const view = await new Workspace(root).load(resolved.path);
  const shown = JSON.stringify(resolved.path);
  if (view.kind === "missing")
    throw new UsageError(`${shown} does not exist; impact edit changes existing files`);
  if (view.kind !== "text")
    throw new UsageError(`${shown} is not a text file that can be edited (${view.kind.replace("_", " ")})`);

  const edits = await buildEdits(request, io);
  const outcome = applyEdits(
    view.content,
    edits,
    request.expectedHash === undefined ? {} : { expectedHash: request.expectedHash },
  );
  if (!outcome.ok) throw new EditRejected(`${resolved.path}: ${outcome.error.message}`);
  const patch = createFilePatch(resolved.path, view.content, outcome.content);
  if (!request.dryRun) {
    const written = await writeIfUnchanged(root, resolved.path, outcome.hashBefore, outcome.content);
    if (!written.ok && "directoryChanged" in written)
      throw new EditRejected(`${resolved.path}: ${written.directoryChanged.message}`);
    if (!written.ok)
      throw new EditRejected(
        `${resolved.path} changed on disk while it was being edited (hash ${written.currentHash}, expected ${outcome.hashBefore}); nothing was written. Run the command again.`,
      );
  }
  if (request.json) {
    const applied = outcome.applied.map(({ context: _context, ...edit }) => edit);
    io.stdout(
      `${JSON.stringify({ path: resolved.path, hashBefore: outcome.hashBefore, hashAfter: outcome.hash, dryRun: request.dryRun, edits: applied, patch })}\n`,
    );
  } else {
    io.stdout(patch);
  }
  return 0;
};

/** An edit the engine refused: exit 1, nothing written. */
class EditRejected extends ImpactError {
  constructor(message: string) {
    super("input", message);
  }
}

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
