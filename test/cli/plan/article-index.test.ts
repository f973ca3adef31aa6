import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { main } from "../../../cli/main.js";
import { ARTICLE_INDEX_CACHE, indexArticles } from "../../../cli/plan/article-index.js";
import { listArticleEntries } from "../../../cli/plan/articles.js";
import { fingerprint, longestPart, ReferenceMatcher, termKey } from "../../../cli/plan/matcher.js";
import { VERSION } from "../../../cli/version.js";
import { ConfigSchema } from "../../../shared/config.js";
import { gitRepo, type TestRepo } from "../../helpers/git-repo.js";
import { captureIo } from "../../helpers/io.js";
import { cacheEntryPath, readCachePayload, resealCacheEntry } from "../../helpers/state.js";

const indexFile = (dir: string) => cacheEntryPath(dir, "articles", "index.bin");

async function plan(dir: string, args: string[] = []): Promise<string> {
  const io = captureIo(dir);
  // The whole bar at 0.3: these tests are about which articles are read, not the ranking.
  expect(await main(["plan", "--json", "--min-score", "0.3", ...args], io)).toBe(0);
  return io.out;
}

/** The plan with no article index left from an earlier plan (a fresh checkout). */
async function coldPlan(dir: string, args: string[] = []): Promise<string> {
  rmSync(indexFile(dir), { force: true });
  return plan(dir, args);
}

const flagged = (output: string) =>
  (JSON.parse(output) as { articles: { path: string }[] }).articles.map((article) => article.path).sort();

/** A repository whose last commit changes the signature of `loadWidget`, with articles around it. */
function widgetRepo(): TestRepo {
  const repo = gitRepo({
    "src/widget.ts": "export function loadWidget(name: string): string {\n  return name;\n}\n",
    "docs/widget.md": "# Widget\n\nCall `loadWidget(name)` to load one.\n",
    "docs/later.md": "# Later\n\nNothing about code yet.\n",
    "docs/other.md": "# Other\n\nUnrelated prose.\n",
    "docs/watch.md": "---\nattention:\n  - op: file\n    path: src/widget.ts\n---\n# Watch\n",
  });
  repo.commit({
    "src/widget.ts":
      "export function loadWidget(name: string, strict = false): string {\n  return strict ? name.trim() : name;\n}\n",
  });
  return repo;
}

/**
 * Overwrites every stored hash with 0 (a stored entry then claims its article mentions
 * nothing) and seals the entry again as this machine would, under `version` when given.
 */
async function blankStoredHashes(dir: string, version?: string): Promise<void> {
  await resealCacheEntry(
    indexFile(dir),
    (file) => {
      const newline = file.indexOf(10);
      const blanked = Buffer.concat([
        file.subarray(0, newline + 1),
        Buffer.alloc(file.length - newline - 1, 0),
      ]);
      // Keep the padding spaces between the header line and the hashes.
      file.copy(blanked, newline + 1, newline + 1, Math.ceil((newline + 1) / 4) * 4);
      return blanked;
    },
    { version },
  );
}

