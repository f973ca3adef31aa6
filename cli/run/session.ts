import { isAbsolute } from "node:path";
import type { AuditEdit } from "../../shared/audit.js";
import type { ChangeSet } from "../../shared/changeset.js";
import type { ImpactConfig } from "../../shared/config.js";
import { omitUndefined } from "../../shared/omit-undefined.js";
import type { PlannedArticle } from "../../shared/plan.js";
import { AgentToolHost, type RecordedEdit } from "./agent-tool-host.js";
import { type ArticleOutcome, type ArticleSession, ArticleSkipped } from "./runner.js";
import { SandboxPolicy } from "./sandbox.js";
import type { StyleCheck } from "./tools/define.js";
import { evidenceFile } from "./tools/edit-article.js";
import { resolveReadableIn } from "./tools/files.js";
import { fileFingerprint, type Workspace } from "./workspace.js";

export interface ToolHostSessionOptions {
  root: string;
  workspace: Workspace;
  changeSet: ChangeSet;
  config: ImpactConfig;
  allowCreate: boolean;
  /** The after-edit style check (Vale) for every article; absent: none. */
  styleCheck?: StyleCheck | undefined;
  /** The separate docs repository the articles (`name:PATH`) are in; absent: the code repository. */
  docsRepository?: { name: string; root: string } | undefined;
}

/**
 * Opens an article's loop on a fresh AgentToolHost over the shared Workspace: the
 * runner's ArticleSession, with the host's edits turned into audit edits and patches.
 */
export function toolHostSessions(
  options: ToolHostSessionOptions,
): (article: PlannedArticle) => Promise<ArticleSession> {
  const changedFiles = options.changeSet.files.flatMap((file) =>
    file.oldPath ? [file.path, file.oldPath] : [file.path],
  );
  // One policy for the run: its deny matchers and resolved root are the same for every article.
  const sandbox = new SandboxPolicy({
    root: options.root,
    deny: options.config.deny,
    docsRepository: options.docsRepository,
  });
  return async (article) => {
    // The article's text goes to the model in the first message: the read policy of the tools
    // holds for it too (a tracked symlink docs/x.md -> ../.env, or to a git-ignored file).
    const readable = await resolveReadableIn(article.path, sandbox, options.workspace);
    if (!readable.ok) throw new ArticleSkipped(readable.message);
    const view = await options.workspace.load(article.path);
    if (article.status === "new") return openNewArticle(article, view.kind, options, sandbox, changedFiles);
    if (view.kind !== "text") {
      throw new ArticleSkipped(
        view.kind === "missing"
          ? `${article.path} does not exist in the working tree`
          : `${article.path} is not a text file the agent can edit (${view.kind})`,
      );
    }
    const host = articleHost(article, options, sandbox, changedFiles, options.allowCreate);
    return new ToolHostSession(host, options.workspace, view.content);
  };
}

/**
 * A new article's loop: the file does not exist, and the model writes it with create_article
 * (only when creation is allowed), following the models the plan named.
 */
async function openNewArticle(
  article: PlannedArticle,
  kind: string,
  options: ToolHostSessionOptions,
  sandbox: SandboxPolicy,
  changedFiles: string[],
): Promise<ArticleSession> {
  if (!options.allowCreate)
    throw new ArticleSkipped(
      `a new article the change calls for; creating it needs --allow-create (or "allowCreate": true in impact.config.json)`,
    );
  if (kind !== "missing") throw new ArticleSkipped(`${article.path} exists now, so it is no new article`);
  const models: { path: string; content: string }[] = [];
  for (const path of article.models ?? []) {
    const model = await options.workspace.load(path);
    if (model.kind === "text") models.push({ path, content: model.content });
  }
  const host = articleHost(article, options, sandbox, changedFiles, true);
  return new ToolHostSession(host, options.workspace, "", models);
}

