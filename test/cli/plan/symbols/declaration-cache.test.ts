import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadChangeSet } from "../../../../cli/plan/read-change-set.js";
import { DECLARATION_CACHE } from "../../../../cli/plan/symbols/declaration-cache.js";
import type { Declaration } from "../../../../cli/plan/symbols/declarations.js";
import { inProcessExtractor } from "../../../../cli/plan/symbols/extractor.js";
import { VERSION } from "../../../../cli/version.js";
import { Workdir } from "../../../../cli/workdir/workdir.js";
import type { ChangeSet } from "../../../../shared/changeset.js";
import { gitRepo, type TestRepo } from "../../../helpers/git-repo.js";
import { cacheEntryPath, readCachePayload, resealCacheEntry } from "../../../helpers/state.js";

/** A repository whose last commit changes the signature of `loadWidget` and adds `dropWidget`. */
function widgetRepo(): TestRepo {
  const repo = gitRepo({
    "src/widget.ts": "export function loadWidget(name: string): string {\n  return name;\n}\n",
    "docs/widget.md": "# Widget\n\nCall `loadWidget(name)` to load one.\n",
  });
  repo.commit({
    "src/widget.ts":
      "export function loadWidget(name: string, strict = false): string {\n  return strict ? name.trim() : name;\n}\n\nexport function dropWidget(): void {}\n",
  });
  return repo;
}

const symbolsOf = (changeSet: ChangeSet) =>
  changeSet.symbols.map((symbol) => `${symbol.change} ${symbol.name}`).sort();

/** The change set with the repository's workdir, its cache writes going straight to disk. */
async function changeSetOf(repo: TestRepo): Promise<ChangeSet> {
  const workdir = new Workdir(repo.dir, { env: {} });
  await workdir.save();
  return loadChangeSet({ repo: repo.dir, extractor: inProcessExtractor, workdir });
}

interface StoredCache {
  parser: string;
  entries: Record<string, Declaration[]>;
}

const cacheFile = (repo: TestRepo) => cacheEntryPath(repo.dir, "declarations", "index.json");

const readCache = (repo: TestRepo) =>
  JSON.parse(readCachePayload(cacheFile(repo)).toString("utf8")) as StoredCache;

/** Writes the cache as this machine would (sealed), under another entry version when given. */
const writeCache = (repo: TestRepo, content: unknown, version?: string) =>
  resealCacheEntry(cacheFile(repo), () => (typeof content === "string" ? content : JSON.stringify(content)), {
    version,
  });

describe("the declaration cache (.impact/cache/declarations/)", () => {
  it("keeps each parsed file version's declarations by blob sha, without their bodies' text", async () => {
    const repo = widgetRepo();
    const cold = await changeSetOf(repo);
    expect(symbolsOf(cold)).toEqual(["added dropWidget", "signature loadWidget"]);
    const stored = readCache(repo);
    const before = repo.git("rev-parse", "HEAD~1:src/widget.ts");
    const after = repo.git("rev-parse", "HEAD:src/widget.ts");
    expect(Object.keys(stored.entries).sort()).toEqual(
      [`${after}:typescript`, `${before}:typescript`].sort(),
    );
    const declared = stored.entries[`${after}:typescript`]!;
    expect(declared.map((declaration) => declaration.name)).toEqual(["loadWidget", "dropWidget"]);
    // The body is kept as a digest: equal bodies stay equal, the text is not stored.
    expect(declared[0]!.body).toMatch(/^#[A-Za-z0-9+/]{22}$/);
    expect(JSON.stringify(stored)).not.toContain("name.trim()");
    // A second plan over the same change finds the same symbols.
    expect(symbolsOf(await changeSetOf(repo))).toEqual(symbolsOf(cold));
  });

  it("takes a cached file version's declarations instead of parsing it again", async () => {
    const repo = widgetRepo();
    await changeSetOf(repo);
    const stored = readCache(repo);
    const after = `${repo.git("rev-parse", "HEAD:src/widget.ts")}:typescript`;
    // Claim the head declares a third function: only a plan that trusts the cache reports it.
    const [first] = stored.entries[after]!;
    stored.entries[after]!.push({ ...first!, name: "cachedOnly", path: "cachedOnly" });
    await writeCache(repo, stored);
    expect(symbolsOf(await changeSetOf(repo))).toEqual([
      "added cachedOnly",
      "added dropWidget",
      "signature loadWidget",
    ]);
  });

  it.each<[string, (stored: StoredCache) => unknown, string?]>([
    ["is not JSON", () => "{ not json"],
    [
      "has a malformed entry",
      (stored: StoredCache) => ({
        ...stored,
        entries: { ...stored.entries, extra: [{ name: "x", kind: "function", line: "one" }] },
      }),
    ],
    [
      "was written by another version",
      (stored: StoredCache) => stored,
      `${DECLARATION_CACHE.format}-0.0.0-other`,
    ],
    ["was written with another parser", (stored: StoredCache) => ({ ...stored, parser: "other" })],
    ["was written in another format", (stored: StoredCache) => stored, `-1-${VERSION}`],
  ])("ignores a cache file that %s, and writes a sound one", async (_, damage, version) => {
    const repo = widgetRepo();
    const cold = symbolsOf(await changeSetOf(repo));
    const stored = readCache(repo);
    // Every entry claims a declaration the files do not have: trusting any of it would show.
    for (const key of Object.keys(stored.entries)) {
      stored.entries[key] = [{ ...stored.entries[key]![0]!, name: "untrusted", path: "untrusted" }];
    }
    await writeCache(repo, damage(stored), version);
    expect(symbolsOf(await changeSetOf(repo))).toEqual(cold);
    expect(Object.values(readCache(repo).entries).flat()).not.toContainEqual(
      expect.objectContaining({ name: "untrusted" }),
    );
  });

  it("caches nothing for a --diff input without revisions (no whole file version is parsed)", async () => {
    const repo = widgetRepo();
    const diff = repo.git("diff", "HEAD~1", "HEAD");
    const workdir = new Workdir(repo.dir, { env: {} });
    await workdir.save();
    const changeSet = await loadChangeSet({
      repo: repo.dir,
      diffText: diff,
      extractor: inProcessExtractor,
      workdir,
    });
    expect(symbolsOf(changeSet)).toContain("signature loadWidget");
    expect(existsSync(cacheFile(repo))).toBe(false);
  });
});
