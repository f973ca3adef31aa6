import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { packageRoot } from "./package-root.js";

/** `{{name}}`: letters, digits and underscores. */
const PLACEHOLDER = /\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}/g;
/** A prompt file may open with an HTML comment for its readers (placeholders, rules); it is not sent. */
const HEADER_COMMENT = /^\s*<!--[\s\S]*?-->\s*\n/;

/**
 * The prompts built into the single executable (`npm run build:binary` defines this with
 * `bun build --define`); undefined in the npm package, which reads prompts/ from disk.
 */
declare const IMPACT_EMBEDDED_PROMPTS: Record<string, string> | undefined;

/** The `prompts/` folder of the package, from the sources and the build alike. */
export function promptsDir(): string {
  return join(packageRoot(), "prompts");
}

const cache = new Map<string, Promise<string>>();

/** The text of prompts/<name>.md without its header comment, read once per process. */
function promptTemplate(name: string): Promise<string> {
  if (!/^[a-z0-9-]+$/.test(name)) return Promise.reject(new Error(`bad prompt name "${name}"`));
  let template = cache.get(name);
  if (!template) {
    const embedded =
      typeof IMPACT_EMBEDDED_PROMPTS === "undefined" ? undefined : IMPACT_EMBEDDED_PROMPTS[name];
    const text =
      embedded === undefined ? readFile(join(promptsDir(), `${name}.md`), "utf8") : Promise.resolve(embedded);
    template = text.then((text) => text.replace(/\r\n/g, "\n").replace(HEADER_COMMENT, ""));
    template.catch(() => cache.delete(name));
    cache.set(name, template);
  }
  return template;
}

/**
 * Fills a template's `{{placeholders}}` in one pass (so a value that itself contains
 * `{{x}}`, like an article about templates, is left as it is). Throws when a placeholder
 * has no value or a value has no placeholder: both are bugs in the caller.
 */
export function fillTemplate(name: string, template: string, vars: Record<string, string>): string {
  const used = new Set<string>();
  const missing = new Set<string>();
  const text = template.replace(PLACEHOLDER, (match, key: string) => {
    const value = Object.hasOwn(vars, key) ? vars[key] : undefined;
    if (value === undefined) {
      missing.add(key);
      return match;
    }
    used.add(key);
    return value;
  });
  const unused = Object.keys(vars).filter((key) => !used.has(key));
  if (missing.size > 0 || unused.length > 0) {
    const parts = [];
    if (missing.size > 0) parts.push(`unfilled placeholders: ${[...missing].join(", ")}`);
    if (unused.length > 0) parts.push(`values with no placeholder: ${unused.join(", ")}`);
    throw new Error(`prompt "${name}": ${parts.join("; ")}`);
  }
  return text;
}

/** Reads prompts/<name>.md and fills its placeholders with `vars` (see fillTemplate). */
export async function loadPrompt(name: string, vars: Record<string, string>): Promise<string> {
  return fillTemplate(name, await promptTemplate(name), vars);
}

/** The system prompt: the same bytes for every article, so providers can cache the prefix. */
export async function systemPrompt(): Promise<string> {
  return loadPrompt("system", {});
}

/** The placeholders of prompts/article.md, filled by the runner for the first user message. */
export interface ArticlePromptVars extends Record<string, string> {
  path: string;
  hash: string;
  reasons: string;
  outline: string;
  article: string;
  diff: string;
  trimmed: string;
  style: string;
}

/** The first user message of an article's loop (prompts/article.md). */
export async function articlePrompt(vars: ArticlePromptVars): Promise<string> {
  return loadPrompt("article", vars);
}

/** The placeholders of prompts/new-article.md: the first message of a new article's loop. */
export interface NewArticlePromptVars extends Record<string, string> {
  path: string;
  reasons: string;
  models: string;
  diff: string;
  trimmed: string;
  style: string;
}

/** The first user message of a new article's loop (prompts/new-article.md). */
export async function newArticlePrompt(vars: NewArticlePromptVars): Promise<string> {
  return loadPrompt("new-article", vars);
}
