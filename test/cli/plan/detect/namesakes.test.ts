import { describe, expect, it } from "vitest";
import { main } from "../../../../cli/main.js";
import { stemOf } from "../../../../cli/plan/detect/namesakes.js";
import { gitRepo } from "../../../helpers/git-repo.js";
import { captureIo } from "../../../helpers/io.js";
import { details, flagged, planJson, related } from "../../../helpers/plan-json.js";

const config = { "impact.config.json": JSON.stringify({ docs: ["docs/**/*.md"] }) };

/** A module whose private helper changes: nothing public, nothing any article names. */
const helper = (body: string) => `def _wrap(stream):\n    return ${body}\n`;

describe("an article named after a changed file is related, never flagged", { timeout: 120_000 }, () => {
  it.each([
    ["src/pkg/testing.py", "docs/testing.md"],
    ["src/core/errors.py", "docs/8-errors.md"],
    ["src/pkg/stream.py", "docs/guide/3-streams.md"],
    ["CONTRIBUTING.md", "docs/contributing.md"],
  ])("%s → %s", async (file, article) => {
    const repo = gitRepo({
      ...config,
      [file]: helper("stream"),
      [article]: "# About\n\nHow this part works.\n",
      "docs/other.md": "# Other\n\nSomething else.\n",
    });
    repo.commit({ [file]: helper("stream or None") });
    const plan = await planJson(repo);
    expect(flagged(plan)).toEqual([]);
    expect(related(plan)).toEqual([article]);
    expect(details(plan, article)).toEqual([`named after the changed file ${file}`]);
  });

  it("reads structural names by their folder, and leaves an article with stale evidence as it was", async () => {
    const repo = gitRepo({
      ...config,
      "src/index.ts": "export function start(port: number) {\n  return port;\n}\n",
      "src/cache/index.ts": "export const size = 1;\n",
      "docs/index.md": "# Home\n\nWelcome.\n",
      "docs/cache.md": "# Cache\n\nCall `start(port)` first.\n",
    });
    repo.commit({
      "src/index.ts": "export function start(port: number, host: string) {\n  return port + host;\n}\n",
      "src/cache/index.ts": "export const size = 2;\n",
    });
    const plan = await planJson(repo);
    // docs/cache.md is stale by the signature it quotes: its reasons (and score) are the stale rule's alone.
    expect(flagged(plan)).toEqual(["docs/cache.md"]);
    expect(details(plan, "docs/cache.md").some((detail) => detail.startsWith("named after"))).toBe(false);
    expect(related(plan)).toEqual([]);
  });

  it("adds nothing to an article a mapping ties to the file already", async () => {
    const repo = gitRepo({
      "impact.config.json": JSON.stringify({
        docs: ["docs/**/*.md"],
        mappings: [{ code: "src/:name.ts", docs: "docs/:name.md" }],
      }),
      "src/cache.ts": "function evict(size: number) {\n  return size;\n}\n",
      "docs/cache.md": "# Cache\n\nHow entries are evicted.\n",
    });
    repo.commit({ "src/cache.ts": "function evict(size: number) {\n  return size - 1;\n}\n" });
    const plan = await planJson(repo);
    expect(related(plan)).toEqual(["docs/cache.md"]);
    expect(details(plan, "docs/cache.md")).toEqual(["mapping src/:name.ts → docs/:name.md (name=cache)"]);
  });

  it("never takes the package's own name for a namesake: a page named after the project is about all of it", async () => {
    const repo = gitRepo({
      ...config,
      "package.json": JSON.stringify({ name: "widget", version: "1.0.0" }),
      "src/widget.ts": "function wrap(stream: string) {\n  return stream;\n}\n",
      "docs/widget.md": "# Widget\n\nWhat the project does.\n",
    });
    repo.commit({ "src/widget.ts": "function wrap(stream: string) {\n  return stream.trim();\n}\n" });
    const plan = await planJson(repo);
    expect(related(plan)).toEqual([]);
  });

  it("compares stems without numeric prefixes, separators and a plural s", () => {
    expect(stemOf("documentation/8-errors.md")).toBe(stemOf("source/core/errors.ts"));
    expect(stemOf("docs/user_guide.md")).toBe(stemOf("src/user-guide.go"));
    expect(stemOf("docs/errors/index.md")).toBe("error");
    expect(stemOf("src/index.ts")).toBe("");
    expect(stemOf("docs/api.md")).toBe("");
  });
});

describe("an article documenting an error the change now raises is related", { timeout: 120_000 }, () => {
  const errors =
    "# Errors\n\n### `ReadError`\n\nWhen reading the response fails.\n\n### `ParseError`\n\nWhen parsing fails.\n";
  const source = (check: string) =>
    `import {ReadError} from './errors.js';\n\nexport function read(size: number) {\n  ${check}\n  return size;\n}\n`;

  it("by a heading naming it, not by a passing mention; --explain says why", async () => {
    const repo = gitRepo({
      ...config,
      "src/read.ts": source("if (size < 0) return 0;"),
      "docs/failures.md": errors,
      "docs/guide.md": "# Guide\n\nA failed read rejects with a `ReadError`.\n",
    });
    repo.commit({ "src/read.ts": source("if (size < 0) throw new ReadError('negative size');") });
    const plan = await planJson(repo);
    expect(flagged(plan)).toEqual([]);
    expect(related(plan)).toEqual(["docs/failures.md"]);
    const why = "documents ReadError, which a changed line of src/read.ts now raises";
    expect(details(plan, "docs/failures.md")).toEqual([why]);

    const io = captureIo(repo.dir);
    expect(await main(["plan", "--explain", "docs/failures.md"], io), io.err).toBe(0);
    expect(io.out).toContain(why);
    expect(io.out).toMatch(/related: it is about the changed code/);
  });
});
