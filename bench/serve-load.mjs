// serve-load.mjs - `aflame-render serve` under a bounded load on loopback:
// UPLOADS concurrent uploads of distinct generated folded traces (LINES
// lines each), then PAGES concurrent page requests (index pages, SVGs,
// thumbnails, folded text, report.tsv).  Prints the figures as a table row
// for bench/RESULTS.md ("## The upload site").
//   AF_CLI=build/aflame-render AF_SAMPLES=samples AF_TMP=/tmp \
//     node bench/serve-load.mjs [UPLOADS [PAGES [LINES [JOBS]]]]
import { load, sameAsCommand } from "../tests/serve/load.mjs";
import { loadavg } from "node:os";

const [uploads = 50, pages = 500, lines = 2000, jobs = 2] = process.argv.slice(2).map(Number);
const load0 = loadavg()[0];
const res = await load({ uploads, pages, lines, jobs, queue: 16, name: "bench-serve" });
const f = res.figures;
let same = 0;
for (let i = 0; i < uploads; i++) if (sameAsCommand(res, i) === null) same++;
const ms = (x) => `${x.toFixed(0)} ms`;
console.log(`| ${uploads} uploads (${(f.uploadBytes / 1e6).toFixed(1)} MB), --jobs ${jobs} | ` +
            `${f.uploadsPerSec.toFixed(2)} uploads/s, ${f.uploadMBps.toFixed(2)} MB/s | ` +
            `p50 ${ms(f.uploadP50)}, p99 ${ms(f.uploadP99)} | ${f.busy} 503s (retried), ` +
            `${f.failed} failed, ${same}/${uploads} sets as the command's |`);
console.log(`| ${pages} page requests | ${f.pagesPerSec.toFixed(0)} requests/s, ` +
            `${f.pageMBps.toFixed(1)} MB/s | p50 ${ms(f.pageP50)}, p99 ${ms(f.pageP99)} | ` +
            `${f.pageFailed} failed |`);
console.log(`server's own time (its log): upload p50 ${ms(f.serverUploadP50)}, p99 ` +
            `${ms(f.serverUploadP99)}; page p50 ${f.serverPageP50.toFixed(2)} ms, p99 ` +
            `${f.serverPageP99.toFixed(2)} ms`);
console.log(`server peak RSS ${(f.peakRss / 1048576).toFixed(1)} MiB; load average before: ` +
            `${load0.toFixed(1)}; stopped with ${res.stopped.code}`);
