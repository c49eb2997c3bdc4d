// load.mjs - a bounded load on `aflame-render serve` over loopback: N
// concurrent uploads of distinct generated traces, then M concurrent page
// requests.  Used by tests/serve/load.test.mjs (small, checks every answer)
// and bench/serve-load.mjs (larger, prints the figures for bench/RESULTS.md).
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { freshDir, start, commandSet, folded } from "./server.mjs";

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

function peakRss(pid) {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : 0;
  } catch { return 0; }
}

/** Runs the load; returns the figures and every upload's answer.  A 503
 * is retried (after its Retry-After, shortened) and counted. */
export async function load({ uploads = 20, pages = 200, lines = 2000, jobs = 2, queue = 64,
                             name = "serve-load" } = {}) {
  const data = freshDir(name);
  const srv = await start(data, ["--sample", "none", "--jobs", String(jobs),
                                 "--queue", String(queue)]);
  const src = `${data}/../${name}-src`;
  mkdirSync(src, { recursive: true });
  const bodies = Array.from({ length: uploads }, (_, i) => Buffer.from(folded(1000 + i, lines)));
  bodies.forEach((b, i) => writeFileSync(`${src}/load-${i}.folded`, b));
  let busy = 0, failed = 0;
  const upLat = [];
  const t0 = performance.now();
  const answers = await Promise.all(bodies.map(async (body, i) => {
    for (;;) {
      const t = performance.now();
      const r = await fetch(`${srv.url}/upload?name=load-${i}.folded`, { method: "POST", body,
        headers: { Accept: "application/json" } });
      const text = await r.text();
      if (r.status === 503) { busy++; await new Promise((res) => setTimeout(res, 200)); continue; }
      upLat.push(performance.now() - t);
      if (r.status !== 200) { failed++; return { status: r.status, text }; }
      return { ...JSON.parse(text), status: 200 };
    }
  }));
  const upSecs = (performance.now() - t0) / 1000;
  const bytes = bodies.reduce((a, b) => a + b.length, 0);
  const ok = answers.filter((a) => a.status === 200);
  // page requests: index pages, graphs and thumbnails of the uploads
  const kinds = ["", "all.svg", "all.thumb.png", "all.folded", "report.tsv"];
  const pageLat = [];
  let pageFailed = 0, pageBytes = 0;
  const t1 = performance.now();
  await Promise.all(Array.from({ length: pages }, async (_, k) => {
    const a = ok[k % ok.length];
    const t = performance.now();
    const r = await fetch(`${srv.url}${a.url}${kinds[k % kinds.length]}`);
    const b = await r.arrayBuffer();
    pageLat.push(performance.now() - t);
    pageBytes += b.byteLength;
    if (r.status !== 200) pageFailed++;
  }));
  const pageSecs = (performance.now() - t1) / 1000;
  const rss = peakRss(srv.proc.pid);
  // the server's own time per request, from its log lines
  const served = [...srv.log().matchAll(/^GET \/trace\/\S+ 200 \d+ ([\d.]+)ms$/gm)].map((m) => +m[1]);
  const posted = [...srv.log().matchAll(/^POST \/upload 200 \d+ ([\d.]+)ms$/gm)].map((m) => +m[1]);
  const stopped = await srv.stop();
  return {
    srv, data, src, answers, stopped,
    figures: {
      uploads, uploadBytes: bytes, uploadSecs: upSecs, uploadsPerSec: uploads / upSecs,
      uploadMBps: bytes / 1e6 / upSecs, uploadP50: pct(upLat, 50), uploadP99: pct(upLat, 99),
      busy, failed, pages, pageSecs, pagesPerSec: pages / pageSecs, pageMBps: pageBytes / 1e6 / pageSecs,
      pageP50: pct(pageLat, 50), pageP99: pct(pageLat, 99), pageFailed, peakRss: rss,
      serverPageP50: pct(served, 50), serverPageP99: pct(served, 99),
      serverUploadP50: pct(posted, 50), serverUploadP99: pct(posted, 99),
    },
  };
}

/** Checks that upload i's set is byte for byte what the command writes. */
export function sameAsCommand(res, i) {
  const a = res.answers[i];
  const mine = commandSet(`${res.src}/load-${i}.folded`, `load-${i}.folded`,
                          `${res.src}/cmd-${i}`, ["--format", "svg,folded"]);
  for (const f of ["all.svg", "all.folded", "all.thumb.png", "index.html"]) {
    const got = readFileSync(`${res.data}/traces/${a.hash}/set/${f}`);
    if (!got.equals(readFileSync(`${mine}/${f}`))) return `${f} of load-${i} differs`;
  }
  return null;
}
