import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { renderPlan } from "../../../cli/commands/plan.js";
import { main } from "../../../cli/main.js";
import { checkAnnotations, findAcknowledgement, untouchedStale } from "../../../cli/plan/gate.js";
import type { ImpactPlan, PlannedArticle } from "../../../shared/plan.js";
import { gitRepo, makeTempDir, type TestRepo } from "../../helpers/git-repo.js";
import { captureIo } from "../../helpers/io.js";

async function plan(repo: TestRepo, args: string[], env: Record<string, string> = {}) {
  const io = captureIo(repo.dir, env);
  const code = await main(["plan", ...args], io);
  const normalise = (text: string) =>
    text.replace(/\b[0-9a-f]{40}\b/g, "<sha>").replace(/\b[0-9a-f]{12}\b/g, "<sha>");
  return { code, out: normalise(io.out), err: normalise(io.err) };
}

/** A project whose change makes docs/auth.md stale (it watches src/auth.ts) and leaves it untouched. */
function staleChange(config: Record<string, unknown> = {}): TestRepo {
  const repo = gitRepo({
    "impact.config.json": JSON.stringify(config),
    "src/auth.ts": "export function loginUser(name: string) {\n  return name;\n}\n",
    "docs/auth.md": "---\nattention:\n  - op: file\n    path: src/auth.ts\n---\n# Auth\n",
  });
  repo.commit({ "src/auth.ts": "export function loginUser(user: User) {\n  return user;\n}\n" });
  return repo;
}

function article(path: string, fields: Partial<PlannedArticle> = {}): PlannedArticle {
  return { path, status: "impacted", impact: [], files: ["src/a.ts"], ...fields };
}

function planOf(articles: PlannedArticle[], related: PlannedArticle[] = []): ImpactPlan {
  return {
    base: "a".repeat(40),
    head: "b".repeat(40),
    articles,
    related,
    dropped: [],
    warnings: [],
    skipped: [],
  };
}

describe("plan --check counts stale articles only", () => {
  it("fails on stale untouched articles, and on impacted ones of plans written before tiers", () => {
    const stale = untouchedStale(
      planOf(
        [
          article("docs/stale.md", { tier: "stale" }),
          article("docs/old-plan.md"),
          article("docs/touched.md", { tier: "stale", status: "touched" }),
          article("docs/related-in-articles.md", { tier: "related" }),
          article("docs/new.md", { tier: "new", status: "new" }),
        ],
        [article("docs/related.md", { tier: "related" })],
      ),
    );
    expect(stale.map((entry) => entry.path)).toEqual(["docs/stale.md", "docs/old-plan.md"]);
  });

  it("exits 3 in strict mode (--check and --check=strict), 0 with --check=advisory", async () => {
    const repo = staleChange();
    for (const flag of ["--check", "--check=strict"]) {
      const strict = await plan(repo, [flag]);
      expect(strict.code).toBe(3);
      expect(strict.err).toBe(
        "impact plan: 1 article probably needs an update that this change did not make: docs/auth.md\n",
      );
    }
    const advisory = await plan(repo, ["--check=advisory"]);
    expect(advisory.code).toBe(0);
    expect(advisory.out).toContain(
      "::warning file=docs/auth.md,title=Impact::this article may be stale after the change: attention file src/auth.ts (src/auth.ts @@ -1,3 +1,3 @@)\n",
    );
    expect(advisory.err).toBe(
      "impact plan: advisory: 1 article probably needs an update that this change did not make: docs/auth.md\n",
    );
    const json = await plan(repo, ["--check=advisory", "--json"]);
    expect(JSON.parse(json.out).articles[0].path).toBe("docs/auth.md");
    expect(json.err).toContain("::warning file=docs/auth.md,");
    expect(await plan(repo, ["--check=loose"])).toMatchObject({
      code: 2,
      err: "impact plan: --check takes no value or one of --check=strict, --check=advisory (see: impact plan --help)\n",
    });
  });
});

