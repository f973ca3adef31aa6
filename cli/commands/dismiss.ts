import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Dismissal } from "../../shared/config.js";
import { docsRepositoryName, pathInDocsRepository } from "../../shared/docs-repository.js";
import { UsageError } from "../../shared/errors.js";
import { writeFileAtomic } from "../../shared/fs.js";
import { printable } from "../../shared/render/escape.js";
import { CONFIG_FILE, parseConfig } from "../config.js";
import { withDismissal } from "../config-edit.js";
import { repositoryRoot } from "../git/repository.js";
import { articleSelector } from "../plan/articles.js";
import { CHANGE_OPTIONS, OUTPUT_OPTIONS } from "./args.js";
import { defineCommand } from "./define-command.js";

export const command = defineCommand({
  name: "dismiss",
  description: `Remembers that an article is not affected by changes to some files: adds a "dismissed"
entry to impact.config.json (or --config FILE), which impact plan and impact run honor and
impact plan --explain shows. The rest of the file is kept as it is written.`,
  positionals: { usage: "<article>", noun: "article", min: 1, max: 1 },
  options: {
    for: {
      type: "string",
      value: "GLOB",
      help: "only changes to the files GLOB matches (default: any change)",
    },
    reason: { type: "string", value: "TEXT", help: "why the article is not affected (required)" },
    repo: CHANGE_OPTIONS.repo,
    config: CHANGE_OPTIONS.config,
    quiet: OUTPUT_OPTIONS.quiet,
  },
  run: async ({ values, positionals, io }) => {
    const reason = values.reason?.trim() ?? "";
    if (reason === "")
      throw new UsageError('say why with --reason TEXT (such as --reason "generated from the code")');
    if (values.for !== undefined && values.for.trim() === "")
      throw new UsageError("--for takes a glob of changed files, such as src/internal/**");
    const root = await repositoryRoot(resolve(io.cwd, values.repo ?? "."));
    const path = values.config === undefined ? join(root, CONFIG_FILE) : resolve(io.cwd, values.config);
    const name = values.config === undefined ? CONFIG_FILE : values.config;
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT" || values.config !== undefined)
        throw new UsageError(`${name}: cannot read the config file; check the --config path`, {
          code: "config",
          cause: error,
        });
      text = "{}\n";
    }
    const config = parseConfig(text, name);
    const asked = positionals[0]!.replace(/\\/g, "/").replace(/^(?:\.\/)+/, "");
    // An article of a separate docs repository, as the plan and the comment name it
    // (`website:content/x.md`): the config's globs and entries are paths in that repository.
    const docsName =
      config.docsRepo === undefined
        ? undefined
        : (config.docsRepoName ?? docsRepositoryName(config.docsRepo));
    const article = (docsName === undefined ? undefined : pathInDocsRepository(docsName, asked)) ?? asked;
    if (!articleSelector(config)(article))
      throw new UsageError(
        `${article} is not under the docs globs of ${name} (or is ignored); dismiss names an article, such as docs/guide.md`,
      );
    const entry: Dismissal = { article, for: values.for, reason };
    const same = config.dismissed.find((known) => known.article === article && known.for === entry.for);
    if (same) {
      if (!values.quiet)
        io.stdout(`${printable(article)} is already dismissed in ${name}: ${printable(same.reason)}\n`);
      return 0;
    }
    const updated = withDismissal(text, entry);
    if (updated === undefined)
      throw new UsageError(`${name}: not one JSON object; fix it first`, { code: "config" });
    // Checked before it is written: the file stays a valid config.
    parseConfig(updated, name);
    await writeFileAtomic(path, updated);
    if (!values.quiet)
      io.stdout(
        `dismissed ${printable(article)} for ${entry.for === undefined ? "any change" : `changes to ${printable(entry.for)}`} in ${name}\n`,
      );
    return 0;
  },
});
