import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import puppeteer from "puppeteer-core";
import { beforeAll, describe, expect, it } from "vitest";
import { main } from "../../cli/main.js";
import type { Audit } from "../../shared/audit.js";
import { markChangedWords, REVIEW_SCRIPT, renderDiff, renderHtmlReport } from "../../shared/render/html.js";
import { auditArticle, auditOf } from "../helpers/audit-fixture.js";
import { auditedRepo, GUIDE } from "../helpers/edit-audit.js";
import { makeTempDir } from "../helpers/git-repo.js";
import { captureIo } from "../helpers/io.js";

/** Where the browser test leaves its screenshots, for a person to look at. */
const SCREENSHOTS = join(tmpdir(), "impact-html-report-screenshots");
const HOSTILE = `<script>alert(1)</script><img src=x onerror="alert(2)"> ' " & </textarea></style>`;
const HEAD = "c".repeat(40);

/** An audit with every status, a cached result, a cost, and hostile text in every field people read. */
function sampleAudit(): Audit {
  const articles = [
    auditArticle("docs/auth/login.md", {
      impact: [
        { kind: "attention", source: "src/auth.ts", detail: "docs/auth/login.md watches src/auth.ts" },
        { kind: "reference", source: "src/auth.ts", detail: "names --user, which was renamed" },
      ],
      usage: { ...auditArticle("x").usage, costUsd: 0.0012 },
    }),
    auditArticle(`docs/${HOSTILE}.md`, {
      impact: [{ kind: "reference", source: `src/${HOSTILE}.ts`, detail: `detail ${HOSTILE}` }],
      edits: [
        {
          kind: "replace",
          reason: `reason ${HOSTILE}`,
          startLine: 1,
          endLine: 2,
          evidence: [`src/a.ts:1"><script>alert(3)</script>`, "src/auth.ts:12-14"],
        },
      ],
      summary: `summary ${HOSTILE}`,
      patch: `--- a/docs/x.md\n+++ b/docs/x.md\n@@ -1 +1 @@\n-old ${HOSTILE}\n+new ${HOSTILE}\n`,
      usage: { ...auditArticle("x").usage, costUsd: 0.0011 },
    }),
    auditArticle("docs/failed.md", {
      status: "failed",
      error: { code: "turn_cap", message: `turn cap reached ${HOSTILE}` },
      summary: "turn cap reached",
      usage: { ...auditArticle("x").usage, costUsd: 0.001 },
    }),
    auditArticle("docs/cached.md", {
      cached: true,
      usage: { ...auditArticle("x").usage, promptTokens: 0, completionTokens: 0, llmCalls: 0, costUsd: 0 },
      originalUsage: auditArticle("x").usage,
    }),
    auditArticle("docs/fine.md", {
      status: "unchanged",
      usage: { ...auditArticle("x").usage, costUsd: 0.0005 },
    }),
    auditArticle("docs/budget.md", {
      status: "skipped",
      skipReason: "budget",
      summary: "not started: the run had spent $0.0038 of its $0.0030 budget (--max-cost)",
      usage: { ...auditArticle("x").usage, promptTokens: 0, completionTokens: 0, costUsd: 0 },
    }),
  ];
  return auditOf(articles, { head: HEAD, model: `model ${HOSTILE}` });
}

