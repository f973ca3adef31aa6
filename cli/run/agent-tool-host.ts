import { type Template, templateFor } from "../../shared/config.js";
import { pathInDocsRepository } from "../../shared/docs-repository.js";
import { isAbortError } from "../../shared/errors.js";
import { REPEATED_FAILURE_THRESHOLD } from "../../shared/limits.js";
import type { ToolCall } from "../../shared/model/types.js";
import { redactSecrets } from "../../shared/redact.js";
import { type AnyToolSpec, isToolName, type ToolName, toolSpecsFor } from "../../shared/tools/manifest.js";
import { articleSelector, docsRepositoryArticles } from "../plan/articles.js";
import { resolveToolLimits, type ToolLimits } from "./limits.js";
import { SandboxPolicy } from "./sandbox.js";
import { cutToBytes } from "./tools/common.js";
import {
  parseToolArguments,
  type RecordedEdit,
  type StyleCheck,
  type Tool,
  type ToolContext,
  type ToolResult,
} from "./tools/define.js";
import { TOOLS } from "./tools/index.js";
import type { ArticleDraft, Workspace } from "./workspace.js";

export type { RecordedEdit } from "./tools/define.js";

export interface AgentToolHostOptions {
  /** Repository root. */
  root: string;
  workspace: Workspace;
  /** The article under work (repository-relative); the only file edit_article may change. */
  articlePath: string;
  /** Paths of the change (ChangeSet files, old and new paths); evidence should name these. Null: no change (impact mcp), evidence is not checked. */
  changedFiles: string[] | null;
  /** Docs globs: where create_article may create. */
  docsGlobs: string[];
  ignoreGlobs?: string[];
  /** The run's sandbox policy, shared by every article; without it one is built from `root` and `deny`. */
  sandbox?: SandboxPolicy;
  /** Deny patterns added to the defaults (only when no `sandbox` is given). */
  deny?: string[];
  allowCreate: boolean;
  limits?: Partial<Record<keyof ToolLimits, number | undefined>>;
  /** Docs templates (config `templates`): what edits to this article must keep. */
  templates?: readonly Template[];
  /** The after-edit style check shared by the run's articles (Vale); absent: none. */
  styleCheck?: StyleCheck | undefined;
  /**
   * The name of a separate docs repository: articles are its `name:PATH` paths, and the docs
   * globs and templates match PATH. Absent: articles are the code repository's.
   */
  docsRepositoryName?: string | undefined;
}

export interface ToolCallResult {
  toolCallId: string;
  name: string;
  ok: boolean;
  content: string;
}

/**
 * The only way the model touches anything. One per article
 * loop. Validates arguments, enforces the sandbox policy and the caps, and answers every
 * call with a result the model can act on; it throws only when `signal` aborts.
 */
export class AgentToolHost {
  readonly edits: RecordedEdit[] = [];
  readonly limits: ToolLimits;
  readonly articlePath: string;
  readonly sandbox: SandboxPolicy;
  #done = false;
  readonly #draft: ArticleDraft;
  readonly #options: AgentToolHostOptions;
  readonly #specs: Map<ToolName, AnyToolSpec>;
  readonly #changedFiles: ReadonlySet<string> | null;
  readonly #isArticlePath: (path: string) => boolean;
  readonly #template: ToolContext["template"];
  readonly #failures = new Map<string, number>();
  /** Write tools run one at a time, even across overlapping execute() calls. */
  #writeQueue: Promise<unknown> = Promise.resolve();

