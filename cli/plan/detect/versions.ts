import type { ChangedFile } from "../../../shared/changeset.js";
import type { ArticleText } from "./article-text.js";
import type { SignalSink } from "./signal.js";
import { REASON_SCORES, shareFactor } from "./weights.js";

/**
 * Build and package manifests: where a project declares the runtimes and toolchains it
 * supports (python_requires and classifiers, rust-version, the go directive, engines),
 * which install and README pages repeat ("supports Python 3.8+").
 */
const MANIFEST =
  /(?:^|\/)(?:setup\.py|setup\.cfg|pyproject\.toml|tox\.ini|noxfile\.py|Cargo\.toml|go\.mod|package\.json|[^/]+\.gemspec|Gemfile|rust-toolchain(?:\.toml)?|\.python-version|\.nvmrc|\.node-version|\.tool-versions|mise\.toml|build\.gradle(?:\.kts)?|pom\.xml|[^/]+\.csproj)$/;
/** Whether the file is a build or package manifest (MANIFEST). */
export const isManifest = (path: string): boolean => MANIFEST.test(path);
/** A dotted version (`3.8`, `1.70.0`), not part of a longer number or name. */
const VERSION = /(?<![\w.])\d+\.\d+(?:\.\d+)*(?!\.?\d|\w)/g;
/** Versions looked for per change, at most (each is a search over the docs). */
const MAX_VERSIONS = 20;

/**
 * reference (version): a version that a manifest's changed lines no longer name (a
 * supported Python, Rust or Go dropped, a minimum raised) and that an article quotes as a
 * version. Such pages state what the project supports and go stale with the manifest.
 * A version many articles quote says less about each (shareFactor).
 */
export function versionSignals(input: {
  evidence: readonly ChangedFile[];
  articles: readonly ArticleText[];
  sink: SignalSink;
}): void {
  const { articles, sink } = input;
  const dropped = droppedVersions(input.evidence);
  if (dropped.length === 0) return;
  const decoder = new TextDecoder();
  const texts = articles.map((article) =>
    typeof article.content === "string" ? article.content : decoder.decode(article.content),
  );
  for (const { version, file } of dropped) {
    const quoting = articles.filter((_, index) => quotesVersion(texts[index]!, version));
    const factor = shareFactor(quoting.length);
    for (const article of quoting) {
      sink.add({
        article: article.path,
        kind: "reference",
        source: file,
        detail: `quotes version ${version}, which ${file} no longer names`,
        score: REASON_SCORES.version * factor,
      });
    }
  }
}

/** Versions on removed lines of changed manifests that none of the file's added lines names. */
export function droppedVersions(files: readonly ChangedFile[]): { version: string; file: string }[] {
  const found: { version: string; file: string }[] = [];
  for (const file of files) {
    if (file.binary || !MANIFEST.test(file.path)) continue;
    const removed = new Set<string>();
    const added = new Set<string>();
    for (const hunk of file.hunks) {
      for (const line of hunk.lines) {
        const into = line[0] === "-" ? removed : line[0] === "+" ? added : undefined;
        if (!into) continue;
        for (const match of line.slice(1).matchAll(VERSION)) into.add(match[0]);
      }
    }
    for (const version of removed) {
      if (added.has(version) || found.length >= MAX_VERSIONS) continue;
      found.push({ version, file: file.path });
    }
  }
  return found;
}

/** Whether `text` has `version` as a whole version (`3.8` in "3.8+", not in "3.8.1" or "13.8"). */
function quotesVersion(text: string, version: string): boolean {
  for (let at = text.indexOf(version); at >= 0; at = text.indexOf(version, at + 1)) {
    const before = text[at - 1] ?? "";
    const after = text.slice(at + version.length, at + version.length + 2);
    if (/[\w.]/.test(before)) continue;
    if (/^(?:\.?\d|\w)/.test(after)) continue;
    return true;
  }
  return false;
}
