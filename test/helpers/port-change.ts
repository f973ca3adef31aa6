import { gitRepo, type TestRepo } from "./git-repo.js";

/** An article that watches src/server.ts and states its default port. */
const SERVER_DOC = `---
attention:
  - op: file
    path: src/server.ts
---
# Server

It listens on port 8080 by default.
`;

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

/** An article named `name` that watches src/server.ts and states the port. */
const watchingArticle = (name: string) =>
  `---\nattention:\n  - op: file\n    path: src/server.ts\n---\n# ${name}\n\nThe port is 8080.\n`;

/** The same port change, watched by three articles (docs/a.md, b.md, c.md), with an optional config. */
export function threeArticlePortChange(config?: object): TestRepo {
  const repo = gitRepo({
    "src/server.ts": "export const DEFAULT_PORT = 8080;\n",
    "docs/a.md": watchingArticle("A"),
    "docs/b.md": watchingArticle("B"),
    "docs/c.md": watchingArticle("C"),
    ...(config ? { "impact.config.json": JSON.stringify(config) } : {}),
  });
  repo.commit({ "src/server.ts": "export const DEFAULT_PORT = 9090;\n" });
  return repo;
}
