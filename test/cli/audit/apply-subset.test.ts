import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../../cli/main.js";
import { auditedRepo, FAQ, GUIDE } from "../../helpers/edit-audit.js";
import type { TestRepo } from "../../helpers/git-repo.js";
import { captureIo } from "../../helpers/io.js";

async function apply(repo: TestRepo, ...args: string[]) {
  const io = captureIo(repo.dir);
  const code = await main(["apply", ".impact/audit.json", ...args], io);
  return { code, out: io.out, err: io.err };
}

const read = (repo: TestRepo, path: string) => readFileSync(join(repo.dir, path), "utf8");

describe("impact apply --only / --exclude", () => {
  it("applies only the chosen edits, rebuilding the split article's patch, and lists what was left out", async () => {
    const repo = await auditedRepo();
    // The report names each edit by its id.
    const report = captureIo(repo.dir);
    expect(await main(["report", ".impact/audit.json"], report)).toBe(0);
    expect(report.out).toContain("3. replace, line 10 (`docs/guide.md#3`): say what 0.0.0.0 means");
    const result = await apply(repo, "--only", "docs/guide.md#1,docs/guide.md#2");
    expect(result.err).toBe("");
    expect(result.code).toBe(0);
    expect(result.out).toBe(
      [
        "applied docs/guide.md",
        "left out docs/faq.md#1: PORT is 9090",
        "left out docs/guide.md#3: say what 0.0.0.0 means",
        "",
      ].join("\n"),
    );
    expect(read(repo, "docs/guide.md")).toBe(
      GUIDE.replace("8080", "9090").replace("host is localhost", "host is 0.0.0.0"),
    );
    expect(read(repo, "docs/faq.md")).toBe(FAQ);
  });

  it("excludes a whole article by its path, and reports what it left out as JSON", async () => {
    const repo = await auditedRepo();
    const result = await apply(repo, "--exclude", "docs/guide.md", "--json");
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out)).toEqual({
      written: ["docs/faq.md"],
      alreadyApplied: [],
      leftOut: [
        { id: "docs/guide.md#1", path: "docs/guide.md", reason: "PORT is 9090" },
        { id: "docs/guide.md#2", path: "docs/guide.md", reason: "HOST is 0.0.0.0" },
        { id: "docs/guide.md#3", path: "docs/guide.md", reason: "say what 0.0.0.0 means" },
      ],
    });
    expect(read(repo, "docs/guide.md")).toBe(GUIDE);
  });

  it("refuses, writing nothing, an edit kept without the one it builds on, and an unknown id", async () => {
    const repo = await auditedRepo();
    const dependent = await apply(repo, "--exclude", "docs/guide.md#2");
    expect(dependent.code).toBe(2);
    expect(dependent.err).toMatch(
      /^impact apply: docs\/guide.md: cannot apply only some of its edits: docs\/guide.md#3 changes text that docs\/guide.md#2 wrote \(.*\); keep that edit too, or leave docs\/guide.md#3 out as well\n$/,
    );
    expect(read(repo, "docs/guide.md")).toBe(GUIDE);
    expect(read(repo, "docs/faq.md")).toBe(FAQ);

    const unknown = await apply(repo, "--only", "docs/guide.md#9");
    expect(unknown.code).toBe(2);
    expect(unknown.err).toBe(
      "impact apply: --only docs/guide.md#9: no edit of an updated article has this id; ids look like docs/a.md#2 (impact report lists them), or give an article's path for all its edits\n",
    );
  });
});
