import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

function markdownFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith(".md") ? [path] : [];
  });
}

const DOCS = ["README.md", "CONTRIBUTING.md", "CHANGELOG.md", ...markdownFiles("docs")];
/** Folders of this repository: a backticked path under one of them names a file of ours. */
const OWN_FOLDERS = /^(?:cli|shared|backend|prompts|test|bench|schema|examples|\.ci|\.github)\//;

/** The files a document names that do not exist: relative links, and backticked paths in our folders. */
function missingReferences(doc: string, text = readFileSync(join(ROOT, doc), "utf8")): string[] {
  const missing: string[] = [];
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:|^#/.test(target!)) continue;
    const path = target!.replace(/#.*$/, "");
    if (!existsSync(join(ROOT, dirname(doc), path))) missing.push(`link ${target}`);
  }
  for (const [, code] of text.matchAll(/`([^`\s]+)`/g)) {
    const path = code!.replace(/:\d+(?:-\d+)?$/, "");
    // Globs and placeholders describe many files or none in particular.
    if (!OWN_FOLDERS.test(path) || /[*<>{}…]|\.\.\./.test(path)) continue;
    if (!existsSync(join(ROOT, path))) missing.push(`path ${code}`);
  }
  return missing;
}

describe("the product's docs", () => {
  it.each(DOCS)("%s names only files that exist", (doc) => {
    expect(missingReferences(doc)).toEqual([]);
  });

  it.each(DOCS)("%s stands alone: no citation of the team's handbook", (doc) => {
    const text = readFileSync(join(ROOT, doc), "utf8");
    expect(text).not.toMatch(/DESIGN\.md|STYLE\.md|\.\.\/shared\b/);
  });

  it("the checker catches a broken link and a missing path, and leaves globs and URLs alone", () => {
    const text =
      "See [usage](usage.md), [gone](gone.md), [site](https://example.com), `cli/main.ts`, " +
      "`cli/no-such-file.ts:12`, `docs/**`, `shared/<name>.ts` and `src/app.ts`.";
    expect(missingReferences("docs/x.md", text)).toEqual(["link gone.md", "path cli/no-such-file.ts:12"]);
  });
});
