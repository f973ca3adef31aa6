/**
 * The path scheme of a run whose articles live in a separate docs repository: a path in the
 * docs repository is written `NAME:PATH` (`website:content/install.md`), a path in the code
 * repository as it is (`src/cli.ts`). The plan, the audit, the tools, the comment and the
 * report all use it; a run without a docs repository has no prefixed path at all.
 */

/** A docs repository's name: letters, digits, `.`, `_` and `-`, starting with a letter or digit. */
export const DOCS_REPOSITORY_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** A git URL (`https://…`, `ssh://…`, `file://…`, `git@host:org/repo.git`) rather than a folder. */
export function isGitUrl(location: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(location) || /^[\w.-]+@[\w.-]+:/.test(location);
}

/** The name a docs repository gets from its folder or clone URL (`../website`, `https://host/org/website.git`). */
export function docsRepositoryName(location: string): string {
  const last =
    location
      .replace(/[/\\]+$/, "")
      .split(/[/\\:]/)
      .pop() ?? "";
  const name = last
    .replace(/\.git$/, "")
    .replace(/[^A-Za-z0-9._-]/g, "-")
    .replace(/^[^A-Za-z0-9]+/, "");
  return name === "" ? "docs" : name;
}

/** `name:path`: a docs-repository path as the plan, the audit and the tools write it. */
export function docsRepositoryPath(name: string, path: string): string {
  return `${name}:${path}`;
}

/** The docs-repository-relative part of `name:path`, or undefined when `path` is not in that repository. */
export function pathInDocsRepository(name: string, path: string): string | undefined {
  return path.startsWith(`${name}:`) ? path.slice(name.length + 1) : undefined;
}
