import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/** The relative imports of every TypeScript file below `root`: file → files it imports (type-only imports too). */
export function importGraph(root: string): Map<string, Set<string>> {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (path.endsWith(".ts")) files.push(path);
    }
  };
  walk(root);
  const graph = new Map<string, Set<string>>();
  const specifier = /(?:^|\n)\s*(?:import|export)\s[^;]*?\sfrom\s+["'](\.{1,2}\/[^"']+)["']/g;
  for (const file of files) {
    const targets = new Set<string>();
    for (const m of readFileSync(file, "utf8").matchAll(specifier)) {
      const target = resolve(dirname(file), m[1]!.replace(/\.js$/, ".ts"));
      targets.add(target.endsWith(".ts") ? target : existsSync(`${target}.ts`) ? `${target}.ts` : join(target, "index.ts"));
    }
    graph.set(relative(root, file), new Set([...targets].map((t) => relative(root, t))));
  }
  return graph;
}

/** The strongly connected components with more than one member (Tarjan): every import cycle. */
export function cycles(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    indexOf.set(v, index);
    low.set(v, index);
    index += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
    }
    if (low.get(v) === indexOf.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!indexOf.has(v)) visit(v);
  return found;
}

/** The graph between folders: an edge for every import that leaves its folder (files at the root are entry points, left out). */
export function folderGraph(graph: ReadonlyMap<string, ReadonlySet<string>>): Map<string, Set<string>> {
  const folder = (file: string): string => dirname(file);
  const folders = new Map<string, Set<string>>();
  for (const [file, targets] of graph) {
    if (folder(file) === ".") continue;
    const out = folders.get(folder(file)) ?? new Set<string>();
    for (const t of targets) if (folder(t) !== folder(file) && folder(t) !== ".") out.add(folder(t));
    folders.set(folder(file), out);
  }
  return folders;
}
