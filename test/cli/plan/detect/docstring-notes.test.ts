import { describe, expect, it } from "vitest";
import { docstringNotes } from "../../../../cli/plan/detect/docstring-notes.js";
import type { ChangedFile } from "../../../../shared/changeset.js";
import { gitRepo } from "../../../helpers/git-repo.js";
import { flagged, planJson } from "../../../helpers/plan-json.js";

const option = (doc: string, body: string) =>
  [
    "class Option:",
    '    """An option of a command.',
    "",
    doc,
    '    """',
    "",
    "    def get_default(self, value):",
    `        ${body}`,
    "",
  ].join("\n");

const docs = {
  "impact.config.json": JSON.stringify({ docs: ["docs/**/*.md"] }),
  "docs/options.md":
    "# Options\n\nA flag passes `flag_value` to the function. To activate it by default, set `default=True`.\n",
  // Writes `default` (a single word) and the class, but not what the note cites.
  "docs/defaults.md": "# Defaults\n\nEvery `Option` takes a `default`, given to the function as is.\n",
};

describe("a docstring note the change adds or removes", { timeout: 120_000 }, () => {
  it("flags the article writing a name the note cites as code, and not one writing only a plain word", async () => {
    const repo = gitRepo({
      ...docs,
      "src/core.py": option("    :param default: the default value.", "return value"),
    });
    repo.commit({
      "src/core.py": option(
        [
          "    :param default: the default value.",
          "",
          "    .. versionchanged:: 8.3",
          "        ``default=True`` is no longer replaced by ``flag_value``",
          "        for boolean flags (see :attr:`default`).",
        ].join("\n"),
        "return value if value is not True else self.flag",
      ),
    });
    const found = await planJson(repo);
    const options = found.articles.find((article) => article.path === "docs/options.md");
    expect(options?.status).toBe("impacted");
    expect(options?.impact).toContainEqual(
      expect.objectContaining({
        kind: "reference",
        source: "src/core.py",
        stale: true,
        line: 3,
        detail:
          "writes default=True, flag_value, cited by a `.. versionchanged::` note the change added to a docstring",
      }),
    );
    expect(flagged(found)).toEqual(["docs/options.md"]);
  });

  it("reads a removed note too, and only from Python files", () => {
    const file = (path: string, lines: string[]): ChangedFile => ({
      path,
      status: "modified",
      binary: false,
      patch: "",
      hunks: [
        { oldStart: 10, oldLines: lines.length, newStart: 10, newLines: 2, header: "@@ -10 +10 @@", lines },
      ],
    });
    const removed = [
      "     :param hidden: hide this option.",
      "-    .. caution::",
      "-        Flags with a ``flag_value`` and ``default=True`` align the default.",
      "-",
      "-        Legacy behaviour, see :meth:`~click.Context.call_on_close`.",
      "     .. versionchanged:: 8.2",
      "+        ``envvar`` with ``flag_value`` uses the ``flag_value``.",
    ];
    expect(docstringNotes([file("src/click/core.py", removed), file("src/lib.rs", removed)])).toEqual([
      {
        file: "src/click/core.py",
        directive: "caution",
        change: "removed",
        names: ["flag_value", "default=True", "call_on_close"],
        hunk: "src/click/core.py @@ -10 +10 @@",
      },
    ]);
  });
});
