/**
 * What every published package.json must say (issue 22): the metadata an integrator and npm read,
 * the files a tarball carries (README, the Apache-2.0 LICENSE identical to the repository's), and
 * how the packages depend on each other — the adapters take `@msgx/core` as a peer, never a
 * pinned dependency, so a consumer never ends up with two cores.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const PACKAGES = ["core", "tasks", "reliable", "adapters-pg", "adapters-mysql", "adapters-kafka", "runner"] as const;
/** The packages that build on core: they take it as a peer. */
const ADAPTERS = ["tasks", "reliable", "adapters-pg", "adapters-mysql", "adapters-kafka"] as const;

interface PackageJson {
  readonly name: string;
  readonly private?: boolean;
  readonly bin?: Record<string, string>;
  readonly description?: string;
  readonly license?: string;
  readonly keywords?: readonly string[];
  readonly engines?: Record<string, string>;
  readonly repository?: { readonly type?: string; readonly url?: string; readonly directory?: string };
  readonly publishConfig?: { readonly access?: string };
  readonly sideEffects?: boolean | readonly string[];
  readonly files?: readonly string[];
  readonly dependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly peerDependenciesMeta?: Record<string, { readonly optional?: boolean }>;
  readonly devDependencies?: Record<string, string>;
}

const pkg = (name: string): PackageJson => JSON.parse(readFileSync(join(root, "packages", name, "package.json"), "utf8")) as PackageJson;

describe("published package metadata", () => {
  for (const name of PACKAGES) {
    it(`@msgx/${name}: description, license, engines, repository, publishConfig, sideEffects, files`, () => {
      const p = pkg(name);
      expect(p.name).toBe(`@msgx/${name}`);
      expect(p.description?.length).toBeGreaterThan(20);
      expect(p.keywords).toContain("msgx");
      expect(p.license).toBe("Apache-2.0");
      expect(p.engines).toEqual({ node: ">=20.11" });
      expect(p.repository).toMatchObject({ type: "git", directory: `packages/${name}` });
      expect(p.repository?.url).toMatch(/^git\+https:\/\/.+\.git$/);
      expect(p.publishConfig).toEqual({ access: "public" });
      expect(p.sideEffects === false || Array.isArray(p.sideEffects)).toBe(true);
      expect(p.files).toEqual(expect.arrayContaining(["dist", "README.md", "LICENSE"]));
    });

    it(`@msgx/${name}: README.md, and a LICENSE identical to the repository's Apache-2.0 text`, () => {
      expect(existsSync(join(root, "packages", name, "README.md"))).toBe(true);
      const license = readFileSync(join(root, "LICENSE"), "utf8");
      expect(license).toContain("Apache License\n                           Version 2.0, January 2004");
      expect(readFileSync(join(root, "packages", name, "LICENSE"), "utf8")).toBe(license);
    });

    it(`@msgx/${name}: workspace packages are depended on by range (workspace:^), never pinned (workspace:*) where a consumer sees it`, () => {
      const p = pkg(name);
      const published = { ...p.dependencies, ...p.peerDependencies };
      const pinned = Object.entries(published).filter(([dep, spec]) => dep.startsWith("@msgx/") && spec !== "workspace:^");
      expect(pinned).toEqual([]);
    });
  }

  for (const name of ADAPTERS) {
    it(`@msgx/${name}: @msgx/core is a peer (workspace:^) and a dev dependency, not a dependency`, () => {
      const p = pkg(name);
      expect(p.dependencies?.["@msgx/core"]).toBeUndefined();
      expect(p.peerDependencies?.["@msgx/core"]).toBe("workspace:^");
      expect(p.devDependencies?.["@msgx/core"]).toBe("workspace:*");
    });
  }

  it("@msgx/adapters-pg: @electric-sql/pglite is an optional peer, not a dependency", () => {
    const p = pkg("adapters-pg");
    expect(p.dependencies?.["@electric-sql/pglite"]).toBeUndefined();
    expect(p.peerDependencies?.["@electric-sql/pglite"]).toBeDefined();
    expect(p.peerDependenciesMeta?.["@electric-sql/pglite"]).toEqual({ optional: true });
  });

  for (const name of ["adapters-pg", "adapters-kafka"] as const) {
    it(`@msgx/${name}: @msgx/tasks and @msgx/reliable are optional peers, reached only by the ./tasks and ./reliable subpaths`, () => {
      const p = pkg(name) as PackageJson & { exports?: Record<string, unknown> };
      for (const product of ["tasks", "reliable"]) {
        expect(p.dependencies?.[`@msgx/${product}`]).toBeUndefined();
        expect(p.peerDependencies?.[`@msgx/${product}`]).toBe("workspace:^");
        expect(p.peerDependenciesMeta?.[`@msgx/${product}`]).toEqual({ optional: true });
        expect(p.devDependencies?.[`@msgx/${product}`]).toBe("workspace:*");
        expect(Object.keys(p.exports ?? {})).toContain(`./${product}`);
      }
    });
  }

  it("@msgx/runner: keeps its runtime dependencies (it is an application), the workspace ones by range", () => {
    const deps = pkg("runner").dependencies ?? {};
    for (const name of PACKAGES.filter((n) => n !== "runner")) expect(deps[`@msgx/${name}`]).toBe("workspace:^");
    expect(deps["@electric-sql/pglite"]).toBeDefined();
  });

  it("@msgx/runner: the msgx bin is a committed file (not under dist), so a fresh install links it before any build", () => {
    const bin = pkg("runner").bin?.["msgx"];
    expect(bin).toBe("./bin/msgx.js");
    const file = join(root, "packages", "runner", bin!);
    expect(readFileSync(file, "utf8")).toMatch(/^#!\/usr\/bin\/env node\n[\s\S]*import "\.\.\/dist\/cli\.js";/);
    expect(statSync(file).mode & 0o111).not.toBe(0);
    expect(pkg("runner").files).toContain("bin");
  });
});

/**
 * `pnpm -r pack` packs every workspace project, private or not (pnpm's pack ignores `private`), so
 * the published set is `--filter './packages/*'` (scripts/release, the consumer check): every
 * project there is published and every other one (bench, the examples) private, which `pnpm -r
 * publish` honours.
 */
describe("which workspace projects are published", () => {
  const projects = [
    ...readdirSync(join(root, "packages")).map((d) => `packages/${d}`),
    ...readdirSync(join(root, "examples")).map((d) => `examples/${d}`),
    "bench",
  ].filter((d) => existsSync(join(root, d, "package.json")));
  const manifest = (dir: string) => JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8")) as PackageJson;

  it("packages/* holds exactly the five published packages, none private", () => {
    const published = projects.filter((d) => d.startsWith("packages/"));
    expect(published.sort()).toEqual(PACKAGES.map((n) => `packages/${n}`).sort());
    for (const dir of published) expect(manifest(dir).private, dir).toBeUndefined();
  });

  it("every other workspace project (bench, the examples) is private", () => {
    const others = projects.filter((d) => !d.startsWith("packages/"));
    expect(others.length).toBeGreaterThanOrEqual(3);
    for (const dir of others) expect(manifest(dir).private, dir).toBe(true);
  });
});
