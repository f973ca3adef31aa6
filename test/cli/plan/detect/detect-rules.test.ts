import { rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { countWords, textWords, writtenForms } from "../../../../cli/plan/detect/prose.js";
import { gitRepo } from "../../../helpers/git-repo.js";
import { details, expectFlaggedWith, flagged, planJson, related } from "../../../helpers/plan-json.js";

// Each test builds a real repository and runs the whole plan; slow on a loaded machine.
describe("evidence from the change's own lines", { timeout: 120_000 }, () => {
  it("lists the pages a docs navigation change names as related, by their trailing path, and not their namesakes", async () => {
    const repo = gitRepo({
      "impact.config.json": JSON.stringify({ docs: ["docs/**/*.md"] }),
      "mkdocs.yml": "nav:\n  - Home: index.md\n  - Flags: v3/flags.md\n  - Args: v3/args.md\n",
      "docs/index.md": "# Home\n",
      "docs/v3/flags.md": "# Flags\n",
      "docs/v2/flags.md": "# Flags (v2)\n",
      "docs/v3/args.md": "# Arguments\n",
    });
    repo.commit({
      "mkdocs.yml": "nav:\n  - Home: index.md\n  - Flags and options: v3/flags.md\n  - Args: v3/args.md\n",
    });
    const plan = await planJson(repo);
    // A renamed menu entry contradicts nothing the page writes.
    expect(flagged(plan)).toEqual([]);
    expect(related(plan)).toEqual(["docs/v3/flags.md"]);
    expect(details(plan, "docs/v3/flags.md")).toEqual([
      "a changed line of mkdocs.yml names the article's path",
    ]);
  });

  it("reads a navigation file the config leaves out of the articles, and a link without its extension", async () => {
    const repo = gitRepo({
      "impact.config.json": JSON.stringify({ docs: ["guide/**/*.md"], ignore: ["guide/SUMMARY.md"] }),
      "guide/SUMMARY.md": "- [Install](install.md)\n- [CLI](cli/build.md)\n",
      "guide/install.md": "# Install\n",
      "guide/cli/build.md": "# build\n",
      "site/sidebar.ts": 'export const items = [{ link: "/guide/cli/build" }];\n',
    });
    repo.commit({
      "guide/SUMMARY.md": "- [Installation](install.md)\n- [CLI](cli/build.md)\n",
      "site/sidebar.ts": 'export const items = [{ text: "Build", link: "/guide/cli/build" }];\n',
    });
    const plan = await planJson(repo);
    expect(flagged(plan)).toEqual([]);
    expect(related(plan).sort()).toEqual(["guide/cli/build.md", "guide/install.md"]);
    expect(details(plan, "guide/install.md")).toEqual([
      "a changed line of guide/SUMMARY.md names the article's path",
    ]);
    expect(details(plan, "guide/cli/build.md")).toEqual([
      "a changed line of site/sidebar.ts names the article's path",
    ]);
  });

  it("flags the pages quoting a runtime version a manifest dropped, not one naming a version still supported", async () => {
    const repo = gitRepo({
      "impact.config.json": JSON.stringify({ docs: ["docs/**/*.rst", "README.md"] }),
      "setup.py":
        'setup(\n    python_requires=">=3.8",\n    classifiers=[\n        "Programming Language :: Python :: 3.8",\n        "Programming Language :: Python :: 3.9",\n    ],\n)\n',
      "README.md": "# lib\n\nSupports Python 3.8+.\n",
      "docs/install.rst": "Install\n=======\n\nNeeds Python 3.8 or newer.\n",
      "docs/news.rst": "News\n====\n\nWorks on Python 3.9 and 13.8 and 3.8.1.\n",
    });
    repo.commit({
      "setup.py":
        'setup(\n    python_requires=">=3.9",\n    classifiers=[\n        "Programming Language :: Python :: 3.9",\n        "Programming Language :: Python :: 3.10",\n    ],\n)\n',
    });
    const plan = await planJson(repo);
    expect(flagged(plan).sort()).toEqual(["README.md", "docs/install.rst"]);
    expect(details(plan, "README.md")).toEqual(["quotes version 3.8, which setup.py no longer names"]);
  });

  it("reads the versions a CI matrix drops and a specifier newly excludes, with or without trailing .0, cold and warm", async () => {
    const repo = gitRepo({
      "impact.config.json": JSON.stringify({ docs: ["docs/**/*.md", "README.md"] }),
      ".github/workflows/ci.yml":
        "jobs:\n  test:\n    strategy:\n      matrix:\n        rust: [1.85.0, stable]\n        os: [ubuntu-22.04]\n",
      "setup.py": 'setup(\n    python_requires=">=2.7, !=3.4.*",\n)\n',
      "README.md": "# tool\n\nThe minimum supported version of Rust is **1.85**.\n",
      "docs/python.md": "# Python\n\nSupported on Python 2.7 and 3.5+.\n",
      "docs/stable.md": "# Stable\n\nTested on Rust 1.85.1, 11.85.0 and Ubuntu 22.04.\n",
    });
    // A plan before the change writes the article index, so the one after reads it warm.
    await planJson(repo);
    repo.commit({
      ".github/workflows/ci.yml":
        "jobs:\n  test:\n    strategy:\n      matrix:\n        rust: [1.88.0, stable]\n        os: [ubuntu-22.04]\n",
      "setup.py": 'setup(\n    python_requires=">=2.7, !=3.4.*, !=3.5.*",\n)\n',
    });
    const warm = await planJson(repo);
    rmSync(join(repo.dir, ".impact"), { recursive: true, force: true });
    const cold = await planJson(repo);
    for (const plan of [warm, cold]) {
      expect(flagged(plan).sort()).toEqual(["README.md", "docs/python.md"]);
      expect(details(plan, "README.md")).toEqual([
        "quotes version 1.85, which .github/workflows/ci.yml no longer names",
      ]);
      expect(details(plan, "docs/python.md")).toEqual(["quotes version 3.5, which setup.py no longer names"]);
    }
  });

  it("reads no versions from a CI file that is not a pipeline config, nor from a version the change still names", async () => {
    const repo = gitRepo({
      "impact.config.json": JSON.stringify({ docs: ["README.md"] }),
      ".github/ISSUE_TEMPLATE/bug.yml": "body:\n  - label: Version (e.g. 1.85.0)\n",
      ".github/workflows/ci.yml": "matrix:\n  python: ['3.9', '3.10']\n",
      "README.md": "# tool\n\nWorks with 1.85 and Python 3.9.\n",
    });
    repo.commit({
      ".github/ISSUE_TEMPLATE/bug.yml": "body:\n  - label: Version (e.g. 2.0.0)\n",
      ".github/workflows/ci.yml": "matrix:\n  python: ['3.10', '3.9.0']\n",
    });
    expect(flagged(await planJson(repo))).toEqual([]);
  });

  it("flags the pages quoting an address a changed file no longer names, not one quoting an address still named", async () => {
    const repo = gitRepo({
      "impact.config.json": JSON.stringify({ docs: ["docs/**/*.md", "README.md"] }),
      "setup.py":
        'setup(\n    url="https://old-site.example.org/lib",\n    project_urls={"Source": "https://github.example/lib/lib"},\n)\n',
      "README.md": "# lib\n\nDocs: https://old-site.example.org/lib/latest\n",
      "docs/source.md": "# Source\n\nCode at https://github.example/lib/lib.\n",
    });
    // A plan before the change writes the article index, so the one after reads it warm.
    await planJson(repo);
    repo.commit({
      "setup.py":
        'setup(\n    url="https://lib.example.dev",\n    project_urls={"Source": "https://github.example/lib/lib"},\n)\n',
    });
    const plan = await planJson(repo);
    expectFlaggedWith(plan, "README.md", [
      "quotes https://old-site.example.org/lib, which setup.py no longer names",
    ]);
  });

  it("lists the page quoting an address a template or guide dropped as related; a version in an SVG sets no release", async () => {
    const repo = gitRepo({
      "impact.config.json": JSON.stringify({ docs: ["docs/**/*.md", "README.md"] }),
      "templates/sidebar.html": '<a href="https://github.example/lib/lib/issues">Issues</a>\n',
      "art/logo.svg": '<?xml version="1.0"?>\n<svg version="1.0"></svg>\n',
      "README.md": "# lib\n\nReport bugs at https://github.example/lib/lib/issues.\n",
      "docs/format.md": "# Format\n\nWe read XML 1.0 files.\n",
    });
    repo.commit({
      "templates/sidebar.html": '<a href="https://lib.example.dev/help">Help</a>\n',
      "art/logo.svg": '<?xml version="1.1"?>\n<svg version="1.1"></svg>\n',
    });
    const plan = await planJson(repo);
    // The address is still the project's: a rewritten sidebar contradicts nothing the README says.
    expect(flagged(plan)).toEqual([]);
    expect(related(plan)).toEqual(["README.md"]);
    expect(details(plan, "README.md")).toEqual([
      "quotes https://github.example/lib/lib/issues, which templates/sidebar.html no longer names",
    ]);
  });

  it("takes no names from the change's changelog entry: the author's words for the change are not names it changed", async () => {
    const repo = gitRepo({
      "impact.config.json": JSON.stringify({ docs: ["docs/**/*.md"] }),
      "CHANGES.rst": "Version 2.0\n-----------\n\n-   First release.\n",
      "src/lib/core.py": "def load_defaults(path):\n    return {}\n",
      "docs/http.md": "# HTTP\n\nSend a `POST` and follow the `redirect`.\n",
    });
    repo.commit({
      "CHANGES.rst":
        "Version 2.0\n-----------\n\n-   ``load_defaults`` no longer follows a ``redirect`` on ``POST``.\n-   First release.\n",
      "src/lib/core.py": "def load_defaults(path):\n    return {'path': path}\n",
    });
    const plan = await planJson(repo, ["--min-score", "0"]);
    expect(flagged(plan)).toEqual([]);
    expect(related(plan)).toEqual([]);
  });

  it("lists the one page that describes in prose what a changed comment says as related, read from a warm article index", async () => {
    const docs = {
      "impact.config.json": JSON.stringify({ docs: ["docs/**/*.md"] }),
      "docs/completion.md":
        "# Zsh\n\nTask aliases are offered as completions in zsh; a zstyle turns them off.\n",
      "docs/install.md": "# Install\n\nRun pip install task.\n",
      "docs/config.md": "# Config\n\nSettings live in one file.\n",
      "docs/usage.md": "# Usage\n\nCall the tool with the name of a task.\n",
      "src/complete.py": "def complete(names):\n    return names\n",
    };
    const repo = gitRepo(docs);
    // A plan before the change writes the article index, so the one after reads it warm.
    await planJson(repo);
    repo.commit({
      "src/complete.py":
        "def complete(names, extra):\n    # Offer aliases as completions unless the zstyle turns them off\n    return names + extra\n",
    });
    const plan = await planJson(repo);
    expect(flagged(plan)).toEqual([]);
    expect(related(plan)).toEqual(["docs/completion.md"]);
    expect(details(plan, "docs/completion.md")).toEqual([
      "describes in prose what the change's comments and strings say (aliases, completions, them, turns, zstyle)",
    ]);
    // Cold (no article index) the same page is found.
    rmSync(join(repo.dir, ".impact", "cache", "articles"), { recursive: true, force: true });
    const cold = await planJson(repo);
    expect(related(cold)).toEqual(["docs/completion.md"]);
  });

  it("flags no page when the comment's words rank two pages alike, or name no page at all", async () => {
    const repo = gitRepo({
      "impact.config.json": JSON.stringify({ docs: ["docs/**/*.md"] }),
      "docs/zsh.md": "# Zsh\n\nTask aliases are offered as completions; a zstyle turns them off.\n",
      "docs/shells.md": "# Shells\n\nIn zsh, aliases are offered as completions; a zstyle turns them off.\n",
      "docs/install.md": "# Install\n\nRun pip install task.\n",
      "docs/usage.md": "# Usage\n\nCall the tool with the name of a task.\n",
      "src/completion.py": "def complete(names):\n    return names\n",
    });
    repo.commit({
      "src/completion.py":
        "def complete(names, extra):\n    # Offer aliases as completions unless the zstyle turns them off\n    return names + extra\n",
    });
    expect(flagged(await planJson(repo))).toEqual([]);
    repo.commit({
      "src/completion.py":
        "def complete(names, extra):\n    # Keep the order the caller gave, duplicates first\n    return names + extra\n",
    });
    expect(flagged(await planJson(repo))).toEqual([]);
  });
});

describe("the prose rule's word counts", () => {
  it("cuts an article's bytes into the same words as its text", () => {
    const text =
      "# maxRedirects\n\nHTTPError, `show-aliases` and TASK_VERBOSE2x: 3rd policies über Ünicode-policy; x2abc URLs.\n";
    const words = textWords(text);
    expect(words).toEqual([
      "max",
      "redirect",
      "http",
      "error",
      "show",
      "aliase",
      "and",
      "task",
      "verbose",
      "policy",
      "ber",
      "nicode",
      "policy",
      "abc",
    ]);
    const { length, counts } = countWords(
      Buffer.from(text),
      writtenForms(["policy", "aliase", "http", "redirect"]),
    );
    expect(length).toBe(words.length);
    expect(Object.fromEntries(counts)).toEqual({ redirect: 1, http: 1, aliase: 1, policy: 2 });
  });
});
