import { createRequire } from "node:module";
import type { Node, SourceFile } from "typescript";
import { blankName, type Declaration, normalise } from "./declarations.js";

export type TypeScript = typeof import("typescript");

let typescriptModule: TypeScript | undefined;

/**
 * The TypeScript compiler API, loaded on first use: only for text oxc does not parse
 * cleanly (hunk fragments, files with syntax errors), where the compiler's error recovery
 * still finds declarations. `require` rather than `import`: importing the 9 MB CommonJS
 * bundle from ESM costs most of a second of export detection on top of compiling it.
 */
export function typescriptCompiler(): TypeScript {
  typescriptModule ??= createRequire(import.meta.url)("typescript") as TypeScript;
  return typescriptModule;
}

/**
 * The compiler, loaded ahead: under Bun, which reads all TS/JS with it (oxc's native addon
 * does not go into the single executable; the compiler does, for a literal import, and
 * importing it is cheap there).
 */
export async function preloadTypeScript(): Promise<TypeScript> {
  typescriptModule ??= ((await import("typescript")) as { default: TypeScript }).default;
  return typescriptModule;
}

/** Variables whose object literal keys are configuration keys (a schema or defaults object). */
const CONFIG_VARIABLE = /(?:config|schema|defaults?|settings|options)$/i;

/**
 * The declarations of a TS/JS file (compiler API), for the text oxc does not read
 * (javascript.ts reads the rest the same way): top-level functions, classes with their
 * members, interfaces, types, enums, variables and named exports, plus the keys of config
 * and defaults objects.
 */
