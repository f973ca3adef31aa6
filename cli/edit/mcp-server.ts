import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import pLimit from "p-limit";
import { type ImpactConfig, readIgnoredMatcher } from "../../shared/config.js";
import { DEFAULT_READ_BYTES_IN_FLIGHT, MCP_CALLS_IN_FLIGHT, MCP_CALLS_QUEUED } from "../../shared/limits.js";
import {
  isToolName,
  type ToolName,
  toolParametersJsonSchema,
  toolSpecsFor,
} from "../../shared/tools/manifest.js";
import { articleSelector } from "../plan/articles.js";
import { AgentToolHost } from "../run/agent-tool-host.js";
import { ReadBudget } from "../run/read-budget.js";
import { type ResolvedPath, SandboxPolicy, writeRefusal } from "../run/sandbox.js";
import { Workspace } from "../run/workspace.js";
import { writeIfUnchanged } from "./write-back.js";

export interface ImpactMcpServerOptions {
  /** Repository root. */
  root: string;
  config: ImpactConfig;
  allowCreate: boolean;
  version: string;
}

/** Read tools and create_article have no article under work; no draft is ever written under this name. */
const NO_ARTICLE = ".impact-mcp-no-article";

/**
 * The agent's tools served over MCP: the same specs, JSON Schemas, argument checks,
 * sandbox policy and result texts, because every call runs through an AgentToolHost.
 * What differs: edit_article may change any article (docs globs minus ignore globs) and
 * writes it to disk atomically, as create_article does, and only while the file still
 * has the hash it was read with. Each call reads the disk afresh.
 */
