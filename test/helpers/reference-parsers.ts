import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { fromMarkdown } from "mdast-util-from-markdown";
import { frontmatterFromMarkdown } from "mdast-util-frontmatter";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { mdxFromMarkdown } from "mdast-util-mdx";
import { frontmatter } from "micromark-extension-frontmatter";
import { gfm } from "micromark-extension-gfm";
import { mdxjs } from "micromark-extension-mdxjs";

/** A section as a reference parser reports it: its level (1 = top), title and the 1-based line of its underline (reST) or title. */
export interface ReferenceSection {
  level: number;
  line: number;
  title: string;
}

const SCRIPT = fileURLToPath(new URL("./docutils-sections.py", import.meta.url));
/** Debian's python3-docutils lives in the system Python; another Python with docutils does too. */
const PYTHONS = ["/usr/bin/python3", "python3"];

function findPython(): string | null {
  for (const python of PYTHONS) {
    if (python.startsWith("/") && !existsSync(python)) continue;
    const probe = spawnSync(python, ["-c", "import docutils"], { encoding: "utf8" });
    if (probe.status === 0) return python;
  }
  return null;
}

let python: string | null | undefined;

/** The Python that has docutils, or null (the tests that need it then skip, saying so). */
export function docutilsPython(): string | null {
  python ??= findPython();
  return python;
}

/** The sections docutils finds in each document (one Python run for the batch). */
export function docutilsSections(documents: readonly string[]): ReferenceSection[][] {
  const interpreter = docutilsPython();
  if (!interpreter) throw new Error("docutils is not installed (apt-get install python3-docutils)");
  const run = spawnSync(interpreter, [SCRIPT], {
    input: JSON.stringify(documents),
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`docutils failed: ${run.stderr}`);
  const parsed = JSON.parse(run.stdout) as [number, number | null, string][][];
  return parsed.map((sections) =>
    sections.map(([level, line, title]) => ({ level, line: line ?? 0, title })),
  );
}

/** The sections Asciidoctor.js finds: the document title as level 1, `==` as 2, and so on; lines of the title. */
export async function asciidoctorSections(documents: readonly string[]): Promise<ReferenceSection[][]> {
  const { default: Asciidoctor } = await import("@asciidoctor/core");
  const processor = Asciidoctor();
  const quiet = processor.MemoryLogger.create();
  processor.LoggerManager.setLogger(quiet);
  return documents.map((text) => {
    const document = processor.load(text, {
      sourcemap: true,
      safe: "safe",
      attributes: { "skip-front-matter": "" },
    });
    const found: ReferenceSection[] = [];
    // The document title comes back as a level-0 section.
    for (const section of document.findBy({ context: "section" })) {
      found.push({
        level: section.getLevel() + 1,
        line: section.getLineNumber() ?? 0,
        title: section.getTitle() ?? "",
      });
    }
    return found;
  });
}

/** MDX's parser options, built once: building them is most of a short document's parse. */
const MDX_OPTIONS = {
  extensions: [mdxjs(), gfm(), frontmatter()],
  mdastExtensions: [mdxFromMarkdown(), gfmFromMarkdown(), frontmatterFromMarkdown()],
};

/** MDX's own parser (with GFM and frontmatter, as MDX sites configure it): the top-level headings. */
export function mdxHeadings(text: string): string[] {
  const tree = fromMarkdown(text, MDX_OPTIONS);
  return tree.children.flatMap((node) =>
    node.type === "heading" ? [`${node.depth} ${node.position!.start.line}`] : [],
  );
}
