/**
 * The shipped systemd unit (packages/runner/ops/msgx.service, issue 37): `systemd-analyze verify`
 * finds nothing to say about it, and it has what docs/ha.md relies on — restart on every exit but
 * the configuration error (2), exit 3 a success, an environment file, a data directory of its own,
 * the hardening. verify refuses a unit whose ExecStart binary does not exist, and the unit names
 * where an installed runner is (/opt/msgx/node_modules/.bin/msgx), so the suite verifies a copy
 * whose ExecStart is an executable it writes — everything else as shipped. A copy with a mistake
 * must make verify complain, so the check is shown to check. NOT RUN without systemd-analyze (the
 * `systemd` package), a failure under MSGX_REQUIRE_SERVICES=1. The environment file it ships with
 * (msgx.env.example) is a production configuration the runner loads and would start with.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config/load-config.js";
import { checkListener } from "../src/config/secure-listener.js";
import { gateBinary, OPS_DIR, runTool, SYSTEMD_ANALYZE, UNIT_FILE } from "./ops-files.js";

const SHIPPED_EXEC = "ExecStart=/opt/msgx/node_modules/.bin/msgx run";

/** The unit's `[Service]` settings, each key with every value it is given. */
function serviceSettings(unit: string): Map<string, string[]> {
  const section = /^\[Service\]$([\s\S]*?)(?=^\[|(?![\s\S]))/m.exec(unit)![1]!;
  const settings = new Map<string, string[]>();
  for (const m of section.matchAll(/^([A-Za-z]+)=(.*)$/gm)) settings.set(m[1]!, [...(settings.get(m[1]!) ?? []), m[2]!]);
  return settings;
}

describe("the systemd unit", () => {
  const unit = readFileSync(UNIT_FILE, "utf8");
  const s = serviceSettings(unit);
  const one = (key: string) => s.get(key)?.join(" ");

  it("restarts on every exit but the configuration error, and takes exit 3 (leadership lost) as a success", () => {
    expect(one("Restart")).toBe("always");
    expect(one("RestartPreventExitStatus")).toBe("2");
    expect(one("SuccessExitStatus")).toBe("3");
    expect(one("RestartSec")).toMatch(/^\d+s$/);
    expect(unit).toMatch(/^StartLimitIntervalSec=0$/m);
  });

  it("waits longer than msgx's 30 s drain before it kills", () => {
    expect(Number(one("TimeoutStopSec")!.replace(/s$/, ""))).toBeGreaterThan(30);
    expect(one("KillSignal")).toBe("SIGTERM");
  });

  it("runs as its own user with an environment file and a data directory of its own, the only writable path", () => {
    expect(one("User")).toBe("msgx");
    expect(one("EnvironmentFile")).toBe("/etc/msgx/msgx.env");
    expect(one("StateDirectory")).toBe("msgx");
    expect(one("Environment")).toBe("MSGX_DATA_DIR=/var/lib/msgx");
    expect(one("ReadWritePaths")).toBe("/var/lib/msgx");
    expect(unit).toContain(SHIPPED_EXEC);
  });

  it("is hardened: no new privileges, a read-only system, a private tmp, no capabilities", () => {
    expect(one("NoNewPrivileges")).toBe("yes");
    expect(one("ProtectSystem")).toBe("strict");
    expect(one("PrivateTmp")).toBe("yes");
    expect(one("ProtectHome")).toBe("yes");
    expect(one("CapabilityBoundingSet")).toBe("");
    // V8 compiles at run time: a W^X policy would kill it at start.
    expect(s.has("MemoryDenyWriteExecute")).toBe(false);
  });
});

describe("the unit's environment file", () => {
  it("msgx.env.example names only settings the runner knows and loads as a production configuration it would start with", () => {
    const env = Object.fromEntries(
      readFileSync(`${OPS_DIR}msgx.env.example`, "utf8")
        .split("\n")
        .filter((l) => /^[A-Z_]+=/.test(l))
        .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
    );
    const config = loadConfig({ env });
    expect(config.profile).toBe("production");
    expect(config.pg.url).toMatch(/target_session_attrs=read-write/);
    expect(config.kafka.brokers?.split(",")).toHaveLength(3);
    expect(config.http.token).toBeDefined();
    // It listens beyond loopback with a token: started without a SECURITY warning.
    const warnings: string[] = [];
    checkListener(config, { debug() {}, info() {}, error() {}, warn: (msg: string) => void warnings.push(msg) });
    expect(warnings).toEqual([]);
  });
});

const suite = "the systemd unit under systemd-analyze verify";
const analyze = await gateBinary(SYSTEMD_ANALYZE, "systemd", suite);
const scratch = mkdtempSync(join(tmpdir(), "msgx-unit-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A copy of the unit named msgx.service in its own directory, ExecStart on an executable that exists, then `edit` applied. */
function unitCopy(name: string, edit: (unit: string) => string = (u) => u): string {
  const dir = mkdtempSync(join(scratch, `${name}-`));
  const exec = join(dir, "msgx");
  writeFileSync(exec, "#!/bin/sh\nexit 0\n");
  chmodSync(exec, 0o755);
  const unit = readFileSync(UNIT_FILE, "utf8");
  expect(unit).toContain(SHIPPED_EXEC);
  writeFileSync(join(dir, "msgx.service"), edit(unit.replace(SHIPPED_EXEC, `ExecStart=${exec} run`)));
  return join(dir, "msgx.service");
}

const verify = (path: string) => runTool(SYSTEMD_ANALYZE, ["verify", path]);

describe.skipIf(!analyze.available)(suite, () => {
  it("finds nothing to say about the shipped unit", async () => {
    const r = await verify(unitCopy("shipped"));
    expect({ code: r.code, output: (r.stdout + r.stderr).trim() }).toEqual({ code: 0, output: "" });
  });

  it("complains about a copy with a misspelt setting, a bad value, or an ExecStart that does not exist", async () => {
    const misspelt = await verify(unitCopy("misspelt", (u) => u.replace("NoNewPrivileges=yes", "NoNewPrivilege=yes")));
    expect(misspelt.stdout + misspelt.stderr).toMatch(/Unknown key 'NoNewPrivilege'/);
    const badValue = await verify(unitCopy("bad-value", (u) => u.replace("Restart=always", "Restart=sometimes")));
    expect(badValue.stdout + badValue.stderr).toMatch(/restart specifier.*sometimes/);
    const noBinary = await verify(unitCopy("no-binary", (u) => u.replace(/^ExecStart=\S+/m, "ExecStart=/nonexistent/msgx")));
    expect(noBinary.code).not.toBe(0);
    expect(noBinary.stdout + noBinary.stderr).toMatch(/\/nonexistent\/msgx is not executable/);
  });
});
