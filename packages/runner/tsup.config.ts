import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { defineConfig } from "tsup";

/** Where the console is built: inside dist, so the package's `files` ships it; the routes read it from here. */
const CONSOLE_DIR = "dist/console";

/**
 * The console's index.html names its hashed assets (so they can be cached forever): the template's
 * `%console.js%` and `%console.css%` become the file names this build wrote.
 */
function writeConsoleIndex(): void {
  const assets = readdirSync(`${CONSOLE_DIR}/assets`);
  const named = (ext: string) => {
    const file = assets.find((f) => f.startsWith("console-") && f.endsWith(ext));
    if (!file) throw new Error(`the console build wrote no ${ext} asset`);
    return file;
  };
  const html = readFileSync("console/index.html", "utf8").replace("%console.js%", named(".js")).replace("%console.css%", named(".css"));
  writeFileSync(`${CONSOLE_DIR}/index.html`, html);
}

export default defineConfig([
  {
    // The ingress thread's entry (src/http/ingress-worker.ts) is a file of its own beside the
    // library's, in both formats: the runner starts a worker on it (ingress-worker-file.ts).
    entry: { index: "src/index.ts", cli: "src/cli.ts", "ingress-worker": "src/http/ingress-worker.ts" },
    format: ["esm", "cjs"],
    // The library is ESM and CommonJS; the `msgx` binary (bin/msgx.js → dist/cli.js) is ESM only, so the
    // CommonJS build and the declarations cover the library entry (and its worker) alone.
    esbuildOptions(options, { format }) {
      if (format === "cjs") options.entryPoints = { index: "src/index.ts", "ingress-worker": "src/http/ingress-worker.ts" };
    },
    dts: { entry: { index: "src/index.ts" } },
    // import.meta.url in the CommonJS build (the embedded store resolves PGlite from its own module).
    shims: true,
    // Both builds run at once: this one leaves the console's directory to the console build.
    clean: ["!console/**"],
    sourcemap: true,
    target: "node20",
  },
  {
    // The operations console (docs/console.md): Preact bundled with it, nothing fetched at runtime.
    name: "console",
    entry: { console: "console/src/main.tsx" },
    outDir: `${CONSOLE_DIR}/assets`,
    tsconfig: "console/tsconfig.json",
    platform: "browser",
    format: ["esm"],
    target: "es2022",
    minify: true,
    dts: false,
    sourcemap: false,
    clean: true,
    esbuildOptions(options) {
      options.jsx = "automatic";
      options.jsxImportSource = "preact";
      options.entryNames = "[name]-[hash]";
    },
    onSuccess: async () => writeConsoleIndex(),
  },
]);
