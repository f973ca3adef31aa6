import { gitAt, readBlobs } from "../git.js";

/** Manifests that name the package, and how to read the name from each. */
const MANIFESTS: { path: string; names: (text: string) => string[] }[] = [
  {
    path: "package.json",
    names: (text) => {
      try {
        const name = (JSON.parse(text) as { name?: unknown }).name;
        if (typeof name !== "string") return [];
        // `@scope/pkg` is written both ways in docs.
        return name.includes("/") ? [name, name.slice(name.lastIndexOf("/") + 1)] : [name];
      } catch {
        return [];
      }
    },
  },
  { path: "Cargo.toml", names: (text) => tomlName(text, "package") },
  {
    path: "pyproject.toml",
    names: (text) => tomlName(text, "project").concat(tomlName(text, "tool.poetry")),
  },
  {
    path: "go.mod",
    names: (text) => {
      const module = /^module\s+(\S+)/m.exec(text)?.[1];
      return module ? [module, module.slice(module.lastIndexOf("/") + 1)] : [];
    },
  },
];

/** `name = "x"` in a TOML table. */
function tomlName(text: string, table: string): string[] {
  const start = text.indexOf(`[${table}]`);
  if (start < 0) return [];
  const body = text.slice(start + table.length + 2).split(/^\[/m)[0] ?? "";
  const name = /^\s*name\s*=\s*["']([^"']+)["']/m.exec(body)?.[1];
  return name ? [name] : [];
}

/**
 * Names this repository uses everywhere and so are no evidence for any one article: the
 * package's own name, read from the manifests at the root of `revision`. Every article of
 * a package names it; a change to a symbol of the same name says nothing.
 */
export async function genericNames(
  repoRoot: string,
  revision: string,
): Promise<{ symbol: string; why: string }[]> {
  // One `git ls-tree` names every manifest's blob; blobs are then read by sha only (a path
  // never goes into git's batch input).
  const shas = await manifestShas(repoRoot, revision);
  const wanted = [...shas.values()];
  const blobs =
    wanted.length === 0
      ? new Map<string, string | undefined>()
      : await readBlobs(repoRoot, wanted).catch(() => new Map<string, string | undefined>());
  const names = new Map<string, string>();
  for (const manifest of MANIFESTS) {
    const sha = shas.get(manifest.path);
    const text = sha === undefined ? undefined : blobs.get(sha);
    if (text === undefined) continue;
    for (const name of manifest.names(text)) names.set(name, `the package's own name (${manifest.path})`);
  }
  return [...names].map(([symbol, why]) => ({ symbol, why }));
}

/** Path → blob sha of the manifests present at the root of `revision` (none when it does not resolve). */
async function manifestShas(repoRoot: string, revision: string): Promise<Map<string, string>> {
  const paths = MANIFESTS.map((manifest) => manifest.path);
  const listing = await gitAt(repoRoot)
    .raw(["ls-tree", "-z", "--full-tree", revision, "--", ...paths])
    .catch(() => "");
  const shas = new Map<string, string>();
  for (const entry of listing.split("\0")) {
    const tab = entry.indexOf("\t");
    const [, type, sha] = entry.slice(0, tab).split(" ");
    if (tab > 0 && type === "blob" && sha) shas.set(entry.slice(tab + 1), sha);
  }
  return shas;
}
