import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { applyEdits } from "../../../shared/edit/engine.js";
import { asciidocFormat, mdxFormat, rstFormat } from "../../../shared/formats/index.js";
import type { ArticleFormat } from "../../../shared/formats/types.js";
import { LineIndex } from "../../../shared/markdown/lines.js";
import {
  asciidoctorSections,
  docutilsPython,
  docutilsSections,
  mdxHeadings,
} from "../../helpers/reference-parsers.js";

interface CorpusRepository {
  repo: string;
  sha: string;
  format: "rst" | "adoc" | "mdx";
  under: string;
  extension: string;
  /** Pages where the reference parser reads more than sections (file → why), left out. */
  known: Record<string, string>;
}

const ROOT = join(import.meta.dirname, "../..", "..");
const MANIFEST = JSON.parse(readFileSync(join(ROOT, "test/fixtures/formats/corpus.json"), "utf8")) as {
  repositories: CorpusRepository[];
};
const CORPUS = join(ROOT, "node_modules/.cache/format-corpus");

/** The pages of a clone at its pinned commit (read from git, whatever is checked out). */
function pages(dir: string, entry: CorpusRepository): { path: string; text: string }[] {
  const git = (...args: string[]) =>
    execFileSync("git", ["-C", dir, ...args], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  return git("ls-tree", "-r", "--name-only", entry.sha)
    .split("\n")
    .filter(
      (path) => path.startsWith(entry.under) && path.endsWith(entry.extension) && !(path in entry.known),
    )
    .map((path) => ({ path, text: git("show", `${entry.sha}:${path}`) }));
}

/**
 * A section replace on every section of a real page (whose outline agrees with the reference
 * parser) changes only its lines: the text up to its body and from its end stays.
 */
function everySectionReplace(format: ArticleFormat, path: string, text: string): void {
  const outline = format.outline!(text);
  const lines = new LineIndex(text);
  for (const section of outline.sections) {
    const outcome = applyEdits(
      text,
      [{ section: section.path, mode: "replace", content: "REPLACED\n", reason: "corpus" }],
      { format },
    );
    if (!outcome.ok) {
      // A section with nothing but blank lines under it already "has" the content only when it is the same.
      expect(outcome.error.code, `${path} ${section.path}: ${outcome.error.message}`).toBe("already_applied");
      continue;
    }
    const before = text.slice(0, lines.lineStart(section.bodyStartLine));
    const after = text.slice(lines.lineEnd(section.endLine));
    expect(outcome.content.startsWith(before), `${path} ${section.path}`).toBe(true);
    expect(outcome.content.endsWith(after), `${path} ${section.path}`).toBe(true);
    expect(outcome.content.length - before.length - after.length).toBeLessThanOrEqual(
      "REPLACED\n".length + (section.endLine - section.bodyStartLine + 1) * 2,
    );
  }
}

function plain(title: string): string {
  return title.replace(/[`*]/g, "").trim();
}

describe("outlines of real documentation agree with the reference parsers", () => {
  for (const entry of MANIFEST.repositories) {
    const dir = join(CORPUS, entry.repo.replace("/", "+"));
    const missing = !existsSync(dir)
      ? " (skipped: not cloned; run bench/format-corpus.sh)"
      : entry.format === "rst" && !docutilsPython()
        ? " (skipped: python3-docutils is not installed)"
        : "";
    it.skipIf(missing !== "")(`${entry.repo} at ${entry.sha.slice(0, 12)}${missing}`, async () => {
      const found = pages(dir, entry);
      expect(found.length).toBeGreaterThan(10);
      const texts = found.map((page) => page.text);
      if (entry.format === "rst") {
        const reference = docutilsSections(texts);
        found.forEach((page, index) => {
          const mine = rstFormat.outline!(page.text).sections.map(
            (section) => `${section.level} ${section.bodyStartLine - 1} ${plain(section.title)}`,
          );
          expect(mine, page.path).toEqual(reference[index]!.map((s) => `${s.level} ${s.line} ${s.title}`));
          everySectionReplace(rstFormat, page.path, page.text);
        });
      } else if (entry.format === "mdx") {
        for (const page of found) {
          const mine = mdxFormat.outline!(page.text).sections.map(
            (section) => `${section.level} ${section.line}`,
          );
          expect(mine, page.path).toEqual(mdxHeadings(page.text));
          everySectionReplace(mdxFormat, page.path, page.text);
        }
      } else {
        const reference = await asciidoctorSections(texts);
        found.forEach((page, index) => {
          const mine = asciidocFormat.outline!(page.text).sections.map(
            (section) => `${section.level} ${section.line}`,
          );
          expect(mine, page.path).toEqual(reference[index]!.map((s) => `${s.level} ${s.line}`));
          everySectionReplace(asciidocFormat, page.path, page.text);
        });
      }
    });
  }
});
