// server.mjs - what the tests of `aflame-render serve` share: a server on
// 127.0.0.1 on a port the kernel picks (--listen 127.0.0.1:0, the port read
// back from its first line), a data folder of its own, raw HTTP for paths
// fetch() would clean up, and the command run on the same file to compare.
// ctest sets AF_CLI, AF_SAMPLES and AF_TMP.
import { spawn, execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, rmSync, readdirSync, existsSync, copyFileSync } from "node:fs";
import net from "node:net";

export const cli = process.env.AF_CLI;
export const samples = process.env.AF_SAMPLES;
export const tmpRoot = process.env.AF_TMP;

/** A fresh folder under the build's tmp folder. */
export function freshDir(name) {
  const dir = `${tmpRoot}/${name}`;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Starts `aflame-render serve` on `data` with `args`; resolves to
 * { url, port, proc, log(), stop(), kill9() } once it listens. */
export function start(data, args = []) {
  return new Promise((resolve, reject) => {
    const proc = spawn(cli, ["serve", "--listen", "127.0.0.1:0", "--data", data, ...args],
                       { stdio: ["ignore", "ignore", "pipe"] });
    let err = "", done = false;
    const timer = setTimeout(() => {
      if (!done) { done = true; proc.kill("SIGKILL"); reject(new Error(`no start:\n${err}`)); }
    }, 60000);
    proc.stderr.setEncoding("utf8");
    proc.stderr.on("data", (d) => {
      err += d;
      const m = /serving http:\/\/127\.0\.0\.1:(\d+)\//.exec(err);
      if (m && !done) {
        done = true;
        clearTimeout(timer);
        const port = Number(m[1]);
        const exited = new Promise((res) => proc.on("exit", (code, sig) => res({ code, sig })));
        resolve({
          port, proc, url: `http://127.0.0.1:${port}`,
          log: () => err,
          // SIGTERM: the server stops cleanly and exits 0 (leaks show in ASan builds)
          stop: async () => { proc.kill("SIGTERM"); return exited; },
          kill9: async () => { proc.kill("SIGKILL"); return exited; },
        });
      }
    });
    proc.on("exit", (code) => {
      if (!done) { done = true; clearTimeout(timer); reject(new Error(`exited ${code}:\n${err}`)); }
    });
  });
}

/** One raw HTTP/1.1 request (the path sent exactly as given); resolves to
 * { status, headers, body } or { closed: true } when the server hung up. */
export function raw(port, text, { timeout = 20000 } = {}) {
  return new Promise((resolve) => {
    const s = net.connect(port, "127.0.0.1");
    const chunks = [];
    s.setTimeout(timeout, () => s.destroy());
    s.on("data", (d) => chunks.push(d));
    s.on("error", () => {});
    s.on("close", () => {
      const all = Buffer.concat(chunks).toString("latin1");
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(all);
      if (!m) return resolve({ closed: true, text: all });
      const split = all.indexOf("\r\n\r\n");
      const headers = {};
      for (const line of all.slice(0, split).split("\r\n").slice(1)) {
        const i = line.indexOf(":");
        headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
      }
      resolve({ status: Number(m[1]), headers, body: all.slice(split + 4) });
    });
    s.write(text);
  });
}

export const get = (port, path) =>
  raw(port, `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);

/** Files under `dir`, recursively, relative. */
export function files(dir) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) for (const f of files(`${dir}/${e.name}`)) out.push(`${e.name}/${f}`);
    else out.push(e.name);
  }
  return out.sort();
}

/** What the command itself writes for `file` named `name` (the set, as the
 * server asks for it), in a fresh folder; returns the set's folder. */
export function commandSet(file, name, dir, extra = []) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(`${dir}/orig`, { recursive: true });
  copyFileSync(file, `${dir}/orig/${name}`);
  execFileSync(cli, ["--per-thread", ...extra, "-o", "../set", "--", name],
               { cwd: `${dir}/orig`, stdio: ["ignore", "ignore", "pipe"] });
  return `${dir}/set`;
}

/** The command's message for `file` named `name` (its stderr, trimmed). */
export function commandSays(file, name, dir, extra = []) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  copyFileSync(file, `${dir}/${name}`);
  const r = spawnSync(cli, [...extra, "-o", "out.svg", "--", name], { cwd: dir, encoding: "utf8" });
  return r.stderr.trim();
}

/** Distinct folded stacks, `n` lines deep enough to draw. */
export function folded(seed, lines = 40) {
  let s = "";
  for (let i = 0; i < lines; i++)
    s += `main;com.example.App.run;com.example.Work${seed}.step${i % 7};leaf${(i * seed) % 13} ${1 + ((i * 31 + seed) % 97)}\n`;
  return s;
}
