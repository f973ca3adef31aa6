import picomatch from "picomatch";
import type { ChangedFile, ChangeSet } from "../../../shared/changeset.js";
import type { ImpactConfig } from "../../../shared/config.js";

const NOT_ARTICLE = "a docs file that is not an article (see ignore)";

export interface IgnoredFile {
  path: string;
  why: string;
}

/**
 * The changed files that may be evidence: not submodules, not articles (the author's own
 * doc edits), not other files the docs globs match (changelogs and other records of the
 * past), and not matched by `evidence.ignore` (lockfiles, tests, fixtures, snapshots, CI).
 * `otherDocs` are the docs files left out as not articles: their lines may still name an
 * article (a SUMMARY.md or an index left out of the articles).
 */
export function selectEvidence(
  changeSet: ChangeSet,
  articlePaths: ReadonlySet<string>,
  config: ImpactConfig,
): { files: ChangedFile[]; ignored: IgnoredFile[]; otherDocs: ChangedFile[] } {
  const isDocs = picomatch(config.docs, { dot: false });
  const patterns = config.evidence.ignore.map((glob) => ({ glob, isMatch: picomatch(glob, { dot: true }) }));
  const files: ChangedFile[] = [];
  const ignored: IgnoredFile[] = [];
  const otherDocs: ChangedFile[] = [];
  for (const file of changeSet.files) {
    const paths = file.oldPath ? [file.path, file.oldPath] : [file.path];
    const why =
      file.status === "submodule"
        ? "a submodule"
        : paths.some((path) => articlePaths.has(path))
          ? "an article"
          : paths.some((path) => isDocs(path))
            ? NOT_ARTICLE
            : patterns.find((pattern) => paths.some((path) => pattern.isMatch(path)))?.glob;
    if (why === undefined) {
      files.push(file);
      continue;
    }
    if (why === NOT_ARTICLE) otherDocs.push(file);
    ignored.push({ path: file.path, why: why.startsWith("a") ? why : `evidence.ignore ${why}` });
  }
  return { files, ignored, otherDocs };
}
