import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type ApplyFile, applyAudit, decideApply, StaleFiles } from "../../../cli/audit/apply-audit.js";
import { main } from "../../../cli/main.js";
import { articleSelector, listArticles } from "../../../cli/plan/articles.js";
import type { PathRefusal } from "../../../cli/run/sandbox.js";
import type { AuditArticle } from "../../../shared/audit.js";
import { ConfigSchema } from "../../../shared/config.js";
import { contentHash } from "../../../shared/hash.js";
import { createFilePatch } from "../../../shared/patch.js";
import { auditArticle, auditOf } from "../../helpers/audit-fixture.js";
import { gitRepo, makeTempDir, type TestRepo } from "../../helpers/git-repo.js";
import { captureIo } from "../../helpers/io.js";
import { testToolHost } from "../../helpers/tool-host.js";

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
      "impact apply: refusing to apply, nothing was written: docs/setup.md: it changed since the audit (hash b2b440275db68610, expected 2fe600b52bc5e19f)
      "
    `);
    expect(readFileSync(join(repo.dir, "docs/login.md"), "utf8")).toBe(LOGIN_BEFORE);
    expect(repo.git("status", "--porcelain", "--", "docs")).toBe(" M docs/setup.md");
  });

  it("finds the repository root from a subdirectory, and names a directory that is not a repository", async () => {
    const repo = gitRepo({ "docs/a.md": "a\n", "impact.config.json": '{"docs": ["docs/**/*.md"]}\n' });
    const auditFile = join(repo.dir, "audit.json");
    writeFileSync(auditFile, JSON.stringify(auditOf([created("docs/new.md", "# New\n")])));
    const io = captureIo(join(repo.dir, "docs"));
    expect(await main(["apply", auditFile], io)).toBe(0);
    expect(readFileSync(join(repo.dir, "docs/new.md"), "utf8")).toBe("# New\n");
    expect(existsSync(join(repo.dir, "docs/docs"))).toBe(false);

    const plain = makeTempDir();
    const outside = captureIo(plain);
    expect(await main(["apply", auditFile], outside)).toBe(2);
    expect(outside.err.replaceAll(plain, "<dir>")).toMatchInlineSnapshot(`
      "impact apply: not a git repository: <dir> (run impact inside a git checkout, or pass --repo DIR)
      "
    `);
  });
});

/** An audit entry that creates `path` with `content`. */
function created(path: string, content: string): AuditArticle {
  return auditArticle(path, {
    patch: createFilePatch(path, null, content),
    hashBefore: null,
    hashAfter: contentHash(content),
    created: true,
  });
}

/** An audit entry that changes `path` from `before` to `after`. */
function updated(path: string, before: string, after: string): AuditArticle {
  return auditArticle(path, {
    patch: createFilePatch(path, before, after),
    hashBefore: contentHash(before),
    hashAfter: contentHash(after),
  });
}

const DEFAULT_CONFIG = ConfigSchema.parse({});

/** Every file under `dir` (symlinks not followed), with its bytes, to prove nothing changed. */
function snapshotTree(dir: string): Record<string, string> {
  const tree: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isFile()) tree[path] = readFileSync(path, "base64");
    else if (entry.isSymbolicLink()) tree[path] = `-> ${lstatSync(path).size}`;
  }
  return tree;
}

describe("applyAudit: the audit is untrusted", () => {
  it("refuses paths the sandbox or the docs globs forbid, names each, and writes nothing", async () => {
    const repo = gitRepo({
      "docs/a.md": "a\n",
      ".env": "SECRET=1\n",
      "sub/.keep": "",
      "impact.config.json": '{"deny": ["docs/private/**"]}\n',
    });
    const outside = makeTempDir();
    symlinkSync("../.env", join(repo.dir, "docs/env.md"));
    symlinkSync("../.git", join(repo.dir, "docs/gitdir"));
    symlinkSync(outside, join(repo.dir, "docs/out"));
    symlinkSync("../sub", join(repo.dir, "docs/code"));
    const audit = auditOf([
      updated("docs/a.md", "a\n", "a2\n"),
      created("sub/.git/hooks/post-checkout", "#!/bin/sh\necho pwned\n"),
      created("docs/.GIT/hooks/post-checkout.md", "x\n"),
      created("docs/.env.d/notes.md", "x\n"),
      created("docs/id_rsa.md", "x\n"),
      created("docs/private/plan.md", "x\n"),
      created("src/evil.ts", "x\n"),
      updated("docs/env.md", "SECRET=1\n", "SECRET=2\n"),
      created("docs/gitdir/hooks/pre-commit.md", "x\n"),
      created("docs/out/x.md", "x\n"),
      created("docs/code/evil.md", "x\n"),
      created("../outside.md", "x\n"),
      created("docs/./a.md", "x\n"),
    ]);
    const auditFile = join(makeTempDir(), "audit.json");
    writeFileSync(auditFile, JSON.stringify(audit));
    const before = { repo: snapshotTree(repo.dir), outside: snapshotTree(outside) };
    const io = captureIo(repo.dir);
    expect(await main(["apply", auditFile], io)).toBe(2);
    expect(io.err.replaceAll("; ", ";\n")).toMatchInlineSnapshot(`
      "impact apply: refusing to apply, nothing was written: sub/.git/hooks/post-checkout: refused, it is inside .git/;
      docs/.GIT/hooks/post-checkout.md: refused, it is inside .git/;
      docs/.env.d/notes.md: refused, it matches the deny pattern ".env*";
      docs/id_rsa.md: refused, it matches the deny pattern "id_*";
      docs/private/plan.md: refused, it matches the deny pattern "docs/private/**";
      src/evil.ts: refused, it is not an article (not under the docs globs, or ignored);
      docs/env.md: refused, it is a symlink (or under one) to a file matching the deny pattern ".env*";
      docs/gitdir/hooks/pre-commit.md: refused, it is a symlink (or under one) into .git/;
      docs/out/x.md: refused, it is a symlink (or under one) that does not lead to a file inside the repository;
      docs/code/evil.md: refused, it is a symlink (or under one) to sub/evil.md, which is not an article;
      ../outside.md: refused, it is not a path inside the repository;
      docs/./a.md: refused, the audit names this file more than once
      "
    `);
    expect({ repo: snapshotTree(repo.dir), outside: snapshotTree(outside) }).toEqual(before);
    expect(existsSync(join(repo.dir, "sub/.git"))).toBe(false);
  });

  it("writes only articles of the config's docs globs, minus its ignore globs", async () => {
    const config = ConfigSchema.parse({ docs: ["handbook/**/*.md"], ignore: ["handbook/drafts/**"] });
    const repo = gitRepo({ "handbook/a.md": "a\n" });
    const refused = applyAudit(
      auditOf([
        created("handbook/new.md", "n\n"),
        created("docs/x.md", "x\n"),
        created("handbook/drafts/d.md", "d\n"),
      ]),
      repo.dir,
      config,
    );
    await expect(refused).rejects.toThrow(StaleFiles);
    await expect(refused).rejects.toMatchObject({
      problems: [
        "docs/x.md: refused, it is not an article (not under the docs globs, or ignored)",
        "handbook/drafts/d.md: refused, it is not an article (not under the docs globs, or ignored)",
      ],
    });
    expect(existsSync(join(repo.dir, "handbook/new.md"))).toBe(false);
    // Under the default globs handbook/ holds no articles; under this config it does.
    await expect(
      applyAudit(auditOf([created("handbook/new.md", "n\n")]), repo.dir, DEFAULT_CONFIG),
    ).rejects.toThrow("handbook/new.md: refused, it is not an article");
    expect(await applyAudit(auditOf([created("handbook/new.md", "n\n")]), repo.dir, config)).toEqual({
      written: ["handbook/new.md"],
      alreadyApplied: [],
    });
  });
});

describe("impact apply --config", () => {
  it("takes the docs globs of the config the run used", async () => {
    const repo = gitRepo({ "handbook/a.md": "a\n" });
    const auditFile = join(makeTempDir(), "audit.json");
    writeFileSync(auditFile, JSON.stringify(auditOf([created("handbook/new.md", "n\n")])));
    writeFileSync(join(repo.dir, "handbook.json"), JSON.stringify({ docs: ["handbook/**/*.md"] }));
    const io = captureIo(repo.dir);
    expect(await main(["apply", auditFile], io)).toBe(2);
    expect(io.err).toContain("handbook/new.md: refused, it is not an article");
    expect(await main(["apply", auditFile, "--config", "handbook.json", "--quiet"], io)).toBe(0);
    expect(readFileSync(join(repo.dir, "handbook/new.md"), "utf8")).toBe("n\n");
  });
});

describe("applyAudit writes", () => {
  it("refuses files changed, created or deleted since the audit, by name, and writes none of the others", async () => {
    const repo = gitRepo({ "docs/a.md": "a\n", "docs/b.md": "b\n", "docs/d.md": "d\n" });
    const audit = auditOf([
      updated("docs/a.md", "a\n", "a2\n"),
      updated("docs/b.md", "b\n", "b2\n"),
      created("docs/c.md", "c\n"),
      updated("docs/d.md", "d\n", "d2\n"),
    ]);
    writeFileSync(join(repo.dir, "docs/a.md"), "someone else\n");
    writeFileSync(join(repo.dir, "docs/c.md"), "created meanwhile\n");
    unlinkSync(join(repo.dir, "docs/d.md"));
    const error = await applyAudit(audit, repo.dir, DEFAULT_CONFIG).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StaleFiles);
    expect((error as StaleFiles).problems).toMatchInlineSnapshot(`
      [
        "docs/a.md: it changed since the audit (hash ee9e0a8c8313269c, expected 87428fc522803d31)",
        "docs/c.md: it exists already",
        "docs/d.md: it does not exist",
      ]
    `);
    expect(readFileSync(join(repo.dir, "docs/b.md"), "utf8")).toBe("b\n");
    expect(readFileSync(join(repo.dir, "docs/c.md"), "utf8")).toBe("created meanwhile\n");
  });

  it("leaves every file old when a write fails after the checks, and no temp file behind", async () => {
    const repo = gitRepo({ "docs/a.md": "a\n", "docs/b.md": "b\n" });
    // 250 bytes is a valid file name, but its temp file's name is longer than any file
    // system allows: the checks pass and the last write fails (even as root).
    const long = `docs/${"n".repeat(247)}.md`;
    const audit = auditOf([
      updated("docs/a.md", "a\n", "a2\n"),
      updated("docs/b.md", "b\n", "b2\n"),
      created(long, "new\n"),
    ]);
    await expect(applyAudit(audit, repo.dir, DEFAULT_CONFIG)).rejects.toMatchObject({ code: "ENAMETOOLONG" });
    expect(readFileSync(join(repo.dir, "docs/a.md"), "utf8")).toBe("a\n");
    expect(readFileSync(join(repo.dir, "docs/b.md"), "utf8")).toBe("b\n");
    expect(readdirSync(join(repo.dir, "docs")).sort()).toEqual(["a.md", "b.md"]);
  });

  it("keeps a file's mode, makes missing directories, and writes through a symlink inside the repository", async () => {
    const repo = gitRepo({ "docs/tool.md": "t\n", "docs/real.md": "real\n" });
    chmodSync(join(repo.dir, "docs/tool.md"), 0o750);
    symlinkSync("real.md", join(repo.dir, "docs/link.md"));
    const audit = auditOf([
      updated("docs/tool.md", "t\n", "t2\n"),
      updated("docs/link.md", "real\n", "changed\n"),
      created("docs/deep/new.md", "# New\n"),
    ]);
    expect(await applyAudit(audit, repo.dir, DEFAULT_CONFIG)).toEqual({
      written: ["docs/tool.md", "docs/link.md", "docs/deep/new.md"],
      alreadyApplied: [],
    });
    expect(statSync(join(repo.dir, "docs/tool.md")).mode & 0o777).toBe(0o750);
    expect(lstatSync(join(repo.dir, "docs/link.md")).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(repo.dir, "docs/real.md"), "utf8")).toBe("changed\n");
    expect(readFileSync(join(repo.dir, "docs/deep/new.md"), "utf8")).toBe("# New\n");
  });
});

describe("decideApply (no disk)", () => {
  const isArticle = articleSelector(DEFAULT_CONFIG);
  /** A path the sandbox passed, with what the "disk" holds there. */
  const passed = (
    article: AuditArticle,
    current: Extract<ApplyFile["check"], { ok: true }>["current"],
    realRelative = article.path,
  ): ApplyFile => ({
    article,
    check: {
      ok: true,
      resolved: {
        ok: true,
        // The sandbox normalises the path as asked.
        path: article.path.replace("/./", "/"),
        absolute: `/repo/${article.path}`,
        realPath: `/repo/${realRelative}`,
        realRelative,
      },
      current,
    },
  });
  const refused = (article: AuditArticle, refusal: Record<string, unknown>): ApplyFile => ({
    article,
    check: { ok: false, message: "for the model", ...refusal } as PathRefusal,
  });

  it("words each refusal from the sandbox's fields, not its message", () => {
    const article = (path: string) => created(path, "x\n");
    const decision = decideApply(
      [
        refused(article("docs/.env.md"), { code: "denied", pattern: ".env*", viaSymlink: false }),
        refused(article("docs/env.md"), { code: "denied", pattern: ".env*", viaSymlink: true }),
        refused(article("docs/.git/x.md"), { code: "git_dir", viaSymlink: false }),
        refused(article("docs/g.md"), { code: "git_dir", viaSymlink: true }),
        refused(article("docs/out.md"), { code: "outside_root", dangling: false }),
        refused(article("/etc/x.md"), { code: "absolute" }),
      ],
      isArticle,
    );
    expect(decision).toEqual({
      problems: [
        'docs/.env.md: refused, it matches the deny pattern ".env*"',
        'docs/env.md: refused, it is a symlink (or under one) to a file matching the deny pattern ".env*"',
        "docs/.git/x.md: refused, it is inside .git/",
        "docs/g.md: refused, it is a symlink (or under one) into .git/",
        "docs/out.md: refused, it is a symlink (or under one) that does not lead to a file inside the repository",
        "/etc/x.md: refused, it is not a path inside the repository",
      ],
      writes: [],
      alreadyApplied: [],
    });
  });

  it("writes a patch that reproduces the audited bytes, skips applied ones, and refuses stale, doubled and non-files", () => {
    const change = updated("docs/a.md", "a\n", "A\n");
    const decision = decideApply(
      [
        passed(change, { kind: "file", bytes: Buffer.from("a\n") }),
        passed(updated("docs/b.md", "b\n", "B\n"), { kind: "file", bytes: Buffer.from("B\n") }),
        passed(updated("docs/c.md", "c\n", "C\n"), { kind: "file", bytes: Buffer.from("changed\n") }),
        passed(
          updated("docs/./a.md", "a\n", "A\n"),
          { kind: "file", bytes: Buffer.from("a\n") },
          "docs/a.md",
        ),
        passed(created("docs/d.md", "d\n"), { kind: "not_file" }),
        passed(created("docs/e.md", "e\n"), { kind: "parent_not_directory" }),
        passed(created("docs/f.md", "f\n"), { kind: "file", bytes: Buffer.from("other\n") }),
        passed(updated("docs/g.md", "g\n", "G\n"), { kind: "missing" }),
        passed(created("docs/link/h.md", "h\n"), { kind: "missing" }, "src/h.md"),
        passed(created("src/i.md", "i\n"), { kind: "missing" }),
        passed(created("docs/new.md", "n\n"), { kind: "missing" }),
      ],
      isArticle,
    );
    expect(decision.writes).toEqual([
      { path: "docs/a.md", target: "/repo/docs/a.md", content: "A\n" },
      { path: "docs/new.md", target: "/repo/docs/new.md", content: "n\n" },
    ]);
    expect(decision.alreadyApplied).toEqual(["docs/b.md"]);
    expect(decision.problems).toEqual([
      `docs/c.md: it changed since the audit (hash ${contentHash("changed\n")}, expected ${contentHash("c\n")})`,
      "docs/./a.md: refused, the audit names this file more than once",
      "docs/d.md: it is not a regular file",
      "docs/e.md: a directory on its path is a file",
      "docs/f.md: it exists already",
      "docs/g.md: it does not exist",
      "docs/link/h.md: refused, it is a symlink (or under one) to src/h.md, which is not an article",
      "src/i.md: refused, it is not an article (not under the docs globs, or ignored)",
    ]);
  });
});

describe("one definition of an article", () => {
  /** What the plan, create_article and apply each say of `path` under `config`. */
  async function verdicts(config: typeof DEFAULT_CONFIG, path: string) {
    const repo = gitRepo({ "docs/a.md": "# A\n", [path]: "# Hidden\n" });
    const planned = (await listArticles(repo.dir, config)).includes(path);
    const host = testToolHost(repo.dir, {
      articlePath: "docs/a.md",
      docsGlobs: config.docs,
      ignoreGlobs: config.ignore,
      allowCreate: true,
    });
    const newPath = path.replace(/\.md$/, "-new.md");
    const [createResult] = await host.execute(
      [
        {
          id: "call_1",
          type: "function",
          function: {
            name: "create_article",
            arguments: JSON.stringify({ path: newPath, content: "# New\n", reason: "r" }),
          },
        },
      ],
      new AbortController().signal,
    );
    const applied = await applyAudit(auditOf([created(newPath, "# New\n")]), repo.dir, config).then(
      () => true,
      (error: unknown) => {
        if (!(error instanceof StaleFiles)) throw error;
        expect(error.problems).toEqual([
          `${newPath}: refused, it is not an article (not under the docs globs, or ignored)`,
        ]);
        return false;
      },
    );
    return { planned, created: createResult?.ok, applied };
  }

  it("leaves hidden folders out of wildcards in the plan, create_article and apply alike", async () => {
    expect(await verdicts(DEFAULT_CONFIG, "docs/.hidden/x.md")).toEqual({
      planned: false,
      created: false,
      applied: false,
    });
  });

  it("takes a hidden folder that a docs glob names, in the plan, create_article and apply alike", async () => {
    const config = ConfigSchema.parse({ docs: ["docs/**/*.md", "docs/.hidden/*.md"] });
    expect(await verdicts(config, "docs/.hidden/x.md")).toEqual({
      planned: true,
      created: true,
      applied: true,
    });
  });
});
