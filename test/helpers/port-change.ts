import { gitRepo, type TestRepo } from "./git-repo.js";
import type { ScriptStep } from "./scripted-model-server.js";

/** An article titled `title` that watches src/server.ts (its attention list), with `body` under the heading. */
export function serverArticle(title: string, body = "The port is 8080.\n"): string {
  return `---\nattention:\n  - op: file\n    path: src/server.ts\n---\n# ${title}\n\n${body}`;
}

/** An article that watches src/server.ts and states its default port. */
const SERVER_DOC = serverArticle("Server", "It listens on port 8080 by default.\n");

/**
 * A pull request that changes the default port from 8080 to 9090 (src/server.ts), beside
 * docs/server.md and any other files given. Returns the repository and the base sha.
 */
export function portChange(files: Record<string, string> = {}): { repo: TestRepo; base: string } {
  const repo = gitRepo({
    "src/server.ts": "export const DEFAULT_PORT = 8080;\n",
    "docs/server.md": SERVER_DOC,
    ...files,
  });
  const base = repo.git("rev-parse", "HEAD");
  repo.commit({ "src/server.ts": "export const DEFAULT_PORT = 9090;\n" });
  return { repo, base };
}

/** The model's answer to the port change: one edit_article call that fixes docs/server.md. */
export function portFix(options: { done?: boolean } = {}): ScriptStep {
  const edit = {
    old_string: "port 8080 by default",
    new_string: "port 9090 by default",
    reason: "DEFAULT_PORT is 9090",
  };
  return {
    toolCalls: [{ name: "edit_article", arguments: { path: "docs/server.md", edits: [edit], ...options } }],
  };
}

/** The same port change, watched by three articles (docs/a.md, b.md, c.md), with an optional config. */
export function threeArticlePortChange(config?: object): TestRepo {
  const repo = gitRepo({
    "src/server.ts": "export const DEFAULT_PORT = 8080;\n",
    "docs/a.md": serverArticle("A"),
    "docs/b.md": serverArticle("B"),
    "docs/c.md": serverArticle("C"),
    ...(config ? { "impact.config.json": JSON.stringify(config) } : {}),
  });
  repo.commit({ "src/server.ts": "export const DEFAULT_PORT = 9090;\n" });
  return repo;
}
