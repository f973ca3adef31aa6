import { readFile } from "node:fs/promises";
import { isAbsolute, join, relative } from "node:path";
import { ConfigSchema, type ImpactConfig } from "../shared/config.js";
import { UsageError } from "../shared/errors.js";
import { describeFirstIssue } from "../shared/zod-issues.js";
import { captureNames } from "./plan/mapping.js";

export const CONFIG_FILE = "impact.config.json";

/**
 * Reads `impact.config.json` at the repository root (optional: defaults without it), or the
 * file given with `--config` (required then). Any problem is a one-line UsageError naming
 * the file and the bad key: `impact.config.json: mappings[2].docs: expected string`.
 */
export async function loadConfig(repoRoot: string, configPath?: string): Promise<ImpactConfig> {
  const path = configPath === undefined ? join(repoRoot, CONFIG_FILE) : configPath;
  const name = configPath === undefined ? CONFIG_FILE : displayName(repoRoot, configPath);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (configPath === undefined && code === "ENOENT") return ConfigSchema.parse({});
    throw new UsageError(
      `${name}: cannot read the config file (${code ?? "error"}); check the --config path`,
      {
        code: "config",
        cause: error,
      },
    );
  }
  return parseConfig(text, name);
}

/** Validates config text; `name` prefixes every message. */
export function parseConfig(text: string, name = CONFIG_FILE): ImpactConfig {
  let data: unknown;
  try {
    data = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new UsageError(`${name}: not valid JSON (${reason})`, { code: "config", cause: error });
  }
  const result = ConfigSchema.safeParse(data);
  if (!result.success) {
    throw new UsageError(`${name}: ${describeFirstIssue(result.error.issues)}`, {
      code: "config",
      cause: result.error,
    });
  }
  const mistake = mappingMistake(result.data);
  if (mistake) throw new UsageError(`${name}: ${mistake}`, { code: "config" });
  return result.data;
}

/**
 * A mapping whose docs side names a capture its code side lacks would look for a literal
 * `:name` path and silently match nothing; say which rule and which capture.
 */
function mappingMistake(config: ImpactConfig): string | undefined {
  for (const [index, mapping] of config.mappings.entries()) {
    const captured = new Set(captureNames(mapping.code));
    const missing = captureNames(mapping.docs).filter((name) => !captured.has(name));
    if (missing.length > 0) {
      const list = missing.map((name) => `:${name}`).join(", ");
      return `mappings[${index}].docs: ${list} is not captured by the code side "${mapping.code}"; capture it there (e.g. src/:${missing[0]}.ts) or remove it from "${mapping.docs}"`;
    }
  }
  return undefined;
}

function displayName(repoRoot: string, path: string): string {
  if (!isAbsolute(path)) return path;
  const inside = relative(repoRoot, path);
  return inside.startsWith("..") || isAbsolute(inside) ? path : inside;
}
