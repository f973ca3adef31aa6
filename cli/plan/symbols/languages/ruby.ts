import type { GrammarSpec } from "../tree-sitter.js";

/** Ruby: modules and classes (`Outer::Inner`), instance and singleton methods, constants. */
export const ruby: GrammarSpec = {
  wasm: "tree-sitter-ruby.wasm",
  rules: {
    module: { kind: "class", container: true },
    class: { kind: "class", container: true },
    method: { kind: (_node, inType) => (inType ? "method" : "function") },
    singleton_method: { kind: "method" },
    assignment: {
      kind: (node) => (node.childForFieldName("left")?.type === "constant" ? "constant" : undefined),
      names: (node) => [node.childForFieldName("left")],
      body: false,
    },
  },
  leading: ["comment"],
};
