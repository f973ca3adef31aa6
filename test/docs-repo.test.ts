import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../cli/main.js";
import { gitRepo, type TestRepo } from "./helpers/git-repo.js";
import { captureIo } from "./helpers/io.js";

/** An article of the docs repository that watches the code repository's src/server.ts. */
const SERVER_DOC = `---
attention:
  - op: file
    path: src/server.ts
---
# Server

It listens on port 8080 by default.
`;

/**
 * A code repository whose change moves the default port from 8080 to 9090, and a separate
 * docs repository (folder `website`) with the article that states it. The code repository
 * also has a README.md, as does the docs repository: same path, two files.
 */
function codeAndDocs(config: object = {}): { code: TestRepo; docs: TestRepo; base: string } {
  const docs = gitRepo({
    "content/server.md": SERVER_DOC,
    "README.md": "# Website\n",
    "impact-website-marker": "",
  });
  const code = gitRepo({
    "src/server.ts": "export const DEFAULT_PORT = 8080;\n",
    "README.md": "# Server\n",
    "impact.config.json": JSON.stringify({ docs: ["content/**/*.md"], docsRepoName: "website", ...config }),
  });
  const base = code.git("rev-parse", "HEAD");
  code.commit({ "src/server.ts": "export const DEFAULT_PORT = 9090;\n", "README.md": "# Server 2\n" });
  return { code, docs, base };
}

async function impact(cwd: string, args: string[], env: Record<string, string> = {}) {
  const io = captureIo(cwd, env);
  const code = await main(args, io);
  return { code, io };
}

describe("plan --docs-repo", () => {
  it("reads the change from the code repository and the articles from the docs repository, named website:PATH", async () => {
    const { code, docs } = codeAndDocs();
    const { code: exit, io } = await impact(code.dir, ["plan", "--json", "--docs-repo", docs.dir]);
    expect(io.err).toBe("");
    expect(exit).toBe(0);
    const plan = JSON.parse(io.out);
    expect(plan.docsRepository).toEqual({ name: "website" });
    expect(plan.articles.map((article: { path: string; status: string }) => [article.path, article.status])).toEqual([
      ["website:content/server.md", "impacted"],
    ]);
    expect(plan.articles[0].files).toEqual(["src/server.ts"]);
  });
});
