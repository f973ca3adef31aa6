import type { Node } from "web-tree-sitter";
import { goConfigKeys } from "../config-keys.js";
import type { GrammarSpec } from "../tree-sitter.js";

/** Go: functions, methods (under their receiver type), types, struct and interface types, consts and vars, config keys. */
export const go: GrammarSpec = {
  wasm: "tree-sitter-go.wasm",
  rules: {
    function_declaration: { kind: "function" },
    method_declaration: { kind: "method", parentOf: receiverType },
    type_spec: { kind: typeKind, body: false },
    type_alias: { kind: "type", body: false },
    const_spec: { kind: "constant", names: (node) => node.childrenForFieldName("name"), body: false },
    var_spec: { kind: "variable", names: (node) => node.childrenForFieldName("name"), body: false },
  },
  wrappers: ["type_declaration", "const_declaration", "var_declaration"],
  leading: ["comment"],
  keys: goConfigKeys,
};

function typeKind(node: Node): "interface" | "class" | "type" {
  const type = node.childForFieldName("type")?.type;
  return type === "interface_type" ? "interface" : type === "struct_type" ? "class" : "type";
}

/** `func (s *Server) Start()` hangs under `Server`. */
function receiverType(node: Node): string | undefined {
  const receiver = node.childForFieldName("receiver");
  return receiver?.descendantsOfType("type_identifier")[0]?.text;
}
