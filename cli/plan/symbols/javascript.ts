import type {
  BindingPattern,
  Class,
  Comment,
  ParamPattern,
  PropertyKey,
  Span,
  Declaration as Statement,
  Statement as StatementNode,
  TSSignature,
} from "oxc-parser";
import { blankName, type Declaration, normalise } from "./declarations.js";

type OxcParser = typeof import("oxc-parser");

/** The JS/TS parser: oxc's, a native addon that loads in milliseconds and parses in microseconds. */
export type JavaScriptParser = OxcParser["parseSync"];

let parserModule: OxcParser | undefined;

/** Loads oxc's parser once, only when a TS/JS file is read. */
export async function loadJavaScriptParser(): Promise<JavaScriptParser> {
  parserModule ??= await import("oxc-parser");
  return parserModule.parseSync;
}

/** Variables whose object literal keys are configuration keys (a schema or defaults object). */
const CONFIG_VARIABLE = /(?:config|schema|defaults?|settings|options)$/i;

/** A node as the walkers below see it: its type, its extent, and its fields. */
type AnyNode = Span & { type: string } & Record<string, unknown>;

/**
 * The declarations of a TS/JS file, read with oxc: top-level functions, classes with their
 * members, interfaces, types, enums, variables and named exports, plus the keys of config
 * and defaults objects. Undefined when the text does not parse cleanly (a hunk fragment, a
 * file with syntax errors): oxc gives up where the TypeScript compiler recovers, so such
 * text is read by the compiler instead (typescript.ts), which this reader agrees with on
 * every text both parse (bench/symbols-agreement.ts measures it on real repositories).
 */
export function javascriptDeclarations(
  parse: JavaScriptParser,
  text: string,
  path: string,
): Declaration[] | undefined {
  if (text === "") return [];
  const lang = /\.[cm]?jsx?$/i.test(path)
    ? "jsx"
    : /x$/i.test(path)
      ? "tsx"
      : /\.d\.[cm]?ts$/i.test(path)
        ? "dts"
        : "ts";
  const result = parse(path, text, {
    lang,
    astType: "ts",
    sourceType: lang === "jsx" ? "unambiguous" : "module",
    preserveParens: true,
  });
  if (result.errors.length > 0) return undefined;
  return new Reader(text, result.comments, result.program.hashbang?.end ?? 0).read(
    result.program.body as StatementNode[],
  );
}

class Reader {
  private readonly declarations: Declaration[] = [];
  private readonly lineStarts: number[];
  /** Comment start by comment end, to step back over comments. */
  private readonly commentStartByEnd = new Map<number, number>();

  constructor(
    private readonly text: string,
    private readonly comments: Comment[],
    /** Where the code starts after a `#!` line (the compiler reads that line as trivia). */
    private readonly hashbangEnd: number,
  ) {
    this.lineStarts = lineStarts(text);
    for (const comment of comments) this.commentStartByEnd.set(comment.end, comment.start);
  }

  read(statements: StatementNode[]): Declaration[] {
    this.visit(statements);
    return this.declarations;
  }

