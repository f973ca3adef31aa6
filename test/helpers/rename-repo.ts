import { type FileTree, gitRepo, type TestRepo } from "./git-repo.js";

const source = (file: number, renamed: boolean) =>
  `export function ${renamed ? "fetch" : "load"}Unit${file}(input: string): string {\n  return input;\n}\n`;

/**
 * `count` source files each exporting one function, one article naming each, and an article
 * that also writes a function whose signature the change alters (stale for another reason).
 */
export function renameRepo(count: number): TestRepo {
  const files: FileTree = {
    "src/other.ts": "export function keepShape(a: number): number {\n  return a;\n}\n",
    "docs/mixed.md": "# Mixed\n\nCall `loadUnit0()` and `keepShape(a)`.\n",
  };
  for (let file = 0; file < count; file += 1) {
    files[`src/unit${file}.ts`] = source(file, false);
    files[`docs/unit${file}.md`] =
      `# Unit ${file}\n\nSome words.\n\nCall \`loadUnit${file}()\` to load it.\n`;
  }
  const repo = gitRepo(files);
  const change: FileTree = {
    "src/other.ts": "export function keepShape(a: number, b: number): number {\n  return a + b;\n}\n",
  };
  for (let file = 0; file < count; file += 1) change[`src/unit${file}.ts`] = source(file, true);
  repo.commit(change, "rename every loader");
  return repo;
}
