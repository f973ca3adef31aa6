import { describe, expect, it } from "vitest";
import { main } from "../../../cli/main.js";
import { gitRepo, type TestRepo } from "../../helpers/git-repo.js";
import { captureIo } from "../../helpers/io.js";

async function plan(repo: TestRepo, args: string[]) {
  const io = captureIo(repo.dir, {}, {});
  const code = await main(["plan", ...args], io);
  return { code, out: io.out, err: io.err };
}

/** A Sphinx project in the shape of flask's: Python code, reST docs naming its API. */
function sphinxProject(config?: object): TestRepo {
  return gitRepo({
    ...(config ? { "impact.config.json": JSON.stringify(config) } : {}),
    "src/flask/helpers.py":
      "def redirect(location, code=302):\n    return location\n\n\ndef url_for(endpoint):\n    return endpoint\n",
    "docs/api.rst": "API\n===\n\n.. autofunction:: flask.redirect\n\n.. autofunction:: flask.url_for\n",
    "docs/quickstart.rst":
      "Quickstart\n==========\n\nRedirects\n~~~~~~~~~\n\nUse :func:`~flask.redirect` to send the user elsewhere.\n",
    "docs/other.rst": "Other\n=====\n\nNothing about the helpers here.\n",
    "README.md": "# Project\n",
  });
}

describe("impact plan on reStructuredText docs", () => {
  it("with the default config, flags the .rst articles naming a changed function", async () => {
    const repo = sphinxProject();
    repo.commit({
      "src/flask/helpers.py":
        "def redirect(location, code=303, response=None):\n    return location\n\n\ndef url_for(endpoint):\n    return endpoint\n",
    });
    const result = await plan(repo, ["--json"]);
    expect(result.err).toBe("");
    const parsed = JSON.parse(result.out) as { articles: { path: string }[] };
    const paths = parsed.articles.map((article) => article.path).sort();
    expect(paths).toEqual(["docs/api.rst", "docs/quickstart.rst"]);
  });

  it("an API directive keeps its name as evidence where mentions in passing are too common to count", async () => {
    const passing = Object.fromEntries(
      Array.from({ length: 24 }, (_, index) => [
        `docs/page-${index}.md`,
        `# Page ${index}\n\nThen call \`redirect()\` to move on.\n`,
      ]),
    );
    const repo = gitRepo({
      "src/flask/helpers.py": "def redirect(location, code=302):\n    return location\n",
      "docs/api.rst": "API\n===\n\n.. autofunction:: flask.redirect\n",
      ...passing,
    });
    repo.commit({ "src/flask/helpers.py": "def redirect(location, code=303):\n    return location\n" });
    const result = await plan(repo, ["--json"]);
    const parsed = JSON.parse(result.out) as { articles: { path: string }[] };
    expect(parsed.articles.map((article) => article.path)).toEqual(["docs/api.rst"]);
  });

  it("warns once when a docs folder holds .rst files that no docs glob matches", async () => {
    const repo = sphinxProject({ docs: ["docs/**/*.md", "*.md"] });
    repo.commit({ "src/flask/helpers.py": "def redirect(location):\n    return location\n" });
    const result = await plan(repo, []);
    expect(result.err.split("\n").filter((line) => line.includes(".rst"))).toEqual([
      'warning: docs/ holds 3 .rst files that no docs glob matches, so they are not read as articles; add a glob such as "docs/**/*.rst" to docs in impact.config.json',
    ]);
  });
});
