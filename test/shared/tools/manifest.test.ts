import { describe, expect, it } from "vitest";
import { CreateArticleArgsSchema } from "../../../shared/tools/create-article.js";
import { EditArticleArgsSchema } from "../../../shared/tools/edit-article.js";
import { ListFilesArgsSchema } from "../../../shared/tools/list-files.js";
import { buildToolManifest } from "../../../shared/tools/manifest.js";
import { OutlineArticleArgsSchema } from "../../../shared/tools/outline-article.js";
import { ReadFileArgsSchema } from "../../../shared/tools/read-file.js";
import { SearchRepoArgsSchema } from "../../../shared/tools/search-repo.js";

describe("buildToolManifest", () => {
  it("is the reviewed manifest", () => {
    expect(JSON.stringify(buildToolManifest({ allowCreate: true }), null, 2)).toMatchInlineSnapshot(`
      "[
        {
          "type": "function",
          "function": {
            "name": "read_file",
            "description": "Read a text file of the repository. Returns one header line (path, line range, total lines, hash) and then the raw text of those lines, without line-number prefixes, so it can be copied exactly into edit_article. Large files come in pages; the result says which offset to ask for next. On a code file, \`symbol\` returns one declaration instead of the whole file; on an article, one section.",
            "parameters": {
              "type": "object",
              "properties": {
                "path": {
                  "type": "string",
                  "minLength": 1,
                  "description": "Repository-relative POSIX path, such as \\"docs/guide.md\\"."
                },
                "offset": {
                  "description": "First line to return (1-based). Default 1.",
                  "type": "integer",
                  "minimum": 1
                },
                "limit": {
                  "description": "How many lines to return. Default: one page.",
                  "type": "integer",
                  "minimum": 1
                },
                "symbol": {
                  "description": "A declaration of a code file, as outline_article lists it (\\"Client::fetch\\", or a bare name when unique): returns just its lines, doc comment and decorators included. On an article, a section path (\\"Usage::Options\\") returns that section. Not with offset or limit.",
                  "type": "string",
                  "minLength": 1
                }
              },
              "required": [
                "path"
              ],
              "additionalProperties": false
            }
          }
        },
        {
          "type": "function",
          "function": {
            "name": "outline_article",
            "description": "Show the heading tree of an article (Markdown, MDX, reStructuredText, AsciiDoc): each section path (\\"Parent::Child\\"), its level and its line range, plus the file hash. Use the section paths in edit_article (\\"section\\" or \\"within\\"). On a code file (TS/JS, Python, Go, Rust, Java, Ruby, C#, PHP) it lists the declarations instead (classes, functions, methods, constants) with \\"Parent::child\\" paths and line ranges; read one with read_file {path, symbol}.",
            "parameters": {
              "type": "object",
              "properties": {
                "path": {
                  "type": "string",
                  "minLength": 1,
                  "description": "Repository-relative POSIX path, such as \\"docs/guide.md\\"."
                }
              },
              "required": [
                "path"
              ],
              "additionalProperties": false
            }
          }
        },
        {
          "type": "function",
          "function": {
            "name": "search_repo",
            "description": "Search the text files of the repository (files ignored by .gitignore are skipped). Returns \\"path:line: text\\" for each matching line, up to a cap; the result says when the cap was reached.",
            "parameters": {
              "type": "object",
              "properties": {
                "pattern": {
                  "type": "string",
                  "minLength": 1,
                  "description": "Text to look for (literal, case-sensitive), or a regex when regex is true."
                },
                "glob": {
                  "description": "Only search files whose repository-relative path matches this glob, such as \\"src/**/*.ts\\".",
                  "type": "string",
                  "minLength": 1
                },
                "regex": {
                  "description": "Treat pattern as a JavaScript regular expression. Default false (literal text).",
                  "type": "boolean"
                }
              },
              "required": [
                "pattern"
              ],
              "additionalProperties": false
            }
          }
        },
        {
          "type": "function",
          "function": {
            "name": "list_files",
            "description": "List the repository files whose path matches a glob (files ignored by .gitignore are left out), sorted, up to a cap; the result says when the cap was reached.",
            "parameters": {
              "type": "object",
              "properties": {
                "glob": {
                  "type": "string",
                  "minLength": 1,
                  "description": "A glob over repository-relative paths, such as \\"docs/**/*.md\\" or \\"src/*\\"."
                }
              },
              "required": [
                "glob"
              ],
              "additionalProperties": false
            }
          }
        },
        {
          "type": "function",
          "function": {
            "name": "edit_article",
            "description": "Change the article under work with small, exact, reasoned edits. Every edit needs a reason and may list evidence (code locations such as \\"src/auth.ts:42\\" from the change). Success returns each edit's new line range with context and the new hash.",
            "parameters": {
              "type": "object",
              "properties": {
                "path": {
                  "type": "string",
                  "minLength": 1,
                  "description": "The article under work (no other file can be edited)."
                },
                "edits": {
                  "minItems": 1,
                  "type": "array",
                  "items": {
                    "anyOf": [
                      {
                        "type": "object",
                        "properties": {
                          "old_string": {
                            "type": "string",
                            "description": "Exact text to find, character for character, with enough context to be unique."
                          },
                          "new_string": {
                            "type": "string",
                            "description": "The text that replaces it, written out in full."
                          },
                          "occurrence": {
                            "description": "Which match to replace: \\"unique\\" (default, exactly one match required), \\"all\\", \\"first\\", \\"last\\", or N (1-based).",
                            "anyOf": [
                              {
                                "type": "string",
                                "enum": [
                                  "unique",
                                  "all",
                                  "first",
                                  "last"
                                ]
                              },
                              {
                                "type": "integer",
                                "minimum": 1
                              }
                            ]
                          },
                          "within": {
                            "description": "A section path (\\"Parent::Child\\") that narrows the search to one section.",
                            "type": "string"
                          },
                          "reason": {
                            "type": "string",
                            "description": "Why this edit is needed, citing the code change it follows from (one sentence)."
                          },
                          "evidence": {
                            "description": "Code locations the reason rests on, such as \\"src/auth.ts:42\\".",
                            "type": "array",
                            "items": {
                              "type": "string"
                            }
                          }
                        },
                        "required": [
                          "old_string",
                          "new_string",
                          "reason"
                        ],
                        "additionalProperties": false
                      },
                      {
                        "type": "object",
                        "properties": {
                          "section": {
                            "type": "string",
                            "description": "Heading text or a \\"Parent::Child\\" section path."
                          },
                          "mode": {
                            "type": "string",
                            "enum": [
                              "replace",
                              "append",
                              "prepend"
                            ],
                            "description": "replace: the body under the heading (heading kept); append: end of section; prepend: after the heading."
                          },
                          "content": {
                            "type": "string",
                            "description": "The Markdown to put there."
                          },
                          "reason": {
                            "type": "string",
                            "description": "Why this edit is needed, citing the code change it follows from (one sentence)."
                          },
                          "evidence": {
                            "description": "Code locations the reason rests on, such as \\"src/auth.ts:42\\".",
                            "type": "array",
                            "items": {
                              "type": "string"
                            }
                          }
                        },
                        "required": [
                          "section",
                          "mode",
                          "content",
                          "reason"
                        ],
                        "additionalProperties": false
                      },
                      {
                        "type": "object",
                        "properties": {
                          "checklist_item": {
                            "type": "string",
                            "description": "Text contained in exactly one checklist item."
                          },
                          "checked": {
                            "type": "boolean"
                          },
                          "reason": {
                            "type": "string",
                            "description": "Why this edit is needed, citing the code change it follows from (one sentence)."
                          },
                          "evidence": {
                            "description": "Code locations the reason rests on, such as \\"src/auth.ts:42\\".",
                            "type": "array",
                            "items": {
                              "type": "string"
                            }
                          }
                        },
                        "required": [
                          "checklist_item",
                          "checked",
                          "reason"
                        ],
                        "additionalProperties": false
                      },
                      {
                        "type": "object",
                        "properties": {
                          "frontmatter": {
                            "type": "object",
                            "propertyNames": {
                              "type": "string",
                              "minLength": 1
                            },
                            "additionalProperties": {
                              "anyOf": [
                                {
                                  "type": [
                                    "string",
                                    "number",
                                    "boolean"
                                  ]
                                },
                                {
                                  "type": "array",
                                  "items": {
                                    "type": [
                                      "string",
                                      "number",
                                      "boolean"
                                    ]
                                  }
                                },
                                {
                                  "type": "null"
                                }
                              ]
                            },
                            "description": "Top-level frontmatter keys to set (a string, number, boolean or list) or, with null, to remove. Other keys, comments and quoting stay as they are; the block is created when missing."
                          },
                          "reason": {
                            "type": "string",
                            "description": "Why this edit is needed, citing the code change it follows from (one sentence)."
                          },
                          "evidence": {
                            "description": "Code locations the reason rests on, such as \\"src/auth.ts:42\\".",
                            "type": "array",
                            "items": {
                              "type": "string"
                            }
                          }
                        },
                        "required": [
                          "frontmatter",
                          "reason"
                        ],
                        "additionalProperties": false
                      }
                    ]
                  },
                  "description": "Edits applied in order, each to the result of the previous. All or nothing: if one fails, none is applied and the error names it by its 0-based index. The kind of each edit follows from its fields: old_string/new_string (replace), section/mode/content (section), checklist_item/checked (checklist), frontmatter (set or remove top-level frontmatter keys)."
                },
                "expected_hash": {
                  "description": "The article hash this edit was made against (from read_file or outline_article); the call fails if it changed.",
                  "type": "string"
                },
                "done": {
                  "description": "true when this call finishes the article (saves a round trip); it takes effect only if the call succeeds.",
                  "type": "boolean"
                }
              },
              "required": [
                "path",
                "edits"
              ],
              "additionalProperties": false
            }
          }
        },
        {
          "type": "function",
          "function": {
            "name": "create_article",
            "description": "Create a new documentation article when the change adds something no existing article can hold. Only under the docs folders, only for a path that does not exist yet.",
            "parameters": {
              "type": "object",
              "properties": {
                "path": {
                  "type": "string",
                  "minLength": 1,
                  "description": "Repository-relative path of the new article; must be under the docs globs and must not exist."
                },
                "content": {
                  "type": "string",
                  "minLength": 1,
                  "description": "The whole Markdown text of the new article."
                },
                "reason": {
                  "type": "string",
                  "minLength": 1,
                  "description": "Why the change needs a new article (one sentence)."
                }
              },
              "required": [
                "path",
                "content",
                "reason"
              ],
              "additionalProperties": false
            }
          }
        }
      ]"
    `);
  });

  it("offers create_article only with allowCreate", () => {
    const names = (allowCreate: boolean) =>
      buildToolManifest({ allowCreate }).map((tool) => (tool.type === "function" ? tool.function.name : ""));
    expect(names(false)).toEqual([
      "read_file",
      "outline_article",
      "search_repo",
      "list_files",
      "edit_article",
    ]);
    expect(names(true)).toEqual([...names(false), "create_article"]);
  });

  it("is byte-identical for identical options, without $schema", () => {
    const first = JSON.stringify(buildToolManifest({ allowCreate: false }));
    expect(JSON.stringify(buildToolManifest({ allowCreate: false }))).toBe(first);
    expect(first).not.toContain("$schema");
  });
});