  constructor(options: AgentToolHostOptions) {
    this.#options = options;
    this.articlePath = options.articlePath;
    this.limits = resolveToolLimits(options.limits);
    this.sandbox = options.sandbox ?? new SandboxPolicy({ root: options.root, deny: options.deny ?? [] });
    this.#specs = new Map(
      toolSpecsFor({ allowCreate: options.allowCreate }).map((spec) => [spec.name, spec]),
    );
    this.#changedFiles =
      options.changedFiles && new Set(options.changedFiles.map((path) => path.replace(/^(\.\/)+/, "")));
    this.#isArticlePath = docsRepositoryArticles(
      articleSelector({ docs: options.docsGlobs, ignore: options.ignoreGlobs ?? [] }),
      options.docsRepositoryName,
    );
    this.#draft = options.workspace.beginArticle(options.articlePath);
    const templatePath =
      options.docsRepositoryName === undefined
        ? options.articlePath
        : (pathInDocsRepository(options.docsRepositoryName, options.articlePath) ?? options.articlePath);
    this.#template = templateFor(options.templates ?? [], templatePath);
  }

  /** True after a successful edit_article call with `done: true`. */
  get done(): boolean {
    return this.#done;
  }

  /** The files this article's tools loaded whole, with the fingerprint of what they saw (ArticleDraft.reads). */
  get reads(): ReadonlyMap<string, string> {
    return this.#draft.reads;
  }

  /**
   * Runs one turn's tool calls and returns one result per call, in order. Consecutive
   * read-only calls run in parallel; a write call waits for everything before it, so each
   * call sees the effect of the calls before it. Calls past the per-turn cap are refused.
   */
  async execute(calls: ToolCall[], signal: AbortSignal): Promise<ToolCallResult[]> {
    signal.throwIfAborted();
    const results: ToolCallResult[] = new Array(calls.length);
    let batch: Promise<void>[] = [];
    for (const [index, call] of calls.entries()) {
      const name = call.function?.name ?? "";
      const store = (result: ToolResult) => {
        results[index] = this.#finishResult(call, name, result);
      };
      if (index >= this.limits.toolCallsPerTurn) {
        store({
          ok: false,
          code: "too_many_calls",
          message: `Too many tool calls in one turn: only the first ${this.limits.toolCallsPerTurn} were run. Make this call again in the next turn if you still need it.`,
        });
        continue;
      }
      const spec = isToolName(name) ? this.#specs.get(name) : undefined;
      if (spec?.readOnly) {
        batch.push(this.#run(call, name, signal).then(store));
        continue;
      }
      await Promise.all(batch);
      batch = [];
      signal.throwIfAborted();
      const run = this.#writeQueue.then(() => this.#run(call, name, signal));
      this.#writeQueue = run.catch(() => {});
      store(await run);
    }
    await Promise.all(batch);
    signal.throwIfAborted();
    return results;
  }

  /** Commits this article's draft into the workspace overlay. */
  finish(): { committed: string[]; conflicts: string[] } {
    return this.#draft.commit();
  }

  /** Discards this article's draft: a failed article leaves no trace. */
  abandon(): void {
    this.#draft.discard();
  }

  async #run(call: ToolCall, name: string, signal: AbortSignal): Promise<ToolResult> {
    const spec = isToolName(name) ? this.#specs.get(name) : undefined;
    if (!spec) return this.#unknownTool(name);
    const tool: Tool = TOOLS[spec.name];
    const parsed = parseToolArguments(spec, call.function.arguments ?? "");
    if (!parsed.ok) return parsed;
    try {
      return await tool.run(parsed.args, this.#context(call, signal));
    } catch (error) {
      if (signal.aborted || isAbortError(error)) throw error;
      const why = error instanceof Error ? error.message : String(error);
      return {
        ok: false,
        code: "internal_error",
        message: `${name} failed inside the tool host (${redactSecrets(why)}). This is not caused by your arguments; try another call.`,
      };
    }
  }

  #context(call: ToolCall, signal: AbortSignal): ToolContext {
    return {
      sandbox: this.sandbox,
      workspace: this.#options.workspace,
      draft: this.#draft,
      articlePath: this.articlePath,
      changedFiles: this.#changedFiles,
      isArticlePath: this.#isArticlePath,
      template: this.#template,
      allowCreate: this.#options.allowCreate,
      limits: this.limits,
      signal,
      toolCallId: call.id,
      recordEdit: (edit) => this.edits.push(edit),
      markDone: () => {
        this.#done = true;
      },
      styleCheck: this.#options.styleCheck,
    };
  }

  #unknownTool(name: string): ToolResult {
    const known = [...this.#specs.keys()].join(", ");
    const disabled =
      name === "create_article"
        ? " create_article is not enabled in this run (it needs --allow-create)."
        : "";
    return {
      ok: false,
      code: "unknown_tool",
      message: `There is no tool named ${JSON.stringify(name)}.${disabled} Available tools: ${known}.`,
    };
  }

  /** Caps the size and adds the repeated-failure hint (the runner counts calls and errors). */
  #finishResult(call: ToolCall, name: string, result: ToolResult): ToolCallResult {
    let content: string;
    if (result.ok) {
      content = result.output;
    } else {
      content = `Error: ${result.message}`;
      const key = `${name}\u0000${canonicalArguments(call.function?.arguments ?? "")}`;
      const count = (this.#failures.get(key) ?? 0) + 1;
      this.#failures.set(key, count);
      if (count >= REPEATED_FAILURE_THRESHOLD)
        content += `\n\nThis exact call has now failed ${count} times with the same arguments, and repeating it will fail again. Read the error above and change the arguments (re-read the article with read_file or outline_article first), or take another approach; if the article cannot be fixed, stop and say why in your final message.`;
    }
    const max = this.limits.toolResultBytes;
    if (Buffer.byteLength(content) > max) {
      const note = `\n[result cut at ${max} bytes; ask for less (read_file offset/limit, a narrower glob or pattern)]`;
      content = cutToBytes(content, Math.max(0, max - Buffer.byteLength(note))) + note;
    }
    return { toolCallId: call.id, name, ok: result.ok, content };
  }
}

/** The same call spelled with other whitespace or key order is still the same call. */
function canonicalArguments(raw: string): string {
  try {
    return JSON.stringify(sortKeys(JSON.parse(raw)));
  } catch {
    return raw.trim();
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([key, inner]) => [key, sortKeys(inner)]),
    );
  return value;
}
