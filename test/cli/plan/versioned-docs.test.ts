import { describe, expect, it } from "vitest";
import { main } from "../../../cli/main.js";
import { proposeConfig } from "../../../cli/plan/propose-config.js";
import { versionLayout } from "../../../cli/plan/versioned-docs.js";
import { type ImpactPlan, ImpactPlanSchema } from "../../../shared/plan.js";
import { gitRepo, type TestRepo } from "../../helpers/git-repo.js";
import { captureIo } from "../../helpers/io.js";
import { FOLDERS, pullRequest, serverDoc } from "../../helpers/versioned-repo.js";

async function plan(repo: TestRepo, base: string): Promise<ImpactPlan> {
  const io = captureIo(repo.dir);
  expect(await main(["plan", "--base", base, "--json"], io)).toBe(0);
  return ImpactPlanSchema.parse(JSON.parse(io.out));
}

const paths = (articles: readonly { path: string }[]) => articles.map((article) => article.path).sort();

describe("versioned docs", () => {
  it("lists the older docs/vN folders' articles as related, never flagged; editOlder makes them candidates", async () => {
    const { repo, base } = pullRequest(FOLDERS);
    const planned = await plan(repo, base);
    expect(paths(planned.articles)).toEqual(["docs/v3/server.md"]);
    expect(paths(planned.related)).toEqual(["docs/v1/server.md", "docs/v2/server.md"]);
    expect(planned.related.every((article) => article.tier === "related")).toBe(true);
    // The reasons stay, so a reader sees why it is related.
    expect(planned.related[0]!.impact[0]!.source).toBe("src/server.ts");

    const io = captureIo(repo.dir);
    expect(await main(["plan", "--base", base], io)).toBe(0);
    expect(io.out).toContain("Related, not flagged: docs/v1/server.md, docs/v2/server.md");

    repo.write({ "impact.config.json": JSON.stringify({ versions: { editOlder: true } }) });
    const all = await plan(repo, base);
    expect(all.related).toEqual([]);
    // Candidates again, at half their score (below this change's bar here).
    expect(paths([...all.articles, ...(all.weak ?? [])])).toEqual([
      "docs/v1/server.md",
      "docs/v2/server.md",
      "docs/v3/server.md",
    ]);
  });

  it("does not let an older version's stronger article raise the bar for the current one", async () => {
    const { repo, base } = pullRequest({
      "src/other.ts": "export const other = 1;\n",
      // The old version's article is all about the change; the current one only mentions it.
      "docs/v1/server.md": `${serverDoc("Server (v1)")}\nDEFAULT_PORT sets it. DEFAULT_PORT is read once.\n`,
      "docs/v2/server.md": "# Server\n\nSee src/other.ts; the port is DEFAULT_PORT.\n",
    });
    const planned = await plan(repo, base);
    expect(paths(planned.related)).toEqual(["docs/v1/server.md"]);
    expect(paths(planned.articles)).toEqual(["docs/v2/server.md"]);
  });

  it("takes the current folder from config versions.current", async () => {
    const { repo, base } = pullRequest({
      ...FOLDERS,
      "impact.config.json": JSON.stringify({ versions: { current: "docs/v2" } }),
    });
    const planned = await plan(repo, base);
    // v3 is the next, unreleased version here: not older, so still flagged.
    expect(paths(planned.articles)).toEqual(["docs/v2/server.md", "docs/v3/server.md"]);
    expect(paths(planned.related)).toEqual(["docs/v1/server.md"]);
  });

  it("treats Docusaurus versioned_docs/version-* as older and docs/ as current", async () => {
    const { repo, base } = pullRequest({
      "docs/server.md": serverDoc("Server"),
      "versioned_docs/version-1.x/server.md": serverDoc("Server"),
      "versioned_docs/version-2.x/server.md": serverDoc("Server"),
      "versions.json": '["2.x", "1.x"]\n',
      "impact.config.json": JSON.stringify({ docs: ["docs/**/*.md", "versioned_docs/**/*.md"] }),
    });
    const planned = await plan(repo, base);
    expect(paths(planned.articles)).toEqual(["docs/server.md"]);
    expect(paths(planned.related)).toEqual([
      "versioned_docs/version-1.x/server.md",
      "versioned_docs/version-2.x/server.md",
    ]);
  });

  it("finds no layout in unversioned docs or a lone version-named folder", () => {
    expect(versionLayout(["docs/a.md", "docs/guide/b.md"], [], undefined)).toBeUndefined();
    expect(versionLayout(["docs/api/v1/a.md", "docs/b.md"], [], undefined)).toBeUndefined();
  });
});

describe("impact init and versioned docs", () => {
  it("proposes versions.current for docs/vN and Docusaurus layouts, with the older folders as evidence", () => {
    const folders = proposeConfig({ files: ["docs/v1/a.md", "docs/v2/a.md", "docs/v2/b.md"], history: [] });
    expect(folders.config.versions).toEqual({ current: "docs/v2" });
    expect(folders.proposals.find((entry) => entry.key === "versions")).toEqual({
      key: "versions",
      value: "docs/v2",
      evidence:
        "one docs folder per version: docs/v2 is current; docs/v1 is an older version, read as context and never edited",
    });
    const docusaurus = proposeConfig({
      files: [
        "docs/a.md",
        "versioned_docs/version-1.x/a.md",
        "versioned_docs/version-2.x/a.md",
        "versions.json",
      ],
      history: [],
    });
    expect(docusaurus.config.versions).toEqual({ current: "docs" });
    expect(docusaurus.proposals.find((entry) => entry.key === "versions")!.evidence).toBe(
      "Docusaurus versioned docs (versions.json): docs is current; versioned_docs/version-1.x, versioned_docs/version-2.x are older versions, read as context and never edited",
    );
    expect(proposeConfig({ files: ["docs/a.md", "docs/b.md"], history: [] }).config.versions).toBeUndefined();
  });

  it("says the layout in impact init's output", async () => {
    const repo = gitRepo({
      "src/a.ts": "export const a = 1;\n",
      "docs/v1/a.md": "# A\n",
      "docs/v2/a.md": "# A\n",
    });
    const io = captureIo(repo.dir);
    expect(await main(["init"], io)).toBe(0);
    expect(io.out).toContain("versions  docs/v2\n");
    expect(io.out).toContain('"versions": {\n    "current": "docs/v2"\n  }');
  });
});
