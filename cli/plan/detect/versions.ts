import type { ChangedFile } from "../../../shared/changeset.js";
import { languageOf } from "../symbols/languages/index.js";
import { includesText, textOf } from "./article-text.js";
import { perChangeSet } from "./per-file.js";
import type { ArticleSignalInput } from "./signal.js";
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
/**
 * CI configs: their test matrices name the runtimes a project is tested on (`rust: 1.85.0`,
 * `python-version: [3.8, 3.9]`). `evidence.ignore` leaves them out as evidence of names and
 * paths by default; this rule still reads the versions they drop.
 */
const CI_CONFIG =
  /^(?:\.github\/workflows\/[^/]+\.ya?ml|\.circleci\/config\.ya?ml|\.buildkite\/[^/]+\.ya?ml|\.gitlab-ci\.yml|\.travis\.yml|appveyor\.yml|azure-pipelines\.yml|\.cirrus\.yml)$/;
/** A dotted version (`3.8`, `1.70.0`), not part of a longer number or name. */
const VERSION = /(?<![\w.])\d+\.\d+(?:\.\d+)*(?!\.?\d|\w)/g;
/** A version a specifier excludes (`!=3.5.*` in python_requires): the project no longer supports it. */
const EXCLUDED = /!=\s*(\d+\.\d+(?:\.\d+)*)(?:\.\*)?(?![\w.]*\d)/g;
/** A line of a source file that sets a version (`__version__ = "0.18.2"`, `const Version = "3.1.0"`). */
const VERSION_LINE = /\bversion\b|__version__|_VERSION\b|\bVERSION\b/i;
/** Versions looked for per change, at most (each is a search over the docs). */
const MAX_VERSIONS = 20;

/**
 * reference (version): a version that a manifest's changed lines no longer name (a
 * supported Python, Rust or Go dropped, a minimum raised) and that an article quotes as a
 * version. Such pages state what the project supports and go stale with the manifest.
 * A version many articles quote says less about each (shareFactor). `input.evidence` holds the
 * manifests and CI configs to read (versionSources).
 */
export function versionSignals(input: ArticleSignalInput): void {
  const { articles, sink } = input;
  const dropped = droppedVersions(input.evidence);
  if (dropped.length === 0) return;
  // Decoded once, and only the articles that hold one of the dropped versions at all.
  const texts = new Map<string, string>();
  const textFor = (article: (typeof articles)[number]) => {
    const known = texts.get(article.path);
    if (known !== undefined) return known;
    const text = textOf(article.content);
    texts.set(article.path, text);
    return text;
  };
  for (const { version, file } of dropped) {
    const quoting = articles.filter(
      (article) => includesText(article.content, version) && quotesVersion(textFor(article), version),
    );
    const factor = shareFactor(quoting.length);
    for (const article of quoting) {
      sink.add({
        article: article.path,
        kind: "reference",
        source: file,
        detail: `quotes version ${version}, which ${file} no longer names`,
        score: REASON_SCORES.version * factor,
        stale: { terms: [version] },
      });
    }
  }
}

/**
 * The files whose versions the rule reads: the manifests among the evidence, and the
 * changed CI configs whether or not `evidence.ignore` left them out.
 */
export function versionSources(
  changed: readonly ChangedFile[],
  evidence: readonly ChangedFile[],
): ChangedFile[] {
  const manifests = evidence.filter((file) => MANIFEST.test(file.path));
  const ci = changed.filter((file) => CI_CONFIG.test(file.path) && !manifests.includes(file));
  // A source file that sets the release's own version (`__version__ = "0.18.2"`).
  const versionFiles = evidence.filter(
    (file) =>
      !manifests.includes(file) &&
      !ci.includes(file) &&
      // Source code only: `<svg version="1.0">` or an HTML template's version line sets no release.
      languageOf(file.path) !== undefined &&
      file.hunks.some((hunk) => hunk.lines.some((line) => line[0] === "-" && VERSION_LINE.test(line))),
  );
  return [...manifests, ...ci, ...versionFiles];
}