export function createImpactMcpServer(options: ImpactMcpServerOptions): Server {
  const { root, config, allowCreate } = options;
  const sandbox = new SandboxPolicy({ root, deny: config.deny });
  const isArticle = articleSelector(config);
  // Parallel read calls share one budget, as the articles of a run do.
  const readBudget = new ReadBudget(config.limits.readBytesInFlight ?? DEFAULT_READ_BYTES_IN_FLIGHT);
  const readIgnored = readIgnoredMatcher(config);
  const specs = toolSpecsFor({ allowCreate });
  const server = new Server({ name: "impact", version: options.version }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: specs.map((spec) => ({
      name: spec.name,
      description: MCP_DESCRIPTIONS[spec.name],
      inputSchema: toolParametersJsonSchema(spec) as { type: "object" },
      annotations: {
        readOnlyHint: spec.readOnly,
        // An edit replaces text (its diff is returned); a creation only adds a file.
        destructiveHint: spec.name === "edit_article",
        // The same edit twice fails the second time ("already applied"); reads change nothing.
        idempotentHint: spec.readOnly,
        openWorldHint: false,
      },
    })),
  }));

  // Writes run one at a time, so two edits of one article never race on its hash.
  let writes: Promise<unknown> = Promise.resolve();
  // A client may send any number of calls at once: a few run, some wait, the rest are told to retry.
  const inFlight = pLimit(MCP_CALLS_IN_FLIGHT);
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    if (inFlight.activeCount + inFlight.pendingCount >= MCP_CALLS_IN_FLIGHT + MCP_CALLS_QUEUED)
      return errorResult(
        `Error: impact mcp is busy (${MCP_CALLS_IN_FLIGHT} calls running, ${MCP_CALLS_QUEUED} waiting); nothing was done. Wait for some answers, then call again.`,
      );
    return inFlight(() => dispatch(request.params, extra.signal));
  });

  function dispatch(
    params: { name: string; arguments?: Record<string, unknown> | undefined },
    signal: AbortSignal,
  ): Promise<CallToolResult> {
    const { name, arguments: args = {} } = params;
    const readOnly = isToolName(name) && specs.find((spec) => spec.name === name)?.readOnly === true;
    if (readOnly) return callTool(name, args, signal);
    const run = writes.then(() => callTool(name, args, signal));
    writes = run.catch(() => {});
    return run;
  }

  async function callTool(
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<CallToolResult> {
    let articlePath = NO_ARTICLE;
    if (name === "edit_article" && typeof args.path === "string") {
      const resolved = await sandbox.resolve(args.path);
      // A refused path goes on to the tool, which answers with the sandbox's message.
      if (resolved.ok) {
        const refused = writeRefusal(resolved, isArticle);
        if (refused) return errorResult(notAnArticle(resolved.path, config, refused));
        articlePath = resolved.path;
      }
    }
    const workspace = new Workspace(root, { readBudget, readIgnored });
    const host = new AgentToolHost({
      root,
      workspace,
      articlePath,
      changedFiles: null,
      docsGlobs: config.docs,
      ignoreGlobs: config.ignore,
      sandbox,
      allowCreate,
      limits: config.limits,
      templates: config.templates,
    });
    const [result] = await host.execute(
      [{ id: "mcp", type: "function", function: { name, arguments: JSON.stringify(args) } }],
      signal,
    );
    if (!result?.ok) {
      host.abandon();
      return errorResult(result?.content ?? "Error: no result");
    }
    host.finish();
    // The write guard again, on the real path as it is now, for every file the call changed.
    const targets: ResolvedPath[] = [];
    for (const change of workspace.changes()) {
      const target = await sandbox.resolve(change.path);
      if (!target.ok) return errorResult(`${target.message} Nothing was written.`);
      const refused = writeRefusal(target, isArticle);
      if (refused) return errorResult(notAnArticle(target.path, config, refused));
      targets.push(target);
    }
    for (const [index, change] of workspace.changes().entries()) {
      const written = await writeIfUnchanged(root, targets[index]!, change.hashBefore, change.after);
      if (!written.ok && "directoryChanged" in written)
        return errorResult(
          `Error: ${written.directoryChanged.message}. Nothing was written; check the folder.`,
        );
      if (!written.ok)
        return errorResult(
          `Error: ${JSON.stringify(change.path)} changed on disk while this call ran (its hash is now ${written.currentHash ?? "none: it was deleted"}); nothing was written. Read it again and redo the edits.`,
        );
    }
    return { content: [{ type: "text", text: result.content }] };
  }

  return server;
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

/** The rule, not every glob: the default ignore list alone is five long globs. */
function notAnArticle(
  path: string,
  config: ImpactConfig,
  refused: { viaSymlink: boolean; realRelative: string },
): string {
  const docs = config.docs.length > 3 ? `${config.docs.slice(0, 3).join(", ")}, …` : config.docs.join(", ");
  const what = refused.viaSymlink
    ? `is a symlink (or under one) to ${JSON.stringify(refused.realRelative)}, which is not an article`
    : "is not an article";
  return `Error: ${JSON.stringify(path)} ${what}: edit_article changes only files under the "docs" globs of impact.config.json (${docs}) that its "ignore" globs (changelogs, release notes, migration guides by default) leave out. Use impact edit to change another file.`;
}

/**
 * What an MCP client's model reads about each tool: the same tools as Impact's agent gets,
 * described for an agent that works on the whole repository rather than one article.
 */
const MCP_DESCRIPTIONS: Record<ToolName, string> = {
  read_file:
    "Read a text file of the repository: one header line (path, line range, total lines, hash), then the raw lines without line-number prefixes, so text can be copied exactly into edit_article. Large files come in pages (offset, limit). On a code file, symbol (a name or Parent::child path from outline_article) returns just that declaration.",
  outline_article:
    'Outline a file: for Markdown, MDX, reST or AsciiDoc the heading tree with section paths ("Parent::Child"), levels and line ranges, plus the hash; for a code file its declarations (classes, functions, methods, constants) with Parent::child paths and line ranges.',
  search_repo:
    'Search the text files of the repository (git-ignored files are skipped): "path:line: text" for each matching line, capped. Literal text by default, a regular expression with regex: true, narrowed with glob.',
  list_files:
    "List the repository's files matching a glob (git-ignored files are left out), sorted and capped.",
  edit_article:
    "Edit one documentation article (a file under the project's docs globs) with exact, reasoned edits applied as one all-or-nothing batch, and write it to disk. Replace text (old_string must match exactly; occurrence and within narrow it), rewrite or extend a section, tick a checklist item, or set frontmatter keys. Pass expected_hash (from read_file or outline_article) to refuse the batch if the file changed. Returns the diff and the new hash; a refusal says exactly what to fix.",
  create_article:
    "Create a new documentation article under the project's docs globs, for a path that does not exist yet, with its whole text and the reason it is needed.",
};
