import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../cli/main.js";
import { contentHash } from "../shared/hash.js";
import { auditArticle, auditOf } from "./helpers/audit-fixture.js";
import { gitRepo, type TestRepo } from "./helpers/git-repo.js";
import { captureIo } from "./helpers/io.js";

const LOGIN_BEFORE = "# Login\n\nRun `impact login --user NAME`.\n";
const LOGIN_AFTER = "# Login\n\nRun `impact login --account NAME`.\n";
const SETUP_BEFORE = "# Setup\r\n\r\nSet `IMPACT_USER`.\r\n";
const SETUP_AFTER = "# Setup\r\n\r\nSet `IMPACT_ACCOUNT`.\r\n";

/** A repo at the "before" state, and an audit whose patches are real `git diff` output. */
function repoWithAudit(): { repo: TestRepo; auditFile: string } {
  const repo = gitRepo({
    "docs/login.md": LOGIN_BEFORE,
    "docs/setup.md": SETUP_BEFORE,
    "docs/new/.keep": "",
  });
  repo.write({
    "docs/login.md": LOGIN_AFTER,
    "docs/setup.md": SETUP_AFTER,
    "docs/new/created.md": "# New\n",
  });
  repo.git("add", "-N", "docs/new/created.md");
  // Not repo.git: its trimEnd would eat the last line's \r.
  const patch = (path: string) =>
    execFileSync("git", ["diff", "--no-color", "--", path], { cwd: repo.dir, encoding: "utf8" });
  const audit = auditOf([
    auditArticle("docs/login.md", {
      patch: patch("docs/login.md"),
      hashBefore: contentHash(LOGIN_BEFORE),
      hashAfter: contentHash(LOGIN_AFTER),
    }),
    auditArticle("docs/setup.md", {
      patch: patch("docs/setup.md"),
      hashBefore: contentHash(SETUP_BEFORE),
      hashAfter: contentHash(SETUP_AFTER),
    }),
    auditArticle("docs/new/created.md", {
      patch: patch("docs/new/created.md"),
      hashBefore: null,
      hashAfter: contentHash("# New\n"),
      created: true,
    }),
    auditArticle("docs/same.md", { status: "unchanged" }),
  ]);
  repo.git("reset", "-q", "--hard");
  repo.git("clean", "-qfd");
  const auditFile = join(repo.dir, ".impact-audit.json");
  writeFileSync(auditFile, JSON.stringify(audit));
  return { repo, auditFile };
}

describe("impact apply", () => {
  it("writes every updated article's patch, byte for byte (CRLF kept), and created files", async () => {
    const { repo, auditFile } = repoWithAudit();
    const io = captureIo(repo.dir);
    const code = await main(["apply", auditFile], io);
    expect(io.err).toBe("");
    expect(code).toBe(0);
    expect(readFileSync(join(repo.dir, "docs/login.md"), "utf8")).toBe(LOGIN_AFTER);
    expect(readFileSync(join(repo.dir, "docs/setup.md"), "utf8")).toBe(SETUP_AFTER);
    expect(readFileSync(join(repo.dir, "docs/new/created.md"), "utf8")).toBe("# New\n");
    expect(io.out).toMatchInlineSnapshot(`
      "applied docs/login.md
      applied docs/setup.md
      applied docs/new/created.md
      "
    `);
    // A second apply finds everything in place and changes nothing.
    const again = captureIo(repo.dir);
    expect(await main(["apply", auditFile, "--repo", repo.dir], again)).toBe(0);
    expect(again.out).toContain("already applied docs/login.md");
  });

  it("refuses a stale file by name, exit 2, and writes nothing at all", async () => {
    const { repo, auditFile } = repoWithAudit();
    writeFileSync(join(repo.dir, "docs/setup.md"), "# Setup\r\n\r\nSomeone edited this.\r\n");
    const io = captureIo(repo.dir);
    expect(await main(["apply", auditFile], io)).toBe(2);
    expect(io.err).toMatchInlineSnapshot(`
      "impact: refusing to apply, nothing was written: docs/setup.md: it changed since the audit (hash b2b440275db68610, expected 2fe600b52bc5e19f)
      "
    `);
    expect(readFileSync(join(repo.dir, "docs/login.md"), "utf8")).toBe(LOGIN_BEFORE);
    expect(repo.git("status", "--porcelain", "--", "docs")).toBe(" M docs/setup.md");
  });

  it("refuses an audit whose paths leave the repository", async () => {
    const { repo } = repoWithAudit();
    const audit = auditOf([auditArticle("../outside.md", { hashBefore: null })]);
    writeFileSync(join(repo.dir, "evil.json"), JSON.stringify(audit));
    const io = captureIo(repo.dir);
    expect(await main(["apply", "evil.json"], io)).toBe(2);
    expect(io.err).toContain("../outside.md: not a path inside the repository");
  });
});