/** The tool host of one article's loop: the run's config, sandbox and style check, for every kind of article. */
function articleHost(
  article: PlannedArticle,
  options: ToolHostSessionOptions,
  sandbox: SandboxPolicy,
  changedFiles: string[],
  allowCreate: boolean,
): AgentToolHost {
  return new AgentToolHost({
    root: options.root,
    workspace: options.workspace,
    articlePath: article.path,
    changedFiles,
    docsGlobs: options.config.docs,
    ignoreGlobs: options.config.ignore,
    sandbox,
    allowCreate,
    limits: options.config.limits,
    templates: options.config.templates,
    styleCheck: options.styleCheck,
    docsRepositoryName: options.docsRepository?.name,
  });
}

class ToolHostSession implements ArticleSession {
  readonly content: string;
  readonly models: readonly { path: string; content: string }[] | undefined;
  readonly #host: AgentToolHost;
  readonly #workspace: Workspace;
  /** Model turn of each tool call id, for the audit's `turn` of an edit. */
  readonly #turnOf = new Map<string, number>();
  #turn = 0;

  constructor(
    host: AgentToolHost,
    workspace: Workspace,
    content: string,
    models?: readonly { path: string; content: string }[],
  ) {
    this.#host = host;
    this.#workspace = workspace;
    this.content = content;
    this.models = models;
  }

  get done(): boolean {
    return this.#host.done;
  }

  async execute(calls: Parameters<ArticleSession["execute"]>[0], signal: AbortSignal) {
    this.#turn += 1;
    for (const call of calls) this.#turnOf.set(call.id, this.#turn);
    const results = await this.#host.execute(calls, signal);
    return {
      messages: results.map((result) => ({
        role: "tool" as const,
        tool_call_id: result.toolCallId,
        content: result.content,
      })),
      outcomes: results.map((result) => ({ name: result.name, ok: result.ok })),
    };
  }

  async finish(): Promise<ArticleOutcome> {
    const path = this.#host.articlePath;
    const { committed, conflicts } = this.#host.finish();
    if (conflicts.length > 0) {
      throw new Error(`another article created ${conflicts.join(", ")} with other content first`);
    }
    const changes = this.#workspace.changes(committed);
    const own = changes.find((change) => change.path === path);
    const hashBefore = await this.#workspace.baseHash(path);
    return {
      patch: own?.patch ?? "",
      hashBefore,
      hashAfter: own?.hashAfter ?? hashBefore,
      edits: this.#auditEdits(path),
      createdFiles: changes
        .filter((change) => change.path !== path && change.before === null && change.patch !== "")
        .map((change) => ({
          path: change.path,
          patch: change.patch,
          hashAfter: change.hashAfter,
          edits: this.#auditEdits(change.path),
        })),
    };
  }

  abandon(): void {
    this.#host.abandon();
  }

  async usedFiles(): Promise<Map<string, string>> {
    const used = new Map(this.#host.reads);
    used.delete(this.#host.articlePath);
    // A file an edit cites was shown in the first message or read: either way the edit rests on it.
    for (const edit of this.#host.edits) {
      for (const location of edit.evidence) {
        const path = evidenceFile(location);
        if (path !== "" && !used.has(path) && !isAbsolute(path) && !path.split("/").includes(".."))
          used.set(path, await this.fileHash(path));
      }
    }
    return used;
  }

  async fileHash(path: string): Promise<string> {
    try {
      return fileFingerprint(await this.#workspace.load(path));
    } catch {
      return "unreadable";
    }
  }

  #auditEdits(path: string): AuditEdit[] {
    return this.#host.edits
      .filter((edit: RecordedEdit) => edit.path === path)
      .map((edit) =>
        omitUndefined({
          kind: edit.kind,
          reason: edit.reason,
          startLine: edit.startLine,
          endLine: edit.endLine,
          evidence: edit.evidence,
          toolCallId: edit.toolCallId,
          turn: this.#turnOf.get(edit.toolCallId),
          request: edit.request,
        }),
      );
  }
}
