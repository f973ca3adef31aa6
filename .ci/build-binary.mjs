#!/usr/bin/env node
// Builds the single executable `dist/impact` (`npm run build:binary`): the CLI bundled with
// its dependencies and the Bun runtime by `bun build --compile`, with the prompts built in
// (the npm package reads them from prompts/ instead). `impact serve` needs the npm package.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const prompts = Object.fromEntries(
  readdirSync(join(root, "prompts"))
    .filter((file) => file.endsWith(".md"))
    .map((file) => [file.slice(0, -3), readFileSync(join(root, "prompts", file), "utf8")]),
);
const outfile = process.argv[2] ?? join(root, "dist", "impact");
const result = spawnSync(
  join(root, "node_modules", ".bin", "bun"),
  [
    "build",
    "--compile",
    join(root, "cli", "bin.ts"),
    "--outfile",
    outfile,
    "--define",
    `IMPACT_EMBEDDED_PROMPTS=${JSON.stringify(prompts)}`,
  ],
  { stdio: "inherit" },
);
process.exit(result.status ?? 1);
