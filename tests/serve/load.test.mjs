// load.test.mjs - a bounded load (20 concurrent uploads of distinct traces,
// 200 concurrent page requests): every upload stored and drawn as the
// command draws it, no request failing except by the documented 503
// (retried), the server's resident memory under a bound.  No time is
// asserted: bench/serve-load.mjs records the figures.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { load, sameAsCommand } from "./load.mjs";

// the server process alone (renders run in child processes); generous, so
// that sanitizer builds hold it too
const RSS_BOUND = 512 * 1024 * 1024;

test("20 concurrent uploads and 200 concurrent page requests", async () => {
  const res = await load({ uploads: 20, pages: 200, lines: 1000, queue: 8 });
  const f = res.figures;
  console.log(JSON.stringify(f));
  assert.equal(res.stopped.code, 0);
  assert.equal(f.failed, 0, JSON.stringify(res.answers.filter((a) => a.status !== 200)));
  assert.equal(f.pageFailed, 0);
  const hashes = new Set(res.answers.map((a) => a.hash));
  assert.equal(hashes.size, 20, "distinct traces, distinct pages");
  assert.equal(readdirSync(`${res.data}/traces`).length, 20);
  assert.equal(readdirSync(`${res.data}/tmp`).length, 0);
  for (let i = 0; i < 20; i++) assert.equal(sameAsCommand(res, i), null);
  assert.ok(f.peakRss > 0 && f.peakRss < RSS_BOUND, `peak RSS ${f.peakRss}`);
});
