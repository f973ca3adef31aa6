import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Nodes } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";
import { describe, expect, it } from "vitest";
import { main } from "../../cli/main.js";
import type { Audit } from "../../shared/audit.js";
import { auditArticle, auditOf } from "../helpers/audit-fixture.js";
import { gitRepo, makeTempDir } from "../helpers/git-repo.js";
import { captureIo } from "../helpers/io.js";

// Red-team items 1-4: text written by others (file names, model output, crafted audits)
// must render inert in the PR comment, the report and the job summary, and print as one
// harmless line on a terminal or in a CI log.

const HOSTILE_PATH = "docs/x\r\r<h1>FAKE</h1>\r\r<!--.md";
const HOSTILE_TEXT =
  "done\r\r<h1>FAKE</h1>\r\r@org/team see owner/repo#12 and [login](https://evil.example) ![i](https://evil.example/i.png) <!--";

function hostileAudit(): Audit {
  return auditOf([
    auditArticle(HOSTILE_PATH, {
      summary: HOSTILE_TEXT,
      edits: [
        {
          kind: "replace",
          reason: HOSTILE_TEXT,
          startLine: 1,
          endLine: 1,
          evidence: ["src/a.ts:1\r\r<!--", "@org/team"],
        },
      ],
      impact: [{ kind: "reference", source: "src/a.ts\n<h1>", detail: HOSTILE_TEXT }],
    }),
    auditArticle("docs/failed.md", {
      status: "failed",
      error: { code: "x\r\r<!--", message: HOSTILE_TEXT },
    }),
  ]);
}

function nodesOf(tree: Nodes): Nodes[] {
  const all: Nodes[] = [tree];
  if ("children" in tree) for (const child of tree.children) all.push(...nodesOf(child));
  return all;
}

/** GFM's parser options, built once: building them is most of a short document's parse. */
const GFM = { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] };

/** What GitHub would turn live: raw HTML other than ours, links, images, mentions, references. */
function liveParts(markdown: string, allowedHtml: RegExp): string[] {
  const tree = fromMarkdown(markdown, GFM);
  const live: string[] = [];
  for (const node of nodesOf(tree)) {
    if (node.type === "html") {
      for (const tag of node.value.match(/<[^>]*>?/g) ?? []) if (!allowedHtml.test(tag)) live.push(tag);
    }
    if (node.type === "link" || node.type === "image") live.push(`${node.type} ${node.url}`);
    if (node.type === "text") {
      const match = node.value.match(/(^|[^\w])@[a-z0-9]|[\w.-]+\/[\w.-]+#\d|:\/\//i);
      if (match) live.push(`text ${match[0]}`);
    }
  }
  return live;
}

function writeAudit(dir: string, audit: Audit): string {
  const path = join(dir, "audit.json");
  writeFileSync(path, JSON.stringify(audit));
  return path;
}

describe("rendering what others wrote", () => {
  it("impact comment: a lone CR, HTML, mentions, references and links in paths and model text stay inert", async () => {
    const dir = makeTempDir();
    const io = captureIo(dir);
    expect(await main(["comment", writeAudit(dir, hostileAudit()), "--dry-run"], io)).toBe(0);
    const ours = /^<(\/?details|\/?summary|\/?code|\/?sub|!-- impact:comment --)>$/;
    expect(liveParts(io.out, ours)).toEqual([]);
    expect(io.out).not.toContain("\r");
  });

  it("impact report (job summary, post-merge PR body): the same text stays inert", async () => {
    const dir = makeTempDir();
    const io = captureIo(dir);
    expect(await main(["report", writeAudit(dir, hostileAudit())], io)).toBe(0);
    expect(liveParts(io.out, /^<\/?code>$/)).toEqual([]);
    expect(io.out).not.toContain("\r");
  });

  it("impact apply: a crafted path cannot start a workflow command or drive the terminal", async () => {
    const repo = gitRepo({ "docs/a.md": "# A\n" });
    const audit = auditOf([auditArticle("docs/a\n::error file=x::owned\u001b[2K.md")]);
    const io = captureIo(repo.dir);
    expect(await main(["apply", writeAudit(repo.dir, audit)], io)).toBe(2);
    expect(io.err).toMatch(/^impact apply: .*\n$/);
    expect(io.err.split("\n")).toHaveLength(2);
    expect(io.err).not.toContain("\u001b");
    expect(io.err).toContain("docs/a\\n::error file=x::owned\\x1b[2K.md: refused");
  });

  it("impact plan: an article named like a workflow command cannot start one", async () => {
    const repo = gitRepo({ "docs/guide.md": "# Guide\n" });
    // The change renames a function the article calls: stale, so it is flagged and printed.
    repo.commit({
      "::error::x.md": "# X\n\nCall `startServer()` from src/app.ts.\n",
      "src/app.ts": "export function startServer() {}\n",
    });
    repo.commit({ "src/app.ts": "export function launchServer() {}\n" });
    const io = captureIo(repo.dir);
    expect(await main(["plan"], io)).toBe(0);
    expect(io.out).toContain("\\x3a:error::x.md  impacted");
    for (const line of io.out.split("\n")) expect(line.startsWith("::")).toBe(false);
  });
});