describe("renderHtmlReport", () => {
  it("escapes every string of the audit: no element, attribute or entity comes from the data", () => {
    const page = renderHtmlReport(sampleAudit(), { repository: "octo/impact" });
    // The page's own review script, pinned by its hash, is the only one.
    const hash = createHash("sha256").update(REVIEW_SCRIPT).digest("base64");
    expect(page).toContain(
      `content="default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-${hash}'"`,
    );
    expect(page.split(`<script>${REVIEW_SCRIPT}</script>`)).toHaveLength(2);
    const html = page.replace(`<script>${REVIEW_SCRIPT}</script>`, "");
    expect(html).not.toMatch(/<script|<img|<\/textarea|<\/style>\s*<\/head>[\s\S]*<\/style>/i);
    expect(html).not.toContain('onerror="');
    expect(html).toContain(
      "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=&quot;alert(2)&quot;&gt;",
    );
    // Only the page's own style block, and a policy that allows no script and no request.
    expect(html.match(/<style>/g)).toHaveLength(1);
    // With no edit to choose, no script at all.
    const plain = renderHtmlReport(auditOf([auditArticle("docs/fine.md", { status: "unchanged" })]));
    expect(plain).toContain(`content="default-src 'none'; style-src 'unsafe-inline'"`);
    expect(plain).not.toContain("<script");
  });

  it("shows the plan's combined score, no sort arrows, and a failed article's error once", () => {
    const audit = auditOf([
      auditArticle("docs/a.md", {
        score: 0.91,
        impact: [
          { kind: "mapping", source: "src/a.ts", detail: "mapped", score: 0.8 },
          { kind: "reference", source: "src/a.ts", detail: "names a()", score: 0.55 },
        ],
      }),
      auditArticle("docs/failed.md", {
        status: "failed",
        error: { code: "turn_cap", message: "turn cap reached: 12 turns" },
        summary: "turn cap reached: 12 turns",
      }),
    ]);
    const html = renderHtmlReport(audit);
    expect(html).toContain('<td class="num">0.91</td>');
    expect(html).not.toContain('<td class="num">0.80</td>');
    expect(html).not.toContain("⇅");
    expect(html.split("turn cap reached: 12 turns")).toHaveLength(2);
  });

  it("links evidence to the head commit when the repository is known, and only then", () => {
    const audit = sampleAudit();
    const linked = renderHtmlReport(audit, { repository: "octo/impact" });
    expect(linked).toContain(`<a href="https://github.com/octo/impact/blob/${HEAD}/src/auth.ts#L12-L14"`);
    // The hostile location is a link whose href and text stay escaped.
    expect(linked).toContain(
      `href="https://github.com/octo/impact/blob/${HEAD}/src/a.ts%3A1%22%3E%3Cscript%3Ealert(3)%3C/script%3E"`,
    );
    expect(renderHtmlReport(audit)).not.toContain('<a href="https://github.com');
    expect(
      renderHtmlReport({ ...audit, head: "diff:0123456789abcdef" }, { repository: "octo/impact" }),
    ).not.toContain('<a href="https://github.com');
  });

  it("colours added and removed lines and marks the words that changed", () => {
    const html = renderDiff(
      "--- a/docs/a.md\n+++ b/docs/a.md\n@@ -1,2 +1,2 @@\n # Title\n-Run it on port 8080 today.\n+Run it on port 9090 today.\n",
    );
    expect(html).toContain('<span class="line meta">--- a/docs/a.md\n</span>');
    expect(html).toContain('<span class="line hunk">@@ -1,2 +1,2 @@\n</span>');
    expect(html).toContain('<span class="line ctx"> # Title\n</span>');
    expect(html).toContain('<span class="line del">-Run it on port <del>8080</del> today.\n</span>');
    expect(html).toContain('<span class="line add">+Run it on port <ins>9090</ins> today.\n</span>');
  });

  it("marks each changed word of a line on its own, and escapes what it marks", () => {
    expect(
      markChangedWords(
        "the limit is 10 and the port is 8080 <b>",
        "the limit is 20 and the port is 9090 <i>",
      ),
    ).toEqual([
      "the limit is <del>10</del> and the port is <del>8080</del> &lt;<del>b</del>&gt;",
      "the limit is <ins>20</ins> and the port is <ins>9090</ins> &lt;<ins>i</ins>&gt;",
    ]);
    expect(markChangedWords("same", "same")).toEqual(["same", "same"]);
    expect(markChangedWords("", "new text")).toEqual(["", "<ins>new text</ins>"]);
  });

  it("is what impact report --format html prints, with GITHUB_REPOSITORY for the links", async () => {
    const dir = makeTempDir();
    const path = join(dir, "audit.json");
    writeFileSync(path, JSON.stringify(sampleAudit()));
    const io = captureIo(dir, { GITHUB_REPOSITORY: "octo/impact" });
    expect(await main(["report", "audit.json", "--format", "html"], io)).toBe(0);
    expect(io.out).toBe(renderHtmlReport(sampleAudit(), { repository: "octo/impact" }));
    const bad = captureIo(dir);
    expect(await main(["report", "audit.json", "--format", "pdf"], bad)).toBe(2);
    expect(bad.err).toBe('impact report: --format takes markdown, html or json, got "pdf"\n');
  });
});

/**
 * Debian's Chromium, installed with apt-get when missing (the test runs as root in CI
 * containers); undefined when it cannot be installed here.
 */
