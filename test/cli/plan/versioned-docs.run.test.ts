import { describe, expect, it } from "vitest";
import { runWithScript } from "../../helpers/run-impact.js";
import type { Script } from "../../helpers/scripted-model-server.js";
import { FOLDERS, pullRequest } from "../../helpers/versioned-repo.js";

// `impact run` against the scripted model: the slow project (the quick versioned-docs tests are beside it).
describe("versioned docs", () => {
  it("runs only the current version's articles", async () => {
    const { repo, base } = pullRequest(FOLDERS);
    const script: Script = {
      "docs/v3/server.md": [{ content: "The article says nothing wrong." }],
    };
    const run = await runWithScript(repo.dir, script, ["--base", base]);
    expect(run.code).toBe(0);
    expect(run.server.requests.map((request) => request.article)).toEqual(["docs/v3/server.md"]);
    expect(run.audit!.articles.map((article) => article.path)).toEqual(["docs/v3/server.md"]);
  });
});
