import { resolve } from "node:path";
import type { Audit } from "../../shared/audit.js";
import { UsageError } from "../../shared/errors.js";
import { printable } from "../../shared/render/escape.js";
import { applyAudit, gatherApplyFiles } from "../audit/apply-audit.js";
import { chooseEdits, type LeftOutEdit } from "../audit/apply-subset.js";
import { readAuditFile } from "../audit/files.js";
import { loadConfig } from "../config.js";
import { type DocsRepository, openDocsRepository } from "../git/docs-repository.js";
import { repositoryRoot } from "../git/repository.js";
import { CHANGE_OPTIONS, OUTPUT_OPTIONS, settingOptions } from "./args.js";
import { defineCommand } from "./define-command.js";

export const command = defineCommand({
  name: "apply",
  description: `Writes the patches of an audit (from impact run) to the working tree of the repository
containing DIR (default: the current directory). Every file must still have the hash the
audit's edits were made against, and must be an article (under the docs globs of
impact.config.json, or of --config FILE, not ignored) that the sandbox allows: nothing inside .git/, on the
deny list, or behind a symlink leading out of the repository or to a file that is not an
article itself. Each patch must name only its own article in its file headers. If one file fails, nothing
is written and the command exits 2 naming it. Each file is written atomically.
--only and --exclude apply a subset of the edits (impact report lists their ids); an article
whose edits are split gets its patch rebuilt from the kept edits, refused when a kept edit
needs one left out.`,
  positionals: { usage: "<audit>", noun: "audit file", min: 1, max: 1 },
  options: {
    repo: CHANGE_OPTIONS.repo,
    config: CHANGE_OPTIONS.config,
    ...settingOptions(["docsRepo"]),
    only: {
      type: "string",
      value: "ID",
      multiple: true,
      help: "apply only these edits (ids like docs/a.md#2, comma-separated or repeated; an article's path: all its edits)",
    },
    exclude: {
      type: "string",
      value: "ID",
      multiple: true,
      help: "apply all edits but these (same ids); what is left out is listed",
    },
    ...OUTPUT_OPTIONS,
  },
  run: async ({ values, positionals, io }) => {
    const audit = await readAuditFile(resolve(io.cwd, positionals[0]!));
    const root = await repositoryRoot(resolve(io.cwd, values.repo ?? "."));
    // The same config as the run that made the audit: its docs globs say what may be written.
    const config = await loadConfig(
      root,
      values.config === undefined ? undefined : resolve(io.cwd, values.config),
    );
    const docsRepository = await auditDocsRepository(audit, {
      flag: values["docs-repo"],
      cwd: io.cwd,
      codeRoot: root,
      config,
    });
    let chosen = audit;
    let leftOut: LeftOutEdit[] = [];
    if (values.only !== undefined || values.exclude !== undefined) {
      // A split article's patch is rebuilt from its base text, read as the apply reads it.
      const files = await gatherApplyFiles(audit, root, config, docsRepository);
      const baseText = (path: string) => {
        const file = files.find((candidate) => candidate.article.path === path);
        return file?.check.ok && file.check.current.kind === "file"
          ? file.check.current.bytes.toString("utf8")
          : null;
      };
      ({ audit: chosen, leftOut } = chooseEdits(
        audit,
        { only: values.only, exclude: values.exclude },
        baseText,
      ));
    }
    const result = await applyAudit(chosen, root, config, docsRepository);
    if (values.json) {
      io.stdout(`${JSON.stringify({ ...result, leftOut })}\n`);
    } else if (!values.quiet) {
      for (const path of result.written) io.stdout(`applied ${printable(path)}\n`);
      for (const path of result.alreadyApplied) io.stdout(`already applied ${printable(path)}\n`);
      for (const edit of leftOut) io.stdout(`left out ${printable(edit.id)}: ${printable(edit.reason)}\n`);
      if (result.written.length + result.alreadyApplied.length === 0) io.stdout("nothing to apply\n");
    }
    return 0;
  },
});

/**
 * Where an audit's `name:PATH` articles are written: the docs repository's checkout
 * (`--docs-repo`, else config `docsRepo`), under the name the audit gives them. An audit of
 * the code repository takes no docs repository, and one of a docs repository needs it.
 */
async function auditDocsRepository(
  audit: Audit,
  input: Parameters<typeof openDocsRepository>[0],
): Promise<DocsRepository | undefined> {
  const name = audit.docsRepository?.name;
  if (name === undefined) {
    if (input.flag !== undefined)
      throw new UsageError(
        "--docs-repo: this audit's articles are in the code repository (it names no docs repository); drop --docs-repo",
        { code: "input" },
      );
    return undefined;
  }
  const docs = await openDocsRepository(input);
  if (docs === undefined)
    throw new UsageError(
      `this audit's articles are in the docs repository "${name}" (${name}:PATH); pass its checkout with --docs-repo DIR`,
      { code: "input" },
    );
  return { root: docs.root, name };
}