function findChromium(): { path?: string; why?: string } {
  const candidates = ["/usr/bin/chromium", "/usr/bin/chromium-browser"];
  const found = () => candidates.find((candidate) => existsSync(candidate));
  if (found()) return { path: found()! };
  try {
    execFileSync("apt-get", ["update"], { stdio: "pipe", timeout: 300_000 });
    execFileSync("apt-get", ["install", "-y", "--no-install-recommends", "chromium"], {
      stdio: "pipe",
      timeout: 600_000,
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
  } catch (error) {
    return { why: `apt-get install chromium failed: ${(error as Error).message.split("\n")[0]}` };
  }
  return found() ? { path: found()! } : { why: "apt-get installed no chromium binary" };
}

describe("the HTML report in a real browser (headless Chromium)", () => {
  let chromium: { path?: string; why?: string } = {};
  beforeAll(() => {
    chromium = findChromium();
    if (!chromium.path) {
      console.warn(`\n!!! SKIPPING the browser test of the HTML report: ${chromium.why} !!!\n`);
    }
  }, 900_000);

  it(`loads offline with no console error and no request, fits 1280 and 390 px, holds every article, reason and edit (screenshots in ${SCREENSHOTS})`, async (context) => {
    if (!chromium.path) {
      context.skip(`Chromium is not installed and could not be: ${chromium.why}`);
      return;
    }
    const audit = sampleAudit();
    const dir = makeTempDir();
    const file = join(dir, "report.html");
    writeFileSync(file, renderHtmlReport(audit, { repository: "octo/impact" }));
    mkdirSync(SCREENSHOTS, { recursive: true });

    const browser = await puppeteer.launch({
      executablePath: chromium.path,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
    });
    try {
      const page = await browser.newPage();
      const problems: string[] = [];
      const requests: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error" || message.type() === "warn") problems.push(message.text());
      });
      page.on("pageerror", (error) => problems.push(String(error)));
      page.on("request", (request) => requests.push(request.url()));
      const url = pathToFileURL(file).href;

      for (const width of [1280, 390]) {
        await page.setViewport({ width, height: 900 });
        await page.goto(url, { waitUntil: "load" });
        // Run in the page (as text: this project's TypeScript has no DOM types).
        const layout = (await page.evaluate(`({
          scrollWidth: document.documentElement.scrollWidth,
          innerWidth: window.innerWidth,
          scripts: document.querySelectorAll("script").length,
          images: document.querySelectorAll("img").length,
        })`)) as { scrollWidth: number; innerWidth: number; scripts: number; images: number };
        // No sideways scrolling of the page itself (wide diffs and tables scroll in their own box).
        expect(layout.scrollWidth).toBeLessThanOrEqual(layout.innerWidth);
        expect(layout).toMatchObject({ scripts: 1, images: 0 });
        const shot = join(SCREENSHOTS, `report-${width}.png`);
        await page.screenshot({ path: shot as `${string}.png`, fullPage: true });
        expect(readFileSync(shot).subarray(1, 4).toString()).toBe("PNG");
      }
      expect(problems).toEqual([]);
      // Only the page itself was loaded: nothing fetched, nothing inlined from elsewhere.
      expect(requests.every((request) => request === url)).toBe(true);

      const text = (await page.evaluate("document.body.innerText")) as string;
      const sections = await page.$$eval("section.article", (nodes) => nodes.length);
      expect(sections).toBe(audit.articles.length);
      const rows = await page.$$eval("tbody tr", (nodes) => nodes.map((node) => node.textContent ?? ""));
      expect(rows).toHaveLength(audit.articles.length);
      for (const article of audit.articles) {
        expect(text).toContain(article.path);
        for (const reason of article.impact) expect(text).toContain(reason.detail);
        for (const edit of article.edits) {
          expect(text).toContain(edit.reason);
          for (const location of edit.evidence) expect(text).toContain(location);
        }
      }
      expect(text).toContain(HOSTILE);
      const marked = await page.$$eval("ins, del", (nodes) => nodes.map((node) => node.textContent));
      expect(marked).toEqual(expect.arrayContaining(["old", "new", "user", "account"]));
    } finally {
      await browser.close();
    }
  }, 120_000);

  it(`lets a reviewer untick edits and gives the impact apply command, which applies just the rest (screenshot review-1280.png)`, async (context) => {
    if (!chromium.path) {
      context.skip(`Chromium is not installed and could not be: ${chromium.why}`);
      return;
    }
    const repo = await auditedRepo();
    const io = captureIo(repo.dir);
    expect(await main(["report", ".impact/audit.json", "--format", "html"], io)).toBe(0);
    const file = join(makeTempDir(), "review.html");
    writeFileSync(file, io.out);
    mkdirSync(SCREENSHOTS, { recursive: true });
    const browser = await puppeteer.launch({
      executablePath: chromium.path,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
    });
    let command: string;
    try {
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error" || message.type() === "warn") problems.push(message.text());
      });
      page.on("pageerror", (error) => problems.push(String(error)));
      await page.setViewport({ width: 1280, height: 900 });
      await page.goto(pathToFileURL(file).href, { waitUntil: "load" });
      const shown = () => page.$eval("#apply-command", (node) => node.textContent ?? "");
      // Everything kept: the plain command.
      expect(await shown()).toBe("impact apply .impact/audit.json");
      const boxes = await page.$$eval('input[name="keep"]', (nodes) =>
        nodes.map((node) => (node as unknown as { value: string }).value),
      );
      expect(boxes).toEqual(["docs/faq.md#1", "docs/guide.md#1", "docs/guide.md#2", "docs/guide.md#3"]);
      await page.click('input[value="docs/guide.md#3"]');
      expect(await shown()).toBe("impact apply .impact/audit.json --exclude docs/guide.md#3");
      await page.click('input[value="docs/faq.md#1"]');
      command = await shown();
      expect(command).toBe("impact apply .impact/audit.json --only docs/guide.md#1,docs/guide.md#2");
      await page.screenshot({
        path: join(SCREENSHOTS, "review-1280.png") as `${string}.png`,
        fullPage: true,
      });
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
    // The command as the page gives it, run: only the kept edits reach the files.
    const applied = captureIo(repo.dir);
    expect(await main(command.split(" ").slice(1), applied)).toBe(0);
    expect(applied.out).toContain("left out docs/guide.md#3: say what 0.0.0.0 means");
    expect(readFileSync(join(repo.dir, "docs/guide.md"), "utf8")).toBe(
      GUIDE.replace("8080", "9090").replace("host is localhost", "host is 0.0.0.0"),
    );
  }, 120_000);
});
