import { resolve } from "node:path";
import { loadConfig } from "../config.js";
import { LineTransport } from "../edit/line-transport.js";
import { createImpactMcpServer } from "../edit/mcp-server.js";
import { repositoryRoot } from "../git/repository.js";
import { VERSION } from "../version.js";
import { CHANGE_OPTIONS } from "./args.js";
import { defineCommand } from "./define-command.js";

export const command = defineCommand({
  name: "mcp",
  description: `Serves Impact's tools to any MCP client over stdio: read_file, outline_article,
search_repo, list_files and edit_article (create_article with --allow-create), with the
same schemas, sandbox policy and messages the agent gets. edit_article writes the article
to disk atomically and may change any article under the docs globs of impact.config.json
(or --config FILE); a stale expected_hash is refused. stdout carries only JSON-RPC; logs
go to stderr. The server ends, with exit code 0, when its standard input closes.`,
  options: {
    repo: CHANGE_OPTIONS.repo,
    config: CHANGE_OPTIONS.config,
    "allow-create": { type: "boolean", help: "offer create_article (new articles under the docs globs)" },
  },
  run: async ({ values, io }) => {
    const root = await repositoryRoot(resolve(io.cwd, values.repo ?? "."));
    const config = await loadConfig(
      root,
      values.config === undefined ? undefined : resolve(io.cwd, values.config),
    );
    const allowCreate = values["allow-create"] === true;
    const server = createImpactMcpServer({ root, config, allowCreate, version: VERSION });
    const transport = new LineTransport(io.stdinStream?.() ?? process.stdin, io.stdout);
    transport.onerror = (error) => io.stderr(`impact mcp: ${error.message}\n`);
    const closed = new Promise<void>((done) => {
      server.onclose = done;
    });
    await server.connect(transport);
    io.stderr(`impact mcp: serving ${root}${allowCreate ? " (create_article enabled)" : ""}\n`);
    await closed;
    return 0;
  },
});
