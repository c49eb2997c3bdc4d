// svgsize.mjs - how big aflame-render's interactive SVG is next to what
// flamegraph.pl would write for the same frames, and how fast Chromium opens
// it.  Run by bench/run; by hand:
//
//   node bench/svgsize.mjs CLI INPUT... [--open] [--before OLD_CLI]
//
// For each INPUT it writes our interactive SVG (the bytes we compare) and a
// static one with --no-javascript --countname samples: the same layout, with
// every frame's name, count and share in its <title>.  From those frames it
// builds the markup flamegraph.pl writes for one frame and adds up the bytes:
//
//   <g >\n<title>NAME (N samples, P%)</title><rect x="X" y="Y" width="W"
//   height="H" fill="rgb(R,G,B)" rx="2" ry="2" />\n<text  x="TX" y="TY"
//   >LABEL</text>\n</g>\n
//
// (one line in the file) where N has thousands separators, P is "%.2f" (the
// root says "100%"), X, Y, W and H are "%.1f", TX = X + 3 as "%.2f", TY =
// Y + H / 2 + 3 as Perl prints a number, the colours are ours (the lengths
// of flamegraph.pl's random ones are alike), NAME has '<' and '>' turned
// into '(' and ')' and '&' escaped, and LABEL follows flamegraph.pl's fixed
// glyph width rule (int(W / (12 * 0.59)) bytes, the last two "..", nothing
// under three).  flamegraph.pl's header and script (about 12 kB) are left
// out, so its figure is a lower bound and our ratio an upper bound.
//
// With --open, each interactive SVG is also opened in Debian's Chromium
// (playwright-core from tests/browser): time to the load event, to the next
// painted frame, then a zoom and a search, each until painted.  With
// --before, a second row gives the same for an older aflame-render's SVG.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, basename, dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createRequire } from "node:module";

const args = process.argv.slice(2);
const openIt = args.includes("--open");
const bi = args.indexOf("--before");
const before = bi >= 0 ? args.splice(bi, 2)[1] : null;
const [cli, ...inputs] = args.filter((a) => a !== "--open");
if (!cli || inputs.length === 0) {
  console.error("usage: node bench/svgsize.mjs CLI INPUT... [--open] [--before OLD_CLI]");
  process.exit(2);
}

const ents = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };
const unescape = (s) => s.replace(/&(lt|gt|amp|quot|apos);/g, (_, e) => ents[e]);
const perlNumber = (v) => String(+v.toPrecision(15));

// flamegraph.pl's bytes for the frames of a static SVG of ours.
function flamegraphBytes(svg) {
  const frame = /<g><title>(.*?)<\/title><rect x="([^"]+)" y="([^"]+)" width="([^"]+)" height="([^"]+)" fill="#(..)(..)(..)"\/>/gs;
  let bytes = 0, frames = 0;
  for (const m of svg.matchAll(frame)) {
    const tip = unescape(m[1]), cut = tip.lastIndexOf(" (");
    const name = Buffer.from(tip.slice(0, cut).replace(/</g, "(").replace(/>/g, ")"));
    const [count, pct] = tip.slice(cut + 2, -1).split(", ");
    const [x, y, w, h] = [m[2], m[3], m[4], m[5]].map(Number);
    const rgb = [m[6], m[7], m[8]].map((c) => parseInt(c, 16)).join(",");
    const esc = (b) => b.toString("latin1").replace(/&/g, "&amp;");
    const chars = Math.floor(w / (12 * 0.59));
    let label = "";
    if (chars >= 3) {
      const t = name.subarray(0, chars);
      label = chars < name.length ? esc(t.subarray(0, t.length - 2)) + ".." : esc(t);
    }
    const info = frames === 0 ? `all (${count}, 100%)` : `${esc(name)} (${count}, ${pct})`;
    const markup = `<g >\n<title>${info}</title><rect x="${x.toFixed(1)}" y="${y.toFixed(1)}"` +
      ` width="${w.toFixed(1)}" height="${h.toFixed(1)}" fill="rgb(${rgb})" rx="2" ry="2" />\n` +
      `<text  x="${(x + 3).toFixed(2)}" y="${perlNumber(y + h / 2 + 3)}" >${label}</text>\n</g>\n`;
    bytes += Buffer.byteLength(markup, "latin1");
    frames++;
  }
  return { bytes, frames };
}

async function openTimes(browser, file) {
  const page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  const painted = () => page.evaluate(() => new Promise((r) =>
    requestAnimationFrame(() => requestAnimationFrame(() => r()))));
  const t0 = performance.now();
  await page.goto(pathToFileURL(file).href, { waitUntil: "load" });
  const load = performance.now() - t0;
  await painted();
  const paint = performance.now() - t0;
  const frames = await page.evaluate(() => window.aflame ? window.aflame.frames.length : 0);
  let t = performance.now();
  await page.evaluate(() => {
    const fs = window.aflame.frames;
    window.aflame.zoom(fs.find((f) => f.parent && f.parent.parent && f.w > 100) || fs[1]);
  });
  await painted();
  const zoom = performance.now() - t;
  t = performance.now();
  await page.evaluate(() => window.aflame.search("a"));
  await painted();
  const search = performance.now() - t;
  await page.close();
  if (errors.length) throw new Error(`${file}: ${errors.join("; ")}`);
  return { load, paint, frames, zoom, search };
}

const dir = mkdtempSync(join(tmpdir(), "aflame-svgsize-"));
let browser = null;
try {
  if (openIt) {
    const here = dirname(fileURLToPath(import.meta.url));
    const require = createRequire(join(here, "..", "tests", "browser", "package.json"));
    const { chromium } = require("playwright-core");
    browser = await chromium.launch({
      executablePath: process.env.AF_CHROMIUM || "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--no-first-run"],
    });
  }
  console.log("| input | frames | our SVG | flamegraph.pl (frames only) | ratio |" +
              (openIt ? " Chromium: load | first paint | zoom | search |" : ""));
  console.log("|---|---|---|---|---|" + (openIt ? "---|---|---|---|" : ""));
  for (const input of inputs) {
    const stat = execFileSync(cli, ["--no-javascript", "--countname", "samples", input],
                              { maxBuffer: 1 << 30 }).toString("latin1");
    const fg = flamegraphBytes(stat);
    for (const [tag, prog] of before ? [["before", before], ["after", cli]] : [["", cli]]) {
      const ours = join(dir, "ours.svg");
      execFileSync(prog, ["-o", ours, input]);
      const size = statSync(ours).size;
      let row = `| ${basename(input)}${tag ? ` (${tag})` : ""} | ${fg.frames} |` +
                ` ${(size / 1e6).toFixed(2)} MB | ${(fg.bytes / 1e6).toFixed(2)} MB |` +
                ` ${(size / fg.bytes).toFixed(2)} |`;
      if (browser) {
        const t = await openTimes(browser, ours);
        if (t.frames !== fg.frames) throw new Error(`${input}: ${t.frames} frames in the browser`);
        row += ` ${t.load.toFixed(0)} ms | ${t.paint.toFixed(0)} ms | ${t.zoom.toFixed(0)} ms |` +
               ` ${t.search.toFixed(0)} ms |`;
      }
      console.log(row);
    }
  }
} finally {
  if (browser) await browser.close();
  rmSync(dir, { recursive: true, force: true });
}