export function typescriptDeclarations(ts: TypeScript, text: string, path: string): Declaration[] {
  if (text === "") return [];
  const scriptKind = /\.[cm]?jsx?$/i.test(path)
    ? ts.ScriptKind.JSX
    : /x$/i.test(path)
      ? ts.ScriptKind.TSX
      : ts.ScriptKind.TS;
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false, scriptKind);
  const lineAt = (position: number) => source.getLineAndCharacterOfPosition(position).line + 1;
  const declarations: Declaration[] = [];
  const add = (
    node: Node,
    name: string,
    kind: Declaration["kind"],
    options: {
      body?: Node | undefined;
      parent?: string;
      segment?: Node;
      hidden?: boolean;
      signatureEnd?: number;
    } = {},
  ) => {
    const start = node.getStart(source);
    const bodyStart = options.body ? options.body.getStart(source) : (options.signatureEnd ?? node.end);
    const segment = options.segment ?? node;
    declarations.push({
      name,
      kind,
      path: options.parent ? `${options.parent}::${name}` : name,
      line: lineAt(start),
      startLine: lineAt(leadingCommentStart(ts, text, segment, source)),
      endLine: lineAt(segment.end),
      signature: blankName(text.slice(start, bodyStart), name),
      body: options.body ? normalise(text.slice(bodyStart, options.body.end)) : "",
      ...(options.hidden ? { hidden: true } : {}),
      ...(options.parent ? { parent: options.parent } : {}),
      doc: docOf(node),
    });
  };
  /** The comments right before a node (its JSDoc, mostly). */
  const docOf = (node: Node) => normalise(text.slice(node.getFullStart(), node.getStart(source)));
  /** A member or option key of `parent`: its own declaration, grouped under the parent. */
  const addMember = (node: Node, name: string, parent: string, signature: string, doc = "") => {
    const line = lineAt(node.getStart(source));
    declarations.push({
      name,
      kind: "member",
      path: `${parent}::${name}`,
      line,
      startLine: line,
      endLine: lineAt(node.end),
      signature,
      body: "",
      parent,
      doc,
    });
  };
  /** Members of an interface or type literal: `verbose?: boolean` is what option docs list. */
  const addMembers = (
    parent: string,
    members: import("typescript").NodeArray<import("typescript").TypeElement>,
  ) => {
    for (const member of members) {
      if (!member.name || !(ts.isIdentifier(member.name) || ts.isStringLiteral(member.name))) continue;
      const signature = normalise(member.getText(source).slice(member.name.getText(source).length));
      addMember(member, member.name.text, parent, signature, docOf(member));
    }
  };
  /** Destructured options with defaults (`{ lines = 10 } = {}`): each key is a member, its default in its signature. */
  const addParameterMembers = (
    parent: string,
    parameters: import("typescript").NodeArray<import("typescript").ParameterDeclaration>,
  ) => {
    for (const parameter of parameters) {
      if (!ts.isObjectBindingPattern(parameter.name)) continue;
      for (const element of parameter.name.elements) {
        const key = element.propertyName ?? element.name;
        if (!ts.isIdentifier(key)) continue;
        addMember(
          element,
          key.text,
          parent,
          element.initializer ? normalise(element.initializer.getText(source)) : "",
        );
      }
    }
  };
  const isPrivate = (node: Node) =>
    ts.canHaveModifiers(node) &&
    (ts.getModifiers(node) ?? []).some((modifier) => modifier.kind === ts.SyntaxKind.PrivateKeyword);

  const visit = (statements: readonly import("typescript").Statement[]): void => {
    for (const statement of statements) {
      if (ts.isModuleDeclaration(statement)) {
        // `declare namespace got { interface Options {…} }`: what a `.d.ts` file documents.
        let body = statement.body;
        while (body && ts.isModuleDeclaration(body)) body = body.body;
        if (body && ts.isModuleBlock(body)) visit(body.statements);
      } else if (ts.isFunctionDeclaration(statement) && statement.name) {
        add(statement, statement.name.text, "function", { body: statement.body });
        addParameterMembers(statement.name.text, statement.parameters);
      } else if (ts.isClassDeclaration(statement) && statement.name) {
        const className = statement.name.text;
        add(statement, className, "class", { signatureEnd: statement.members.pos });
        for (const member of statement.members) {
          if (!member.name || !(ts.isIdentifier(member.name) || ts.isPrivateIdentifier(member.name)))
            continue;
          const name = member.name.text;
          const hidden = isPrivate(member) || ts.isPrivateIdentifier(member.name);
          if (ts.isMethodDeclaration(member) || ts.isGetAccessor(member) || ts.isSetAccessor(member)) {
            add(member, name, "method", { body: member.body, parent: className, hidden });
          } else if (ts.isPropertyDeclaration(member)) {
            add(member, name, "variable", { parent: className, hidden });
          }
        }
      } else if (ts.isInterfaceDeclaration(statement)) {
        add(statement, statement.name.text, "interface");
        addMembers(statement.name.text, statement.members);
      } else if (ts.isTypeAliasDeclaration(statement)) {
        add(statement, statement.name.text, "type");
        if (ts.isTypeLiteralNode(statement.type)) addMembers(statement.name.text, statement.type.members);
      } else if (ts.isEnumDeclaration(statement)) {
        add(statement, statement.name.text, "enum");
      } else if (ts.isVariableStatement(statement)) {
        const constant = (statement.declarationList.flags & ts.NodeFlags.Const) !== 0;
        const single = statement.declarationList.declarations.length === 1;
        for (const declaration of statement.declarationList.declarations) {
          if (!ts.isIdentifier(declaration.name)) continue;
          const name = declaration.name.text;
          const initializer = declaration.initializer;
          // A lone `const x = …` statement is the declaration's segment, `export` and JSDoc included.
          const segment = single ? statement : declaration;
          if (initializer && (ts.isArrowFunction(initializer) || ts.isFunctionExpression(initializer))) {
            add(declaration, name, "function", { body: initializer.body, segment });
            const added = declarations[declarations.length - 1]!;
            added.line = lineAt(statement.getStart(source));
            // `export const start = () => …`: the export is what callers see (and what makes it public).
            if (
              (ts.getModifiers(statement) ?? []).some(
                (modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword,
              )
            )
              added.signature = `export ${added.signature}`;
            addParameterMembers(name, initializer.parameters);
          } else {
            add(declaration, name, constant ? "constant" : "variable", { segment });
          }
          if (initializer && CONFIG_VARIABLE.test(name)) {
            declarations.push(...configKeys(ts, source, initializer, name));
          }
        }
      } else if (ts.isExpressionStatement(statement)) {
        // `module.exports.name = …` or `exports.name = …`: CommonJS's named export.
        const expression = statement.expression;
        if (
          !ts.isBinaryExpression(expression) ||
          expression.operatorToken.kind !== ts.SyntaxKind.EqualsToken ||
          !ts.isPropertyAccessExpression(expression.left) ||
          !ts.isIdentifier(expression.left.name)
        )
          continue;
        const target = expression.left.expression;
        const exportsObject = ts.isIdentifier(target)
          ? target.text === "exports"
          : ts.isPropertyAccessExpression(target) &&
            ts.isIdentifier(target.expression) &&
            target.expression.text === "module" &&
            target.name.text === "exports";
        if (!exportsObject) continue;
        const name = expression.left.name.text;
        const line = lineAt(statement.getStart(source));
        declarations.push({
          name,
          kind: "export",
          path: name,
          line,
          startLine: line,
          endLine: lineAt(expression.end),
          signature: blankName(expression.left.getText(source), name),
          body: "",
          doc: docOf(statement),
        });
      } else if (
        ts.isExportDeclaration(statement) &&
        statement.exportClause &&
        ts.isNamedExports(statement.exportClause)
      ) {
        for (const element of statement.exportClause.elements) {
          const line = lineAt(element.getStart(source));
          declarations.push({
            name: element.name.text,
            kind: "export",
            path: element.name.text,
            line,
            startLine: line,
            endLine: lineAt(element.end),
            signature: normalise(element.getText(source)).replace(element.name.text, "\u0000"),
            body: "",
          });
        }
      }
    }
  };
  visit(source.statements);
  return declarations;
}

/** Where a node's segment starts: at the doc comments directly above it (no blank line between). */
function leadingCommentStart(ts: TypeScript, text: string, node: Node, source: SourceFile): number {
  let start = node.getStart(source);
  const comments = ts.getLeadingCommentRanges(text, node.getFullStart()) ?? [];
  for (let index = comments.length - 1; index >= 0; index -= 1) {
    const comment = comments[index]!;
    const gap = text.slice(comment.end, start);
    if ((gap.match(/\n/g)?.length ?? 0) > 1) break;
    start = comment.pos;
  }
  return start;
}

/** Keys of the object literals inside a config/schema/defaults initializer, with their values. */
function configKeys(ts: TypeScript, source: SourceFile, root: Node, parent: string): Declaration[] {
  const keys: Declaration[] = [];
  const lineAt = (position: number) => source.getLineAndCharacterOfPosition(position).line + 1;
  const visit = (node: Node) => {
    if (ts.isObjectLiteralExpression(node)) {
      for (const property of node.properties) {
        const name = property.name;
        if (!name || !(ts.isIdentifier(name) || ts.isStringLiteral(name))) continue;
        const line = lineAt(property.getStart(source));
        keys.push({
          name: name.text,
          kind: "config",
          path: `${parent}::${name.text}`,
          line,
          startLine: line,
          endLine: lineAt(property.end),
          signature: ts.isPropertyAssignment(property) ? normalise(property.initializer.getText(source)) : "",
          body: "",
          parent,
        });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(root);
  return keys;
}
