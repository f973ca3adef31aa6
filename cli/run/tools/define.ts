import type { Edit, EditErrorCode, EditKind } from "../../../shared/edit/types.js";
import type { ToolArgs, ToolSpec } from "../../../shared/tools/spec.js";
import { listIssues } from "../../../shared/zod-issues.js";
import type { ToolLimits } from "../limits.js";
import type { PathRefusalCode, SandboxPolicy } from "../sandbox.js";
import type { ArticleDraft, Workspace } from "../workspace.js";

/** Tool failures are values: the host hands them to the model. */
export type ToolResult = { ok: true; output: string } | ToolFailure;
export interface ToolFailure {
  ok: false;
  code: ToolFailureCode;
  message: string;
}

/** Why a tool call failed: the sandbox's and the edit engine's codes, and the tools' own. */
export type ToolFailureCode =
  | PathRefusalCode
  | EditErrorCode
  | "invalid_json"
  | "invalid_arguments"
  | "unknown_tool"
  | "too_many_calls"
  | "internal_error"
  | "not_found"
  | "not_a_file"
  | "binary"
  | "too_large"
  | "hard_link"
  | "ignored"
  | "offset_out_of_range"
  | "not_code"
  | "unparsable"
  | "unknown_symbol"
  | "invalid_glob"
  | "regex_invalid"
  | "regex_timeout"
  | "regex_too_long"
  | "regex_unsafe"
  | "not_article"
  | "not_docs"
  | "exists"
  | "create_disabled";

/** One edit as the audit records it. */
export interface RecordedEdit {
  kind: EditKind | "create";
  reason: string;
  evidence: string[];
  startLine: number;
  endLine: number;
  toolCallId: string;
  /** The file the edit changed (the article, or an article created). */
  path: string;
  /** The edit as the model gave it (edit_article); `impact apply --only` replays it. */
  request?: Edit | undefined;
}

/** What a tool may use; built by AgentToolHost for each call. */
export interface ToolContext {
  sandbox: SandboxPolicy;
  workspace: Workspace;
  draft: ArticleDraft;
  articlePath: string;
  /** The change's files, which evidence should name; null when there is no change (impact mcp). */
  changedFiles: ReadonlySet<string> | null;
  /** Whether a path is an article: matches the docs globs and no ignore glob. */
  isArticlePath: (path: string) => boolean;
  /** What the article's docs templates require it to keep. */
  template: { requiredSections: readonly string[]; requiredFrontmatter: readonly string[] };
  allowCreate: boolean;
  limits: ToolLimits;
  signal: AbortSignal;
  toolCallId: string;
  recordEdit: (edit: RecordedEdit) => void;
  markDone: () => void;
  /** The after-edit style check (Vale, cli/run/vale.ts): a note on the edited lines, or "". */
  styleCheck?: StyleCheck | undefined;
}

/** Lints an article's new text; reports on the edited lines, never refuses. */
export interface StyleCheck {
  /** What identifies the check and its configuration, for the result cache key. */
  readonly key: string;
  check(
    path: string,
    content: string,
    edited: readonly { startLine: number; endLine: number }[],
    signal: AbortSignal,
  ): Promise<string>;
}

/** A tool's code, bound to its spec (name and argument type). */
export interface Tool<Spec extends ToolSpec = ToolSpec> {
  readonly spec: Spec;
  run(args: ToolArgs<Spec>, context: ToolContext): Promise<ToolResult>;
}

export function defineTool<Spec extends ToolSpec>(
  spec: Spec,
  run: (args: ToolArgs<Spec>, context: ToolContext) => Promise<ToolResult>,
): Tool<Spec> {
  return { spec, run };
}

export function fail(code: ToolFailureCode, message: string): ToolFailure {
  return { ok: false, code, message };
}

export function succeed(output: string): ToolResult {
  return { ok: true, output };
}

/** Checks a raw JSON argument string against the tool's schema. */
export function parseToolArguments(spec: ToolSpec, raw: string): { ok: true; args: unknown } | ToolFailure {
  let value: unknown;
  try {
    // Some servers send "" for a call without arguments.
    value = raw.trim() === "" ? {} : JSON.parse(raw);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      code: "invalid_json",
      message: `The arguments of ${spec.name} are not valid JSON (${why}). Send one JSON object matching the tool's schema.`,
    };
  }
  const parsed = spec.parameters.safeParse(value);
  if (parsed.success) return { ok: true, args: parsed.data };
  return {
    ok: false,
    code: "invalid_arguments",
    message: `Invalid arguments for ${spec.name}:\n${listIssues(parsed.error.issues, { root: "(arguments)" })}`,
  };
}
