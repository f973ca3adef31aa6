import { readFilesAt } from "../git/repository.js";

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
  // One `git cat-file --batch` reads every manifest at the root (one process, not two).
  const texts = await readFilesAt(
    repoRoot,
    revision,
    MANIFESTS.map((manifest) => manifest.path),
  ).catch(() => new Map<string, string | undefined>());
  const names = new Map<string, string>();
  for (const manifest of MANIFESTS) {
    const text = texts.get(manifest.path);
    if (text === undefined) continue;
    for (const name of manifest.names(text)) names.set(name, `the package's own name (${manifest.path})`);
  }
  return [...names].map(([symbol, why]) => ({ symbol, why }));
}
