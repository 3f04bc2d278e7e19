// The name-availability page: as the user types, ask the filter (debounced) and show the
// answer as soon as it arrives. No build step: this file is served as written.
"use strict";

const DEBOUNCE_MS = 120;
const input = document.getElementById("name");
const verdict = document.getElementById("verdict");
const why = document.getElementById("why");
let filter = new URLSearchParams(location.search).get("filter");
let fpr = null;
let kind = "";
let timer = 0;
let latest = 0; // the number of the latest request: older answers are dropped
let inflight = null;

function show(state, text, reason) {
  verdict.dataset.state = state;
  verdict.textContent = text;
  why.textContent = reason || "";
}

function oneIn(e) {
  if (!(e > 0)) return "";
  const n = Math.round(1 / e);
  return `about 1 in ${n.toLocaleString("en")}`;
}

async function describe() {
  if (!filter) {
    const r = await fetch("/api/v1/filters");
    const list = (await r.json()).filters || [];
    if (list.length === 0) throw new Error("the server holds no filter (start it with --preload)");
    filter = list[0].name;
  }
  const r = await fetch(`/api/v1/filters/${encodeURIComponent(filter)}`);
  const info = await r.json();
  if (!r.ok) throw new Error(info.error || r.statusText);
  fpr = info.estimated_fpr;
  kind = info.kind;
  document.getElementById("filter").textContent = filter;
  document.getElementById("desc").textContent =
    `, a ${kind} filter of ${info.items_inserted.toLocaleString("en")} names`;
}

async function check(name, n) {
  if (inflight) inflight.abort();
  inflight = new AbortController();
  const url = `/api/v1/filters/${encodeURIComponent(filter)}/contains/${encodeURIComponent(name)}`;
  let answer;
  try {
    const r = await fetch(url, { signal: inflight.signal });
    answer = await r.json();
    if (!r.ok) throw new Error(answer.error || r.statusText);
  } catch (e) {
    if (e.name === "AbortError") return;
    if (n === latest) show("error", "Could not check the name.", String(e.message || e));
    return;
  }
  if (n !== latest) return; // the user typed on: a newer answer is coming
  if (answer.maybe) {
    show("taken", `“${name}” is probably taken.`,
      `Why “probably”: a ${kind} filter says “maybe present” for every name it holds, and ` +
      `also, by chance, for ${oneIn(fpr)} names it does not hold (ε\u00a0≈\u00a0${fpr.toPrecision(2)}). ` +
      `So this name is taken, or very rarely a free name that looks taken.`);
  } else {
    show("available", `“${name}” is available.`,
      "Certain: the filter never says “definitely absent” for a name it holds.");
  }
}

input.addEventListener("input", () => {
  clearTimeout(timer);
  const name = input.value;
  const n = ++latest;
  if (name === "") {
    if (inflight) inflight.abort();
    show("idle", "Type a name to check it.");
    return;
  }
  show("checking", "Checking…");
  timer = setTimeout(() => check(name, n), DEBOUNCE_MS);
});

describe().then(() => {
  input.disabled = false;
  if (input.value) input.dispatchEvent(new Event("input"));
}).catch((e) => show("error", "The filter is not available.", String(e.message || e)));
input.disabled = true;