  /** 1-based line of an offset; line breaks as the compiler counts them (CR, LF, CRLF, U+2028, U+2029). */
  private lineAt(position: number): number {
    let low = 0;
    let high = this.lineStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.lineStarts[middle]! <= position) low = middle;
      else high = middle - 1;
    }
    return low + 1;
  }

  /**
   * Where the trivia before `start` begins: the end of the token before it (the compiler's
   * "full start"), stepping back over white space and comments.
   */
  private fullStart(start: number): number {
    let position = start;
    while (position > 0) {
      const code = this.text.charCodeAt(position - 1);
      if (isTrivia(code)) {
        position -= 1;
        continue;
      }
      const commentStart = this.commentStartByEnd.get(position);
      if (commentStart === undefined) break;
      position = commentStart;
    }
    return position <= this.hashbangEnd ? 0 : position;
  }

  /** The comments right before a node (its JSDoc, mostly): everything between the token before it and it. */
  private docOf(start: number): string {
    return normalise(this.text.slice(this.fullStart(start), start));
  }

  /**
   * Where a node's segment starts: at the doc comments directly above it (no blank line
   * between). As the compiler reads leading comments, a comment on the line of the token
   * before belongs to that token.
   */
  private leadingCommentStart(start: number): number {
    const from = this.fullStart(start);
    const candidates: Comment[] = [];
    for (let index = this.firstCommentFrom(from); index < this.comments.length; index += 1) {
      const comment = this.comments[index]!;
      if (comment.end > start) break;
      candidates.push(comment);
    }
    let first = 0;
    if (from !== 0) {
      const lineBreak = this.text.slice(from, start).search(/[\r\n\u2028\u2029]/);
      const collectingFrom = lineBreak < 0 ? start : from + lineBreak;
      while (first < candidates.length && candidates[first]!.start < collectingFrom) first += 1;
    } else if (this.hashbangEnd > 0) {
      while (first < candidates.length && candidates[first]!.start < this.hashbangEnd) first += 1;
    }
    let segmentStart = start;
    for (let index = candidates.length - 1; index >= first; index -= 1) {
      const comment = candidates[index]!;
      const gap = this.text.slice(comment.end, segmentStart);
      if ((gap.match(/\n/g)?.length ?? 0) > 1) break;
      segmentStart = comment.start;
    }
    return segmentStart;
  }

  /** The index of the first comment (they come in source order) that starts at or after `position`. */
  private firstCommentFrom(position: number): number {
    let low = 0;
    let high = this.comments.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.comments[middle]!.start < position) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  private add(
    node: { start: number; end: number },
    name: string,
    kind: Declaration["kind"],
    options: {
      body?: Span | null;
      parent?: string;
      segment?: Span;
      hidden?: boolean;
      signatureEnd?: number;
    } = {},
  ): Declaration {
    const { start } = node;
    const bodyStart = options.body ? options.body.start : (options.signatureEnd ?? node.end);
    const segment = options.segment ?? node;
    const declaration: Declaration = {
      name,
      kind,
      path: options.parent ? `${options.parent}::${name}` : name,
      line: this.lineAt(start),
      startLine: this.lineAt(this.leadingCommentStart(segment.start)),
      endLine: this.lineAt(segment.end),
      signature: blankName(this.text.slice(start, bodyStart), name),
      body: options.body ? normalise(this.text.slice(bodyStart, options.body.end)) : "",
      ...(options.hidden ? { hidden: true } : {}),
      ...(options.parent ? { parent: options.parent } : {}),
      doc: this.docOf(start),
    };
    this.declarations.push(declaration);
    return declaration;
  }

  /** A member or option key of `parent`: its own declaration, grouped under the parent. */
  private addMember(node: Span, name: string, parent: string, signature: string, doc = ""): void {
    const line = this.lineAt(node.start);
    this.declarations.push({
      name,
      kind: "member",
      path: `${parent}::${name}`,
      line,
      startLine: line,
      endLine: this.lineAt(node.end),
      signature,
      body: "",
      parent,
      doc,
    });
  }

  /** Members of an interface or type literal: `verbose?: boolean` is what option docs list. */
  private addMembers(parent: string, members: TSSignature[]): void {
    for (const member of members) {
      if (member.type !== "TSPropertySignature" && member.type !== "TSMethodSignature") continue;
      const name = keyName(member.key, member.computed, true);
      if (name === undefined) continue;
      const start = memberStart(member);
      const keyLength = member.key.end - member.key.start;
      const signature = normalise(this.text.slice(start, member.end).slice(keyLength));
      this.addMember({ start, end: member.end }, name, parent, signature, this.docOf(start));
    }
  }

  /** Destructured options with defaults (`{ lines = 10 } = {}`): each key is a member, its default in its signature. */
  private addParameterMembers(parent: string, parameters: ParamPattern[]): void {
    for (const parameter of parameters) {
      let pattern: BindingPattern | ParamPattern = parameter;
      if (pattern.type === "RestElement") pattern = pattern.argument;
      if (pattern.type === "AssignmentPattern") pattern = pattern.left;
      if (pattern.type !== "ObjectPattern") continue;
      for (const element of pattern.properties) {
        if (element.type === "RestElement") {
          if (element.argument.type === "Identifier")
            this.addMember(element, element.argument.name, parent, "");
          continue;
        }
        const name = keyName(element.key, element.computed, false);
        if (name === undefined) continue;
        const initializer = element.value.type === "AssignmentPattern" ? element.value.right : undefined;
        this.addMember(
          element,
          name,
          parent,
          initializer ? normalise(this.text.slice(initializer.start, initializer.end)) : "",
        );
      }
    }
  }

  private visit(statements: StatementNode[]): void {
    for (const statement of statements) {
      // `export` and `export default` are modifiers of the declaration for the compiler: the
      // declaration's extent starts at them.
      let declaration: AnyNode | null = statement as unknown as AnyNode;
      if (statement.type === "ExportNamedDeclaration") {
        if (!statement.declaration) {
          this.addExports(statement);
          continue;
        }
        declaration = statement.declaration as unknown as AnyNode;
      } else if (statement.type === "ExportDefaultDeclaration") {
        declaration = statement.declaration as unknown as AnyNode;
      } else if (statement.type === "ExpressionStatement") {
        this.addCommonJsExport(statement.expression as unknown as AnyNode);
        continue;
      }
      const outer = { start: declarationStart(statement, declaration), end: statement.end };
      this.visitDeclaration(declaration as unknown as Statement, outer);
    }
  }

  private visitDeclaration(declaration: Statement, outer: Span): void {
    switch (declaration.type) {
      case "TSModuleDeclaration": {
        // `declare namespace got { interface Options {…} }`: what a `.d.ts` file documents.
        if (declaration.body) this.visit(declaration.body.body as StatementNode[]);
        return;
      }
      case "FunctionDeclaration":
      case "TSDeclareFunction": {
        if (!declaration.id) return;
        this.add(outer, declaration.id.name, "function", { body: declaration.body });
        this.addParameterMembers(declaration.id.name, declaration.params);
        return;
      }
      case "ClassDeclaration":
        this.visitClass(declaration, outer);
        return;
      case "TSInterfaceDeclaration":
        this.add(outer, declaration.id.name, "interface");
        this.addMembers(declaration.id.name, declaration.body.body);
        return;
      case "TSTypeAliasDeclaration":
        this.add(outer, declaration.id.name, "type");
        if (declaration.typeAnnotation.type === "TSTypeLiteral")
          this.addMembers(declaration.id.name, declaration.typeAnnotation.members);
        return;
      case "TSEnumDeclaration":
        this.add(outer, declaration.id.name, "enum");
        return;
      case "VariableDeclaration": {
        const constant = declaration.kind === "const" || declaration.kind === "await using";
        const single = declaration.declarations.length === 1;
        for (const declarator of declaration.declarations) {
          if (declarator.id.type !== "Identifier") continue;
          const name = declarator.id.name;
          const initializer = declarator.init;
          // A lone `const x = …` statement is the declaration's segment, `export` and JSDoc included.
          const segment = single ? outer : declarator;
          if (
            initializer &&
            (initializer.type === "ArrowFunctionExpression" || initializer.type === "FunctionExpression")
          ) {
            const added = this.add(declarator, name, "function", { body: initializer.body, segment });
            added.line = this.lineAt(outer.start);
            // `export const start = () => …`: the export is what callers see (and what makes it public).
            if (this.text.startsWith("export", outer.start)) added.signature = `export ${added.signature}`;
            this.addParameterMembers(name, initializer.params);
          } else {
            this.add(declarator, name, constant ? "constant" : "variable", { segment });
          }
          if (declarator.init && CONFIG_VARIABLE.test(name))
            this.configKeys(declarator.init as AnyNode, name);
        }
        return;
      }
      default:
        return;
    }
  }

  private visitClass(declaration: Class, outer: Span): void {
    if (!declaration.id) return;
    const className = declaration.id.name;
    // The head up to and with the `{`.
    this.add(outer, className, "class", { signatureEnd: declaration.body.start + 1 });
    for (const member of declaration.body.body) {
      if (
        member.type !== "MethodDefinition" &&
        member.type !== "TSAbstractMethodDefinition" &&
        member.type !== "PropertyDefinition" &&
        member.type !== "TSAbstractPropertyDefinition" &&
        member.type !== "AccessorProperty" &&
        member.type !== "TSAbstractAccessorProperty"
      )
        continue;
      if (member.computed) continue;
      if (member.key.type !== "Identifier" && member.key.type !== "PrivateIdentifier") continue;
      if ("kind" in member && member.kind === "constructor") continue;
      const privateName = member.key.type === "PrivateIdentifier";
      const name = privateName ? `#${member.key.name}` : member.key.name;
      const hidden = privateName || member.accessibility === "private";
      const extent = { start: memberStart(member), end: member.end };
      if (member.type === "MethodDefinition" || member.type === "TSAbstractMethodDefinition") {
        this.add(extent, name, "method", { body: member.value.body, parent: className, hidden });
      } else {
        this.add(extent, name, "variable", { parent: className, hidden });
      }
    }
  }

  /** `module.exports.name = …` or `exports.name = …`: CommonJS's named export (the left side is its signature). */
  private addCommonJsExport(expression: AnyNode): void {
    if (expression.type !== "AssignmentExpression" || expression.operator !== "=") return;
    const left = expression.left as AnyNode;
    if (left.type !== "MemberExpression" || left.computed) return;
    const property = left.property as AnyNode;
    if (property.type !== "Identifier" || !isCommonJsExports(left.object as AnyNode)) return;
    const name = property.name as string;
    const signature = blankName(this.text.slice(left.start, left.end), name);
    this.addExport(name, expression, signature, this.docOf(expression.start));
  }

  /** `export { a, b as c }`: each exported name. */
  private addExports(statement: Extract<StatementNode, { type: "ExportNamedDeclaration" }>): void {
    for (const element of statement.specifiers) {
      const exported = element.exported;
      const name = exported.type === "Literal" ? exported.value : exported.name;
      this.addExport(
        name,
        element,
        normalise(this.text.slice(element.start, element.end)).replace(name, "\u0000"),
      );
    }
  }

  /** A name the module exports, declared where `node` stands. */
  private addExport(name: string, node: Span, signature: string, doc?: string): void {
    const line = this.lineAt(node.start);
    this.declarations.push({
      name,
      kind: "export",
      path: name,
      line,
      startLine: line,
      endLine: this.lineAt(node.end),
      signature,
      body: "",
      ...(doc === undefined ? {} : { doc }),
    });
  }

  /** Keys of the object literals inside a config/schema/defaults initializer, with their values, outer keys first. */
  private configKeys(root: AnyNode, parent: string): void {
    const visit = (node: AnyNode) => {
      if (node.type === "ObjectExpression") {
        for (const property of node.properties as AnyNode[]) {
          if (property.type !== "Property") continue;
          const name = keyName(property.key as PropertyKey, property.computed as boolean, true);
          if (name === undefined) continue;
          const line = this.lineAt(property.start);
          const value = property.value as AnyNode;
          const assigned = property.kind === "init" && !property.method && !property.shorthand;
          this.declarations.push({
            name,
            kind: "config",
            path: `${parent}::${name}`,
            line,
            startLine: line,
            endLine: this.lineAt(property.end),
            signature: assigned ? normalise(this.text.slice(value.start, value.end)) : "",
            body: "",
            parent,
          });
        }
      }
      for (const child of childrenOf(node)) visit(child);
    };
    visit(root);
  }
}

