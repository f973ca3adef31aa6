import type { GrammarSpec } from "../tree-sitter.js";

const CONSTANT_NAME = /^[A-Z][A-Z0-9_]*$/;

/** Python: classes, functions and methods (decorators and comments above them in the segment), UPPER_CASE constants. */
export const python: GrammarSpec = {
  wasm: "tree-sitter-python.wasm",
  rules: {
    class_definition: { kind: "class", container: true },
    function_definition: { kind: (_node, inType) => (inType ? "method" : "function") },
    assignment: {
      kind: (node) =>
        CONSTANT_NAME.test(node.childForFieldName("left")?.text ?? "") ? "constant" : undefined,
      names: (node) => [node.childForFieldName("left")],
      body: false,
    },
  },
  wrappers: ["decorated_definition"],
  leading: ["comment"],
};
