import { readFile, stat } from "node:fs/promises";
import type { InstructionsSource } from "../../shared/audit.js";
import type { ImpactConfig } from "../../shared/config.js";
import { UsageError } from "../../shared/errors.js";
import { contentHash } from "../../shared/hash.js";
import { INSTRUCTIONS_MAX_CHARS } from "../../shared/limits.js";
import { outlineMarkdown } from "../../shared/markdown/outline.js";
import { SandboxPolicy } from "./sandbox.js";

/**
 * The project's style guidance (config `instructions`): text the model reads as data about
 * how the docs are written, never as instructions to Impact and never executed. Read through
 * the sandbox's path policy (no `.git/`, no deny pattern, no symlink out of the repository),
 * so a file the model could not read cannot reach it this way either. `.impact/instructions.md`
 * is configuration the maintainers commit, not cached state, so it is read although `.impact/`
 * otherwise holds Impact's own state.
 */
export interface ProjectInstructions {
  /** Each file used, with the hash of the text taken from it. */
  sources: InstructionsSource[];
  /** The text, each file's part headed by its path; empty when there is none. */
  text: string;
}

export const NO_INSTRUCTIONS: ProjectInstructions = { sources: [], text: "" };

/** Where the default instructions come from, in order; the first that yields text wins. */
const DEFAULT_SOURCES: readonly { path: string; section?: RegExp }[] = [
  { path: ".impact/instructions.md" },
  // AGENTS.md speaks to every coding agent: only its part about documentation applies.
  { path: "AGENTS.md", section: /doc/i },
  { path: "docs/CONTRIBUTING.md", section: /style/i },
];

/**
 * Reads the instructions: the configured files (each must exist and be readable: a one-line
 * UsageError otherwise), or the first default source that exists. Capped at
 * INSTRUCTIONS_MAX_CHARS over all files.
 */
export async function loadInstructions(
  repoRoot: string,
  config: Pick<ImpactConfig, "instructions" | "deny">,
): Promise<ProjectInstructions> {
  const policy = new SandboxPolicy({ root: repoRoot, deny: config.deny });
  const parts: { path: string; text: string }[] = [];
  if (config.instructions !== undefined) {
    for (const path of config.instructions) {
      const text = await readInstructionsFile(policy, path);
      if (text === undefined) {
        throw new UsageError(
          `impact.config.json: instructions: cannot read "${path}" (missing, outside the repository or denied); fix the path or remove it`,
          { code: "config" },
        );
      }
      parts.push({ path, text });
    }
  } else {
    for (const source of DEFAULT_SOURCES) {
      const whole = await readInstructionsFile(policy, source.path);
      const text = whole === undefined || !source.section ? whole : sectionMatching(whole, source.section);
      if (text !== undefined && text.trim() !== "") {
        parts.push({ path: source.path, text });
        break;
      }
    }
  }
  return capInstructions(parts);
}

/** The file's text, or undefined when the sandbox refuses the path or it is not a readable file. */
async function readInstructionsFile(policy: SandboxPolicy, path: string): Promise<string | undefined> {
  const resolved = await policy.resolve(path);
  if (!resolved.ok) return undefined;
  try {
    // A FIFO or a device would block or never end: only plain files are read.
    if (!(await stat(resolved.realPath)).isFile()) return undefined;
    // Read at most a little past the cap's worth: a huge file is cut anyway.
    const bytes = await readFile(resolved.realPath);
    return bytes
      .subarray(0, INSTRUCTIONS_MAX_CHARS * 4)
      .toString("utf8")
      .replace(/\r\n/g, "\n");
  } catch {
    return undefined;
  }
}

/** The first section whose heading matches, with its subsections; undefined when none does. */
function sectionMatching(content: string, heading: RegExp): string | undefined {
  const section = outlineMarkdown(content).sections.find((candidate) => heading.test(candidate.title));
  if (!section) return undefined;
  return content
    .split("\n")
    .slice(section.line - 1, section.endLine)
    .join("\n");
}

function capInstructions(parts: readonly { path: string; text: string }[]): ProjectInstructions {
  const sources: InstructionsSource[] = [];
  const blocks: string[] = [];
  let left = INSTRUCTIONS_MAX_CHARS;
  for (const part of parts) {
    const trimmed = part.text.trim();
    const truncated = trimmed.length > left;
    const text = truncated ? trimmed.slice(0, Math.max(0, left)) : trimmed;
    left -= text.length;
    // The file cannot close its block early and write outside it.
    const shown = text.replace(/<\/(style-guidance)/gi, "<\\/$1");
    sources.push({ path: part.path, hash: contentHash(text), chars: text.length, truncated });
    blocks.push(
      `<style-guidance path="${part.path}">\n${shown}${truncated ? `\n[cut at ${INSTRUCTIONS_MAX_CHARS} characters]` : ""}\n</style-guidance>`,
    );
  }
  return { sources, text: blocks.join("\n") };
}

/** One hash over every source, for the result cache key: "" when there are no instructions. */
export function instructionsKey(instructions: ProjectInstructions): string {
  return instructions.sources.map((source) => `${source.path}:${source.hash}`).join("\n");
}
