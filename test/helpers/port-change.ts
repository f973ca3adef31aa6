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