describe("the article index (.impact/cache/articles/)", { timeout: 60_000 }, () => {
  it("gives the same plan as reading every article, and is written by the first plan", async () => {
    const repo = widgetRepo();
    const cold = await coldPlan(repo.dir);
    expect(flagged(cold)).toEqual(["docs/watch.md", "docs/widget.md"]);
    expect(readCachePayload(indexFile(repo.dir)).length).toBeGreaterThan(0);
    expect(await plan(repo.dir)).toBe(cold);
    // The index is read: with every stored fingerprint blanked, the article naming the
    // symbol is no longer opened (this is what the tests below rely on to fail).
    await blankStoredHashes(repo.dir);
    expect(flagged(await plan(repo.dir))).toEqual(["docs/watch.md"]);
  });

  it("never serves a changed article from the index, edited or committed", async () => {
    const repo = widgetRepo();
    await coldPlan(repo.dir);
    await blankStoredHashes(repo.dir);
    // Edited in the working tree: git no longer vouches for the index's blob.
    repo.write({ "docs/later.md": "# Later\n\nNow `loadWidget` takes a strict flag.\n" });
    expect(flagged(await plan(repo.dir))).toContain("docs/later.md");
    // Committed before the next code change: a new blob, so a new entry.
    repo.commit({}, "docs");
    await blankStoredHashes(repo.dir);
    repo.commit({
      "src/widget.ts":
        "export function loadWidget(name: string, strict = true): string {\n  return strict ? name.trim() : name;\n}\n",
    });
    // docs/widget.md's blob is unchanged, so its blanked entry still stands in for it.
    expect(flagged(await plan(repo.dir))).toEqual(["docs/later.md", "docs/watch.md"]);
  });

  it("ignores an index written by another version of Impact", async () => {
    const repo = widgetRepo();
    await coldPlan(repo.dir);
    const other = VERSION.replace(/\d$/, (digit) => String((Number(digit) + 1) % 10));
    await blankStoredHashes(repo.dir, `${ARTICLE_INDEX_CACHE.format}-${other}`);
    expect(flagged(await plan(repo.dir))).toEqual(["docs/watch.md", "docs/widget.md"]);
  });

  it("gives the plan of a fresh checkout after the config changes", async () => {
    const repo = widgetRepo();
    repo.write({ "guides/setup.md": "# Setup\n\nRun `loadWidget` first.\n" });
    await coldPlan(repo.dir);
    for (const config of [
      { docs: ["docs/**/*.md", "guides/**/*.md"] },
      { docs: ["guides/**/*.md", "docs/**/*.md"], ignoreSymbols: ["loadWidget"] },
      { docs: ["docs/**/*.md", "guides/**/*.md"], ignore: ["docs/watch.md"] },
    ]) {
      writeFileSync(join(repo.dir, "impact.config.json"), JSON.stringify(config));
      const warm = await plan(repo.dir);
      expect(warm).toBe(await coldPlan(repo.dir));
    }
  });

  it("keys working-tree bytes apart from blobs, and leaves out what cannot be read", async () => {
    const repo = widgetRepo();
    repo.write({ "docs/untracked.md": "# Untracked\n\n`loadWidget`\n" });
    const listed = await listArticleEntries(repo.dir, ConfigSchema.parse({}));
    expect(listed.find((entry) => entry.path === "docs/untracked.md")?.sha).toBeUndefined();
    expect(listed.find((entry) => entry.path === "docs/widget.md")?.sha).toMatch(/^[0-9a-f]{40}$/);
    rmSync(join(repo.dir, "docs/other.md"));
    const worktree = await indexArticles(repo.dir, listed, {});
    expect([...worktree.keys()]).toEqual(
      listed.map((entry) => entry.path).filter((path) => path !== "docs/other.md"),
    );
    expect(worktree.get("docs/watch.md")?.attention).toBe(true);
    expect(worktree.get("docs/widget.md")?.attention).toBe(false);
    const head = repo.git("rev-parse", "HEAD");
    const atHead = await indexArticles(
      repo.dir,
      await listArticleEntries(repo.dir, ConfigSchema.parse({}), { revision: head }),
      {
        revision: head,
      },
    );
    expect(atHead.get("docs/widget.md")?.hashes).toEqual(worktree.get("docs/widget.md")?.hashes);
  });
});

describe("fingerprint", () => {
  const term = fc.stringMatching(/^[A-Za-z_][\w./-]{0,12}$/);
  const filler = fc.constantFrom(" ", "\n", "`", "(", ")", ".", "/", "-", "é", "a", "Z", "_", "9", "'", ":");

  it("holds the key of every term the matcher finds in a text", () => {
    fc.assert(
      fc.property(
        fc.array(term, { minLength: 1, maxLength: 6 }),
        fc.array(fc.oneof(term, filler), { maxLength: 40 }),
        (terms, pieces) => {
          const bytes = Buffer.from(pieces.join(""), "utf8");
          const matcher = new ReferenceMatcher(terms);
          const keys = new Set(fingerprint(bytes));
          for (const id of matcher.scan(bytes)) expect(keys.has(termKey(terms[id]!))).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("holds the key of the longest part of any text it is given, the word a rule asks the index for", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(term, filler), { minLength: 1, maxLength: 20 }), (pieces) => {
        const text = pieces.join("");
        const part = longestPart(text);
        if (part !== "")
          expect(new Set(fingerprint(Buffer.from(text, "utf8"))).has(termKey(part))).toBe(true);
      }),
      { numRuns: 500 },
    );
    expect(longestPart("\thome, err := homedir.Dir()")).toBe("homedir");
    expect(longestPart("docs:dev-- x")).toBe("docs");
  });

  it("lists each part once, dashes at a part's end not counted", () => {
    const parts = fingerprint(Buffer.from("load load-- cli/load.ts"));
    expect(parts.length).toBe(new Set(parts).size);
    expect([...parts]).toEqual([termKey("load"), termKey("cli"), termKey("ts")]);
  });

  it("keeps each text's fingerprint intact while later texts are fingerprinted", () => {
    const first = fingerprint(Buffer.from("alpha beta gamma"));
    // More distinct parts than one slab of values holds, so the shared store is replaced.
    const words = Array.from({ length: 300_000 }, (_, index) => `w${index}`);
    const large = fingerprint(Buffer.from(words.join(" ")));
    const last = fingerprint(Buffer.from("delta epsilon"));
    expect([...first]).toEqual(["alpha", "beta", "gamma"].map(termKey));
    expect(large.length).toBe(new Set(words.map(termKey)).size);
    expect([large[0], large[299_999]]).toEqual([termKey("w0"), termKey("w299999")]);
    expect([...last]).toEqual(["delta", "epsilon"].map(termKey));
  });
});