describe("GitHub annotations", () => {
  it("points at the line the detector found stale, end to end", async () => {
    const repo = gitRepo({
      "src/auth.ts": "export function loginUser(name: string) {\n  return name;\n}\n",
      "docs/login.md": "# Login\n\nCall `loginUser(name)`.\n",
    });
    repo.commit({ "src/auth.ts": "export function signIn(name: string) {\n  return name;\n}\n" });
    const advisory = await plan(repo, ["--check=advisory"]);
    expect(advisory.code).toBe(0);
    expect(advisory.out).toMatch(
      /^::warning file=docs\/login\.md,line=3,title=Impact::this article may be stale/m,
    );
  });

  it("points at the stale line of each article, reasons on one line together", () => {
    const lines = checkAnnotations([
      article("docs/a.md", {
        impact: [
          {
            kind: "reference",
            source: "src/a.ts",
            detail: "writes `oldName` (renamed)",
            line: 12,
            hunk: "src/a.ts @@ -1,2 +1,2 @@",
          },
          { kind: "reference", source: "src/a.ts", detail: "quotes the default 8080", line: 12 },
          { kind: "reference", source: "src/b.ts", detail: "lists the options; --new is missing", line: 30 },
          { kind: "history", source: "src/a.ts", detail: "changed together in 5 of 6 commits" },
        ],
      }),
    ]);
    expect(lines).toEqual([
      "::warning file=docs/a.md,line=12,title=Impact::this article may be stale after the change: writes `oldName` (renamed) (src/a.ts @@ -1,2 +1,2 @@); quotes the default 8080 (src/a.ts)",
      "::warning file=docs/a.md,line=30,title=Impact::this article may be stale after the change: lists the options; --new is missing (src/b.ts)",
    ]);
  });

  it("writes three reasons into one annotation and counts the rest", () => {
    const reason = (detail: string) => ({ kind: "reference" as const, source: "src/a.ts", detail, line: 4 });
    const [line] = checkAnnotations([
      article("docs/a.md", { impact: ["one", "two", "three", "four", "five"].map(reason) }),
    ]);
    expect(line).toBe(
      "::warning file=docs/a.md,line=4,title=Impact::this article may be stale after the change: one (src/a.ts); two (src/a.ts); three (src/a.ts); and 2 more (impact plan --explain docs/a.md)",
    );
  });

  it("escapes hostile paths and text so nothing starts a workflow command", () => {
    const lines = checkAnnotations([
      article("docs/x,line=1:y%0A\n::error::owned.md", {
        impact: [
          {
            kind: "reference",
            source: "src/a.ts",
            detail: "100% wrong\r\n::add-mask::secret\n::stop-commands::x",
            line: 3,
            hunk: "src/a.ts @@ -1 +1 @@ a,b:c",
          },
        ],
      }),
    ]);
    expect(lines).toEqual([
      "::warning file=docs/x%2Cline=1%3Ay%250A%0A%3A%3Aerror%3A%3Aowned.md,line=3,title=Impact::this article may be stale after the change: 100%25 wrong%0D%0A::add-mask::secret%0A::stop-commands::x (src/a.ts @@ -1 +1 @@ a,b:c)",
    ]);
    for (const line of lines) expect(line.split(/[\r\n]/)).toHaveLength(1);
  });
});

describe("acknowledging a change", () => {
  it("a Docs-Impact: none trailer on any commit of the range passes the check, naming the commit", async () => {
    const repo = staleChange();
    const base = repo.git("rev-parse", "HEAD~1");
    repo.commit({ "src/other.ts": "export const x = 1;\n" }, "Tidy up\n\nDocs-Impact: none");
    repo.commit({ "src/more.ts": "export const y = 1;\n" }, "Another change");
    const result = await plan(repo, ["--check", "--base", base]);
    expect(result.code).toBe(0);
    expect(result.out).toContain(
      'acknowledged by commit <sha> "Tidy up" (Docs-Impact: none): 1 article flagged as stale, not checked\n',
    );
  });

  it("reads trailers as git does: a line in the body is no trailer, and other values do not count", async () => {
    const repo = staleChange();
    const base = repo.git("rev-parse", "HEAD~1");
    repo.commit(
      { "src/other.ts": "export const x = 1;\n" },
      "Body\n\nDocs-Impact: none\n\nmore text after it",
    );
    repo.commit({ "src/more.ts": "export const y = 1;\n" }, "Other value\n\nDocs-Impact: later");
    expect((await plan(repo, ["--check", "--base", base])).code).toBe(3);
    repo.commit(
      { "src/last.ts": "export const z = 1;\n" },
      "Lower case\n\nSigned-off-by: A <a@b.c>\ndocs-impact: None",
    );
    expect((await plan(repo, ["--check", "--base", base])).code).toBe(0);
  });

  it("the configured label passes the check, from the event payload or --labels", async () => {
    const repo = staleChange({ checkAcknowledgeLabel: "no-docs" });
    const event = join(makeTempDir("impact-event-"), "event.json");
    writeFileSync(
      event,
      JSON.stringify({ pull_request: { number: 4, labels: [{ name: "bug" }, { name: "no-docs" }] } }),
    );
    const labelled = await plan(repo, ["--check"], { GITHUB_EVENT_PATH: event });
    expect(labelled.code).toBe(0);
    expect(labelled.out).toContain(
      'acknowledged by the pull request label "no-docs": 1 article flagged as stale, not checked\n',
    );
    expect((await plan(repo, ["--check", "--labels", "bug"], { GITHUB_EVENT_PATH: event })).code).toBe(3);
    expect((await plan(repo, ["--check", "--labels", "bug, no-docs"])).code).toBe(0);
    writeFileSync(event, JSON.stringify({ pull_request: { number: 4, labels: [{ name: "bug" }] } }));
    expect((await plan(repo, ["--check"], { GITHUB_EVENT_PATH: event })).code).toBe(3);
    // An event that is not JSON, or names no labels, acknowledges nothing and breaks nothing.
    writeFileSync(event, "{not json");
    expect((await plan(repo, ["--check"], { GITHUB_EVENT_PATH: event })).code).toBe(3);
    writeFileSync(event, JSON.stringify({ pull_request: { labels: "no-docs" } }));
    expect((await plan(repo, ["--check"], { GITHUB_EVENT_PATH: event })).code).toBe(3);
    // Without the config key no label acknowledges anything.
    const unconfigured = staleChange();
    expect((await plan(unconfigured, ["--check", "--labels", "no-docs"])).code).toBe(3);
  });

  it("finds the newest acknowledging commit first, then the label", () => {
    const commits = [
      { sha: "c".repeat(40), subject: "newest", values: [] },
      { sha: "d".repeat(40), subject: "older", values: ["NONE"] },
    ];
    expect(findAcknowledgement({ commits, labels: ["x"], label: "x" })).toEqual({
      kind: "commit",
      sha: "d".repeat(40),
      subject: "older",
    });
    expect(findAcknowledgement({ commits: [], labels: ["x"], label: "x" })).toEqual({
      kind: "label",
      label: "x",
    });
    expect(findAcknowledgement({ commits: [], labels: ["x"], label: undefined })).toBeUndefined();
  });
});

