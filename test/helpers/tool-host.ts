import { AgentToolHost, type AgentToolHostOptions } from "../../cli/run/agent-tool-host.js";
import { Workspace } from "../../cli/run/workspace.js";

/**
 * A tool host over the repository at `root` for tests: article docs/guide.md, docs under
 * docs/, no changed files, no create_article; `options` replaces any of these.
 */
export function testToolHost(root: string, options: Partial<AgentToolHostOptions> = {}): AgentToolHost {
  return new AgentToolHost({
    root,
    workspace: options.workspace ?? new Workspace(root),
    articlePath: "docs/guide.md",
    changedFiles: [],
    docsGlobs: ["docs/**/*.md"],
    allowCreate: false,
    ...options,
  });
}