/**
 * Versions on removed lines of changed manifests and CI configs (versionSources) that none
 * of the file's added lines names, and versions an added specifier newly excludes
 * (`!=3.5.*`). Trailing `.0` parts are dropped (`1.85.0` is `1.85`), as pages write either.
 * Read once per plan, for the lookups and the signals (MAX_VERSIONS counts across files).
 */
export const droppedVersions = perChangeSet(versionsDropped);

function versionsDropped(files: readonly ChangedFile[]): { version: string; file: string }[] {
  const found: { version: string; file: string }[] = [];
  for (const file of files) {
    if (file.binary) continue;
    const onlyVersionLines = !(MANIFEST.test(file.path) || CI_CONFIG.test(file.path));
    const removed = new Set<string>();
    /** Versions the file set as its own (a `version` line), whose release line pages pin. */
    const released = new Set<string>();
    const added = new Set<string>();
    const excludedBefore = new Set<string>();
    const excluded = new Set<string>();
    /** Versions a line of the hunks still writes after the change, on a version line or not (`return "HTTP/1.1"`). */
    const kept = new Set<string>();
    for (const hunk of file.hunks) {
      for (const line of hunk.lines) {
        const sign = line[0];
        if (sign === "+" || sign === " ")
          for (const match of line.slice(1).matchAll(VERSION)) kept.add(shortVersion(match[0]));
        if (sign !== "-" && sign !== "+") continue;
        if (onlyVersionLines && !VERSION_LINE.test(line)) continue;
        const text = line.slice(1);
        for (const match of text.matchAll(VERSION)) {
          (sign === "-" ? removed : added).add(shortVersion(match[0]));
          if (sign === "-" && VERSION_LINE.test(text)) released.add(shortVersion(match[0]));
        }
        for (const match of text.matchAll(EXCLUDED))
          (sign === "-" ? excludedBefore : excluded).add(shortVersion(match[1]!));
      }
    }
    // A release line dropped whole (`0.18.2` → `0.19.0`): pages pin it as `0.18.*`.
    const addedLines = new Set([...added].map(releaseLine));
    const droppedLines = [...released]
      .filter((version) => version.split(".").length > 2 && !addedLines.has(releaseLine(version)))
      .map(releaseLine);
    const dropped = [
      ...[...removed].filter((version) => !added.has(version) && !kept.has(version)),
      ...droppedLines.filter((line) => !added.has(line)),
      ...[...excluded].filter((version) => !excludedBefore.has(version)),
    ];
    for (const version of new Set(dropped)) {
      if (found.length >= MAX_VERSIONS) break;
      found.push({ version, file: file.path });
    }
  }
  return found;
}

/** `0.18.2` → `0.18`: the major and minor parts. */
function releaseLine(version: string): string {
  return version.split(".").slice(0, 2).join(".");
}

/** `1.85.0` → `1.85`: the version without trailing `.0` parts, keeping two parts at least. */
function shortVersion(version: string): string {
  return version.replace(/^(\d+\.\d+)(?:\.0)+$/, "$1");
}

/**
 * Whether `text` has `version` as a whole version, with or without trailing `.0` parts
 * (`3.8` in "3.8+" and `1.85` in "1.85.0", not in "3.8.1" or "13.8").
 */
function quotesVersion(text: string, version: string): boolean {
  for (let at = text.indexOf(version); at >= 0; at = text.indexOf(version, at + 1)) {
    const before = text[at - 1] ?? "";
    // `v0.3.2` in a tag or a URL (`clap_mangen-v0.3.2`) is the version too.
    const tagged = before === "v" && !/[\w.]/.test(text[at - 2] ?? "");
    if (/[\w.]/.test(before) && !tagged) continue;
    const after = text
      .slice(at + version.length, at + version.length + 24)
      .replace(/^(?:\.0)+(?![\d\w])/, "");
    if (/^(?:\.?\d|\w)/.test(after)) continue;
    return true;
  }
  return false;
}