describe("--include", () => {
  it("takes related only, for plan and run, before any work", async () => {
    const repo = staleChange();
    expect(await plan(repo, ["--include", "touched"])).toMatchObject({
      code: 2,
      err: 'impact plan: --include takes related, got "touched"\n',
    });
    const io = captureIo(repo.dir, {});
    expect(await main(["run", "--include", "all"], io)).toBe(2);
    expect(io.err).toBe('impact run: --include takes related, got "all"\n');
    expect((await plan(repo, ["--include", "related", "--check"])).code).toBe(3);
  });
});

describe("related articles in the table", () => {
  it("a mapped article whose code changed only inside a body is related: listed apart, the check passes", async () => {
    const repo = gitRepo({
      "impact.config.json": JSON.stringify({
        mappings: [{ code: "src/rules/:name.ts", docs: "docs/rules/:name.md" }],
      }),
      "src/rules/semi.ts": "export function semi() {\n  return 1;\n}\n",
      "docs/rules/semi.md": "# semi\n\nRequires semicolons.\n",
    });
    repo.commit({ "src/rules/semi.ts": "export function semi() {\n  return 2;\n}\n" });
    const checked = await plan(repo, ["--check"]);
    expect(checked.code).toBe(0);
    expect(checked.out).toContain(
      "Related, not flagged: docs/rules/semi.md (show them: --include related)\n",
    );
    expect((await plan(repo, ["--check", "--include", "related"])).out).toMatch(
      /^docs\/rules\/semi\.md +related /m,
    );
    // The config's `include` does the same when no flag is given.
    const config = join(makeTempDir(), "impact.config.json");
    writeFileSync(
      config,
      JSON.stringify({
        mappings: [{ code: "src/rules/:name.ts", docs: "docs/rules/:name.md" }],
        include: ["related"],
      }),
    );
    expect((await plan(repo, ["--check", "--config", config])).out).toMatch(
      /^docs\/rules\/semi\.md +related /m,
    );
  });

  it("counts new articles apart from touched ones in the heading", () => {
    const text = renderPlan(
      planOf([
        article("docs/a.md", { tier: "stale" }),
        article("docs/rules/new.md", { tier: "new", status: "new" }),
        article("README.md", { status: "touched" }),
      ]),
    );
    expect(text.split("\n")[0]).toBe(
      "1 article impacted, 1 touched, 1 new by the change (aaaaaaaaaaaa..bbbbbbbbbbbb)",
    );
  });

  const related = [
    article("docs/guide.md", {
      tier: "related",
      impact: [
        { kind: "history", source: "src/a.ts", detail: "changed together in 4 of 5 commits", score: 0.3 },
      ],
    }),
  ];

  it("are named on one line, and shown in full with --include related", () => {
    const plain = renderPlan(planOf([], related));
    expect(plain).toBe(
      "No article is impacted by aaaaaaaaaaaa..bbbbbbbbbbbb.\n\nRelated, not flagged: docs/guide.md (show them: --include related)\n",
    );
    expect(renderPlan(planOf([], related), { includeRelated: true })).toMatchInlineSnapshot(`
      "No article is impacted by aaaaaaaaaaaa..bbbbbbbbbbbb.

      Related, not flagged (about the changed code; nothing in them is contradicted):

      ARTICLE        STATUS   SCORE  REASON   FILE      DETAIL
      docs/guide.md  related  -      history  src/a.ts  changed together in 4 of 5 commits (0.30)
      "
    `);
  });
});