/** The child nodes of a node, in source order. */
function childrenOf(node: AnyNode): AnyNode[] {
  const children: AnyNode[] = [];
  for (const key in node) {
    if (key === "parent") continue;
    const value = node[key];
    if (Array.isArray(value)) {
      for (const item of value) if (isNode(item)) children.push(item);
    } else if (isNode(value)) children.push(value);
  }
  return children.sort((a, b) => a.start - b.start);
}

function isNode(value: unknown): value is AnyNode {
  return (
    typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string"
  );
}

/** A name the compiler reads as an identifier (or, where allowed, a string literal): not computed, not a number. */
function keyName(key: PropertyKey, computed: boolean, strings: boolean): string | undefined {
  if (computed) return undefined;
  if (key.type === "Identifier") return key.name;
  if (strings && key.type === "Literal" && typeof key.value === "string") return key.value;
  return undefined;
}

/** A class member or type member starts at its first decorator, if any. */
function memberStart(member: Span & { decorators?: Span[] }): number {
  const first = member.decorators?.[0];
  return first ? Math.min(first.start, member.start) : member.start;
}

/** Where a top-level declaration starts: at `export`, `export default`, or its first decorator. */
function declarationStart(statement: Span, declaration: AnyNode): number {
  const decorators = declaration.decorators as Span[] | undefined;
  const first = decorators?.[0];
  return first ? Math.min(first.start, statement.start) : statement.start;
}

function isTrivia(code: number): boolean {
  return (
    code === 32 ||
    code === 9 ||
    code === 10 ||
    code === 13 ||
    code === 11 ||
    code === 12 ||
    code === 0xa0 ||
    code === 0xfeff ||
    code === 0x2028 ||
    code === 0x2029 ||
    (code > 127 && /\s/.test(String.fromCharCode(code)))
  );
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === 13) {
      if (text.charCodeAt(index + 1) === 10) index += 1;
      starts.push(index + 1);
    } else if (code === 10 || code === 0x2028 || code === 0x2029) {
      starts.push(index + 1);
    }
  }
  return starts;
}

/** `module.exports` or `exports`: the object a CommonJS module exports by. */
function isCommonJsExports(node: AnyNode): boolean {
  if (node.type === "Identifier") return node.name === "exports";
  return (
    node.type === "MemberExpression" &&
    !node.computed &&
    (node.object as AnyNode).type === "Identifier" &&
    (node.object as AnyNode).name === "module" &&
    (node.property as AnyNode).type === "Identifier" &&
    (node.property as AnyNode).name === "exports"
  );
}
