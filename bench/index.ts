import { readdirSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/**
 * Runs every `*.bench.js` next to this file (or those named on the command line:
 * `npm run bench -- edit-engine`). Each bench module exports `run(): Promise<void>` and
 * prints its own figures with the ratio to its baseline.
 */
const here = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const files = readdirSync(here)
  .filter((name) => name.endsWith(".bench.js"))
  .filter((name) => wanted.length === 0 || wanted.some((w) => name.startsWith(w)))
  .sort();
for (const file of files) {
  console.log(`\n## ${file.replace(/\.bench\.js$/, "")}`);
  const module = (await import(pathToFileURL(`${here}/${file}`).href)) as { run: () => Promise<void> };
  await module.run();
}
