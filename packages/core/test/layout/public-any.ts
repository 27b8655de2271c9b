import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

/** One `any` a package's public types would carry: where it is and the line it is on. */
export interface PublicAny {
  readonly file: string;
  readonly line: number;
  /** The exported name whose declaration (or a type it references) holds the `any`. */
  readonly via: string;
  readonly text: string;
}

/**
 * The source entry of every subpath a package exports: `./dist/<name>.js` (or `.cjs`, `.d.ts`) in
 * its `exports` map is built from `src/<name>.ts`.
 */
export function packageEntries(packageDir: string): string[] {
  const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as { exports?: unknown };
  const names = new Set<string>(["index"]);
  const collect = (v: unknown): void => {
    if (typeof v === "string") {
      const m = /^\.\/dist\/([\w-]+)\.(?:js|cjs|mjs|d\.ts|d\.cts)$/.exec(v);
      if (m) names.add(m[1]!);
    } else if (v !== null && typeof v === "object") for (const x of Object.values(v)) collect(x);
  };
  collect(manifest.exports);
  return [...names].map((n) => join(packageDir, "src", `${n}.ts`)).filter((f) => existsSync(f));
}

/** `packages/<name>` of every workspace package under `root`. */
export const workspacePackages = (root: string): string[] =>
  readdirSync(join(root, "packages"), { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(root, "packages", e.name, "package.json")))
    .map((e) => join(root, "packages", e.name));

/**
 * Every `any` in what a declaration bundle of `entries` would hold: the exported declarations and,
 * transitively, the declarations of our own (`isOurs`) types they reference, without function
 * bodies, initializers of annotated members, or private members (a `.d.ts` drops all three). An
 * unannotated member or return is checked through its inferred type. Types declared elsewhere
 * (kysely, node) are not looked into: their own `any` is theirs.
 */
export function publicAnys(program: ts.Program, entries: readonly string[], isOurs: (file: string) => boolean, root: string): PublicAny[] {
  const checker = program.getTypeChecker();
  const found: PublicAny[] = [];
  const queued = new Set<ts.Node>();
  const queue: { node: ts.Node; via: string }[] = [];
  const enqueue = (node: ts.Node, via: string): void => {
    if (queued.has(node) || !isOurs(node.getSourceFile().fileName)) return;
    queued.add(node);
    queue.push({ node, via });
  };
  const report = (node: ts.Node, via: string, text: string): void => {
    const sf = node.getSourceFile();
    const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
    found.push({ file: relative(root, sf.fileName), line, via, text });
  };
  const resolved = (symbol: ts.Symbol | undefined): ts.Symbol | undefined =>
    symbol && symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  /** An inferred type: `any` in it is reported, our types it names are looked into. */
  const inferred = (type: ts.Type, node: ts.Node, via: string, text: string): void => {
    if (/\bany\b/.test(checker.typeToString(type, undefined, ts.TypeFormatFlags.NoTruncation))) report(node, via, text);
    const seen = new Set<ts.Type>();
    const walk = (t: ts.Type, depth: number): void => {
      if (depth > 3 || seen.has(t)) return;
      seen.add(t);
      for (const s of [t.aliasSymbol, t.getSymbol()]) for (const d of s?.declarations ?? []) enqueue(d, via);
      if (t.isUnionOrIntersection()) for (const u of t.types) walk(u, depth + 1);
      if (t.flags & ts.TypeFlags.Object && (t as ts.ObjectType).objectFlags & ts.ObjectFlags.Reference) for (const a of checker.getTypeArguments(t as ts.TypeReference)) walk(a, depth + 1);
      for (const sig of t.getCallSignatures()) {
        for (const p of sig.getParameters()) walk(checker.getTypeOfSymbol(p), depth + 1);
        walk(sig.getReturnType(), depth + 1);
      }
    };
    walk(type, 0);
  };

  const visit = (node: ts.Node, via: string): void => {
    if (node.kind === ts.SyntaxKind.AnyKeyword) report(node, via, node.parent.getText());
    if (ts.isTypeReferenceNode(node) || ts.isExpressionWithTypeArguments(node) || ts.isTypeQueryNode(node)) {
      const name = ts.isTypeReferenceNode(node) ? node.typeName : ts.isTypeQueryNode(node) ? node.exprName : node.expression;
      for (const d of resolved(checker.getSymbolAtLocation(name))?.declarations ?? []) enqueue(d, via);
    }
    if (isPrivateMember(node)) return;
    // What an unannotated declaration exposes is its inferred type.
    if ((ts.isVariableDeclaration(node) || ts.isPropertyDeclaration(node) || ts.isParameter(node)) && node.type === undefined) {
      inferred(checker.getTypeAtLocation(node.name), node, via, node.getText().split("\n")[0]!);
    }
    if (ts.isFunctionLike(node) && node.type === undefined && !ts.isConstructorDeclaration(node) && !ts.isSetAccessorDeclaration(node)) {
      const signature = checker.getSignatureFromDeclaration(node);
      if (signature) inferred(checker.getReturnTypeOfSignature(signature), node, via, `${node.getText().split("\n")[0]} (inferred return)`);
    }
    ts.forEachChild(node, (child) => {
      if (isImplementation(node, child)) return;
      visit(child, via);
    });
  };

  for (const entry of entries) {
    const sf = program.getSourceFile(entry);
    if (!sf) throw new Error(`not in the program: ${entry}`);
    const moduleSymbol = checker.getSymbolAtLocation(sf);
    if (!moduleSymbol) continue;
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      for (const d of resolved(exported)?.declarations ?? []) enqueue(d, `${relative(root, entry)}: ${exported.name}`);
    }
  }
  for (let i = 0; i < queue.length; i++) visit(queue[i]!.node, queue[i]!.via);
  return found;
}

/** A function body, or an initializer. */
function isImplementation(parent: ts.Node, child: ts.Node): boolean {
  if (ts.isFunctionLike(parent) && "body" in parent && parent.body === child) return true;
  // Without a written type, `visit` checks the declaration's inferred type instead.
  return (ts.isVariableDeclaration(parent) || ts.isPropertyDeclaration(parent) || ts.isParameter(parent)) && parent.initializer === child;
}

/** `#x`, or `private x` (a parameter property too): a declaration file keeps at most its name. */
function isPrivateMember(node: ts.Node): boolean {
  if (!(ts.isPropertyDeclaration(node) || ts.isMethodDeclaration(node) || ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node) || ts.isParameter(node))) return false;
  if (!ts.isParameter(node) && node.name !== undefined && ts.isPrivateIdentifier(node.name)) return true;
  return ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Private ? true : false;
}
