import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "..", "..");

/** Every module of the product with the modules it imports, type-only imports included. */
function importGraph(): Map<string, string[]> {
  const files = ["cli", "shared", "backend"].flatMap((folder) =>
    readdirSync(join(ROOT, folder), { recursive: true, encoding: "utf8" })
      .filter((path) => path.endsWith(".ts") && !path.endsWith(".d.ts"))
      .map((path) => join(folder, path).split("\\").join("/")),
  );
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(join(ROOT, file), "utf8"), true, true);
    graph.set(
      file,
      importedFiles
        .map((imported) => imported.fileName)
        .filter((name) => name.startsWith("."))
        .map((name) => relative(ROOT, resolve(ROOT, dirname(file), name)).replace(/\.js$/, ".ts"))
        .filter((path) => known.has(path)),
    );
  }
  return graph;
}

/** The first import cycle found by a depth-first walk, as the modules around it, or null. */
function findCycle(graph: Map<string, string[]>): string[] | null {
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (file: string): string[] | null => {
    state.set(file, "open");
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === "open") return [...stack.slice(stack.indexOf(next)), next];
      if (state.get(next) === undefined) {
        const cycle = visit(next);
        if (cycle) return cycle;
      }
    }
    stack.pop();
    state.set(file, "done");
    return null;
  };
  for (const file of graph.keys()) {
    if (state.get(file) === undefined) {
      const cycle = visit(file);
      if (cycle) return cycle;
    }
  }
  return null;
}

describe("module layout", () => {
  it("has no import cycle, not even through type-only imports", () => {
    const graph = importGraph();
    // The graph is real: the tool host imports the tools, and the tools the host's parts.
    expect(graph.get("cli/run/agent-tool-host.ts")?.some((path) => path.startsWith("cli/run/tools/"))).toBe(
      true,
    );
    expect(findCycle(graph)).toBeNull();
  });

  it("finds a cycle when there is one", () => {
    const graph = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts"]],
    ]);
    expect(findCycle(graph)).toEqual(["a.ts", "b.ts", "c.ts", "a.ts"]);
  });
});
