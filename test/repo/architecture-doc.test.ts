import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Places the page names that are made at run time or by a build, not kept in the repository. */
const MADE_LATER = /^(\.impact\/|dist\/|node_modules\/|schema\/audit\.schema\.json$)/;

/** The repository files and folders a page names in code spans: `cli/git/run.ts`, `matcher.ts`, `cli/plan/`. */
function namedPaths(markdown: string): string[] {
  const names = new Set<string>();
  for (const [, span] of markdown.matchAll(/`([^`\s]+)`/g)) {
    const name = span!.replace(/[),.:;]+$/, "");
    if (/[<>*{}$]/.test(name) || MADE_LATER.test(name)) continue;
    const isPath = /^[\w.-]+(\/[\w.-]+)*\/?$/.test(name) && name.includes("/") && !name.startsWith("/");
    const isFile = /^[\w.-]+\.(ts|mjs|json|md)$/.test(name);
    if (isPath || isFile) names.add(name);
  }
  return [...names];
}

describe("docs/architecture.md", () => {
  it("names only files and folders that exist", () => {
    const page = readFileSync(join(ROOT, "docs/architecture.md"), "utf8");
    const tracked = execFileSync("git", ["ls-files"], { cwd: ROOT, encoding: "utf8" }).split("\n");
    const fileNames = new Set(tracked.map((path) => basename(path)));
    const missing = namedPaths(page).filter((name) =>
      name.includes("/") ? !existsSync(join(ROOT, name)) : !fileNames.has(name),
    );
    expect(missing).toEqual([]);
    expect(namedPaths(page).length).toBeGreaterThan(40);
  });
});
