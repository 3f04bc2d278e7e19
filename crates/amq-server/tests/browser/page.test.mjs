// The name-availability page of `amq serve` in Debian's headless Chromium, driven by
// playwright-core (no browser download). Starts the server as a real process on a free
// loopback port with a preloaded word list, types a taken name and a free one, checks the
// verdicts, the debounce and how soon the verdict follows the answer, and saves a screenshot
// under target/.
//
// Run: scripts/browser-test (or AMQ_BIN=target/debug/amq node --test in this folder).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync, mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../../../..");
const amq = process.env.AMQ_BIN || path.join(root, "target/debug/amq");
const shots = path.join(root, "target/browser");
const work = mkdtempSync(path.join(tmpdir(), "amq-browser-"));
const TAKEN = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy"];

let server;
let base;
let context;

function startServer() {
  const words = path.join(work, "names.txt");
  const list = [...TAKEN];
  for (let i = 0; i < 20000; i++) list.push(`user${i}`);
  writeFileSync(words, list.join("\n") + "\n");
  server = spawn(amq, ["serve", "--data", path.join(work, "data"), "--listen", "127.0.0.1:0",
    "--preload", `names=${words}`], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("amq serve did not start in 20 s")), 20000);
    let out = "";
    server.stdout.on("data", (chunk) => {
      out += chunk;
      const page = out.match(/name page is at (http:\/\/\S+)/);
      if (page) {
        clearTimeout(timer);
        resolve(page[1]);
      }
    });
    server.on("exit", (code) => reject(new Error(`amq serve exited with ${code}`)));
  });
}

before(async () => {
  base = await startServer();
  context = await chromium.launchPersistentContext(path.join(work, "profile"), {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    viewport: { width: 900, height: 640 },
  });
});

after(async () => {
  if (context) await context.close();
  if (server) server.kill("SIGTERM");
  rmSync(work, { recursive: true, force: true });
});

// Types `name` key by key, waits for a verdict, and returns what the page showed, the number
// of queries sent while typing, and how long after the answer arrived the verdict changed.
async function typeAndRead(page, name) {
  const queries = [];
  const onRequest = (r) => { if (r.url().includes("/contains/")) queries.push(r.url()); };
  page.on("request", onRequest);
  await page.fill("#name", "");
  await page.evaluate(() => {
    window.__changes = [];
    const v = document.getElementById("verdict");
    new MutationObserver(() => window.__changes.push({ state: v.dataset.state, at: performance.now() }))
      .observe(v, { attributes: true, childList: true, characterData: true, subtree: true });
  });
  await page.type("#name", name, { delay: 40 });
  await page.waitForFunction(() => ["taken", "available"].includes(
    document.getElementById("verdict").dataset.state), null, { timeout: 10000 });
  page.off("request", onRequest);
  const shown = await page.evaluate((name) => {
    const url = `/contains/${encodeURIComponent(name)}`;
    const timing = performance.getEntriesByType("resource").filter((e) => e.name.endsWith(url)).pop();
    const change = window.__changes.find((c) => c.state === "taken" || c.state === "available");
    return {
      state: document.getElementById("verdict").dataset.state,
      verdict: document.getElementById("verdict").textContent,
      why: document.getElementById("why").textContent,
      lag: change.at - timing.responseEnd,
    };
  }, name);
  return { ...shown, queries };
}

test("a taken name shows as probably taken, a free one as available", async () => {
  const page = await context.newPage();
  await page.goto(base);
  await page.waitForFunction(() => !document.getElementById("name").disabled);
  assert.match(await page.textContent("#desc"), /a bloom filter of 20,010 names/);

  const taken = await typeAndRead(page, "grace");
  assert.equal(taken.state, "taken");
  assert.equal(taken.verdict, "“grace” is probably taken.");
  assert.match(taken.why, /Why “probably”: a bloom filter says “maybe present” for every name it holds/);
  assert.match(taken.why, /about 1 in (9\d\d|1,0\d\d) names it does not hold \(ε\u00a0≈\u00a00\.001/);
  // debounced: one query for the whole word, not one per key
  assert.deepEqual(taken.queries.map((u) => decodeURIComponent(u.split("/contains/")[1])), ["grace"]);
  // the verdict follows the answer within a frame (16.7 ms), with room for a busy machine
  assert.ok(taken.lag >= 0 && taken.lag < 50, `the verdict came ${taken.lag} ms after the answer`);

  const free = await typeAndRead(page, "zebulon-42");
  assert.equal(free.state, "available");
  assert.equal(free.verdict, "“zebulon-42” is available.");
  assert.match(free.why, /Certain/);
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, "name-page-available.png") });
  assert.ok(free.lag >= 0 && free.lag < 50, `the verdict came ${free.lag} ms after the answer`);
  console.log(`verdict after the answer: ${taken.lag.toFixed(1)} ms (taken), ${free.lag.toFixed(1)} ms (free)`);

  await page.fill("#name", "");
  await page.type("#name", "grace", { delay: 40 });
  await page.waitForFunction(() => document.getElementById("verdict").dataset.state === "taken");
  await page.screenshot({ path: path.join(shots, "name-page.png") });
  await page.close();
});

test("the page says so when the filter does not exist", async () => {
  const page = await context.newPage();
  await page.goto(`${base.split("?")[0]}?filter=nope`);
  await page.waitForFunction(() => document.getElementById("verdict").dataset.state === "error");
  assert.equal(await page.textContent("#verdict"), "The filter is not available.");
  assert.match(await page.textContent("#why"), /no filter "nope"/);
  await page.close();
});