const edit = { old_string: "a", new_string: "b", reason: "r" };

const cases = [
  {
    schema: ReadFileArgsSchema,
    accept: [{ path: "docs/a.md" }, { path: "a.md", offset: 3, limit: 10 }],
    reject: [
      {},
      { path: "" },
      { path: "a", offset: 0 },
      { path: "a", limit: 1.5 },
      { path: "a", extra: 1 },
      { path: 3 },
    ],
  },
  {
    schema: OutlineArticleArgsSchema,
    accept: [{ path: "docs/a.md" }],
    reject: [{}, { path: "" }, { path: ["a"] }, { path: "a", depth: 2 }],
  },
  {
    schema: SearchRepoArgsSchema,
    accept: [{ pattern: "x" }, { pattern: "a+", regex: true, glob: "src/**" }],
    reject: [{}, { pattern: "" }, { pattern: "x", regex: "yes" }, { pattern: "x", glob: "" }, { query: "x" }],
  },
  {
    schema: ListFilesArgsSchema,
    accept: [{ glob: "docs/**" }],
    reject: [{}, { glob: "" }, { glob: 1 }, { pattern: "docs/**" }],
  },
  {
    schema: EditArticleArgsSchema,
    accept: [
      { path: "docs/a.md", edits: [edit] },
      {
        path: "docs/a.md",
        expected_hash: "0123456789abcdef",
        done: true,
        edits: [
          { ...edit, occurrence: "all", within: "Usage", evidence: ["src/a.ts:3"] },
          { ...edit, occurrence: 2 },
          { section: "Usage::Flags", mode: "append", content: "x", reason: "r" },
          { checklist_item: "tests", checked: true, reason: "r" },
        ],
      },
    ],
    reject: [
      { path: "docs/a.md", edits: [] },
      { path: "docs/a.md" },
      { path: "docs/a.md", edits: [{ old_string: "a", new_string: "b" }] },
      { path: "docs/a.md", edits: [{ ...edit, occurrence: 0 }] },
      { path: "docs/a.md", edits: [{ ...edit, occurrence: "middle" }] },
      { path: "docs/a.md", edits: [{ section: "A", mode: "insert", content: "x", reason: "r" }] },
      { path: "docs/a.md", edits: [{ checklist_item: "x", checked: "yes", reason: "r" }] },
      { path: "docs/a.md", edits: [edit], done: "true" },
      { path: "docs/a.md", edits: [{ ...edit, old_str: "a" }] },
    ],
  },
  {
    schema: CreateArticleArgsSchema,
    accept: [{ path: "docs/new.md", content: "# New\n", reason: "r" }],
    reject: [
      { path: "docs/new.md", content: "", reason: "r" },
      { path: "docs/new.md", content: "# x" },
      { path: "docs/new.md", reason: "r" },
    ],
  },
];

describe.each(cases)("argument schema %#", ({ schema, accept, reject }) => {
  it.each(accept as unknown[])("accepts %j", (value: unknown) => {
    expect(schema.safeParse(value).success).toBe(true);
  });
  it.each(reject as unknown[])("rejects %j", (value: unknown) => {
    expect(schema.safeParse(value).success).toBe(false);
  });
});
