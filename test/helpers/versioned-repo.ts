import { gitRepo, type TestRepo } from "./git-repo.js";
import { serverArticle } from "./port-change.js";

/** An article that says the old port and names the changed file in its attention list. */
export const serverDoc = (title: string) => serverArticle(title, "It listens on port 8080 by default.\n");

/** A repository at its base, then a commit that changes the port. */
export function pullRequest(files: Record<string, string>): { repo: TestRepo; base: string } {
  const repo = gitRepo({ "src/server.ts": "export const DEFAULT_PORT = 8080;\n", ...files });
  const base = repo.git("rev-parse", "HEAD");
  repo.commit({ "src/server.ts": "export const DEFAULT_PORT = 9090;\n" });
  return { repo, base };
}

/** The same article in three version folders, docs/v3 the current one. */
export const FOLDERS = {
  "docs/v1/server.md": serverDoc("Server (v1)"),
  "docs/v2/server.md": serverDoc("Server (v2)"),
  "docs/v3/server.md": serverDoc("Server"),
};
