import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE_NAME = "impact-docs";

let root: string | undefined;

/**
 * The folder of Impact's own package (its package.json, prompts/, dist/): found by walking
 * up from this module to the package.json named impact-docs, so it works from the sources
 * (`shared/`), the build (`dist/shared/`) and an installed copy alike.
 */
export function packageRoot(): string {
  if (root !== undefined) return root;
  let directory = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(directory, "package.json");
    if (existsSync(manifest) && isImpactManifest(readFileSync(manifest, "utf8"))) {
      root = directory;
      return directory;
    }
    const parent = dirname(directory);
    if (parent === directory) throw new Error(`cannot find the ${PACKAGE_NAME} package root`);
    directory = parent;
  }
}

function isImpactManifest(text: string): boolean {
  try {
    return (JSON.parse(text) as { name?: unknown }).name === PACKAGE_NAME;
  } catch {
    return false;
  }
}
