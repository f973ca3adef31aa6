import type { z } from "zod";

type Issue = z.core.$ZodIssue;

/** One bad field: where it is (`mappings[2].docs`, "" for the value itself) and what is wrong. */
export interface IssueLine {
  path: string;
  message: string;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/**
 * A zod path as one would write it in JavaScript: `["mappings", 2, "docs"]` →
 * `mappings[2].docs`, a key that is no identifier quoted (`articles["docs/a.md"][0]`),
 * and "" for the value itself.
 */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else if (typeof part === "string" && IDENTIFIER.test(part)) out += out === "" ? part : `.${part}`;
    else out += `[${JSON.stringify(String(part))}]`;
  }
  return out;
}

/**
 * Every issue as a path and a message, in zod's order: a union reports the alternative that
 * came closest (fewest issues), not every branch; unknown keys are named; zod's
 * "Invalid input: " preamble is dropped.
 */
export function issueLines(issues: readonly Issue[], prefix: readonly PropertyKey[] = []): IssueLine[] {
  const lines: IssueLine[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === "invalid_union" && issue.errors.length > 0) {
      const closest = [...issue.errors].sort((a, b) => a.length - b.length)[0] ?? [];
      if (closest.length > 0) {
        lines.push(...issueLines(closest, path));
        continue;
      }
    }
    const message =
      issue.code === "unrecognized_keys"
        ? `unknown key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((key) => JSON.stringify(key)).join(", ")}`
        : issue.message.replace(/^Invalid input: /, "");
    lines.push({ path: formatIssuePath(path), message });
  }
  return lines;
}

/** How the value itself is named when the bad field is the whole value ("(arguments)"); default: no name. */
interface NameOptions {
  root?: string;
}

function located(line: IssueLine, options: NameOptions): string {
  const where = line.path || options.root;
  return where ? `${where}: ${line.message}` : line.message;
}

/** The first issue in one line, `path: message`, and how many more there are: for a one-line error. */
export function describeFirstIssue(issues: readonly Issue[], options: NameOptions = {}): string {
  const lines = issueLines(issues);
  const first = lines[0];
  if (!first) return "invalid";
  const more = lines.length > 1 ? ` (and ${lines.length - 1} more)` : "";
  return `${located(first, options)}${more}`;
}

/** Every issue, one `- path: message` line each: for a reader that fixes them all at once (the model). */
export function listIssues(issues: readonly Issue[], options: NameOptions = {}): string {
  return issueLines(issues)
    .map((line) => `- ${located(line, options)}`)
    .join("\n");
}
