// The item explorer (report/items_page.py writes it into items.html with its data). The page's
// state is the URL's fragment, `key=value` pairs joined by `&` (values percent-encoded):
// comparison, component, gold, pattern, q (text search), item (the item opened) and, when no
// comparison is named, study / dataset / system / format / parser / budget (the first
// comparison that matches them). Every text is put in the page as text (textContent), never as
// HTML. What a browser test reads: #status's data-* attributes and each group's data-count.
"use strict";
(() => {
  const INDEX = JSON.parse(document.getElementById("index").textContent);
  const COMPONENTS = INDEX.components;
  const DEFAULT_COMPONENT = INDEX.default_component;
  const FACETS = ["study", "dataset", "system", "format", "parser", "budget"];
  const HASH_KEYS = ["comparison", "component", "gold", "pattern", "q", "item"];
  const GROUPS = [  // [key, heading verb]; an item's group is the sign of its share
    ["raises", "raise"], ["lowers", "lower"], ["leaves", "leave"], ["undefined", "have no value of"]];
  const ROWS_SHOWN = 50;
  // this file is ASCII (the page is windows-1252): other characters are written as escapes
  const DASH = "\u2013", MINUS = "\u2212", ARROW = " \u2192 ", ELLIPSIS = "\u2026";
  const comparisons = INDEX.comparisons;
  const byKey = new Map(comparisons.map((c) => [c.key, c]));
  const payloads = new Map();  // payload name -> promise of its document
  const prepared = new Map();  // comparison key -> promise of its prepared items
  const shownRows = new Map();  // "key|component|group" -> rows shown
  const status = document.getElementById("status");
  let renderToken = 0;
  let renders = 0;
  let changeStart = null;

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (name === "onclick" || name === "onchange") node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value === true ? "" : String(value));
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  // A payload's bytes are its characters as windows-1252 read them (each of the 256 bytes its
  // own character), "=" followed by the byte + 64 standing for NUL, CR, "<" and "=" themselves.
  const BYTE_OF = (() => {
    const table = new Int16Array(65536).fill(-1);
    const chars = new TextDecoder("windows-1252").decode(Uint8Array.from({length: 256}, (_, i) => i));
    for (let b = 0; b < 256; b++) table[chars.charCodeAt(b)] = b;
    return table;
  })();
  const ESCAPE = 0x3d;

  function payloadBytes(text) {
    const bytes = new Uint8Array(text.length);
    let n = 0;
    for (let i = 0; i < text.length; i++) {
      let b = BYTE_OF[text.charCodeAt(i)];
      if (b === ESCAPE) b = (BYTE_OF[text.charCodeAt(++i)] + 192) & 0xff;
      if (b < 0) throw new Error("a payload holds a character windows-1252 does not give");
      bytes[n++] = b;
    }
    return bytes.subarray(0, n);
  }

  async function decodePayload(name) {
    const holder = document.getElementById(name);
    if (!holder) throw new Error(`payload ${name} is missing from the page`);
    const stream = new Blob([payloadBytes(holder.textContent)]).stream()
      .pipeThrough(new DecompressionStream("gzip"));
    return JSON.parse(await new Response(stream).text());
  }

  function payload(name) {
    if (!payloads.has(name)) payloads.set(name, decodePayload(name));
    return payloads.get(name);
  }

  async function prepare(comparison) {
    const items = await payload(comparison.payload);
    const dataset = INDEX.parts[comparison.part].datasets[comparison.dataset] || null;
    const texts = dataset ? await payload(dataset.payload) : null;
    const position = new Map();
    if (texts) texts.item_id.forEach((id, i) => position.set(id, i));
    const n = items.item_id.length;
    const textRow = items.item_id.map((id) => (position.has(id) ? position.get(id) : -1));
    const claims = textRow.map((p) => (p >= 0 ? texts.claims[p] : []));
    let search = null;
    return {
      comparison, items, n, dataset, texts, textRow, claims,
      searchText(i) {
        if (search === null) {
          search = items.item_id.map((id, j) => [id, items.gold[j], ...claims[j]].join("\n").toLowerCase());
        }
        return search[i];
      },
    };
  }

  function prepareComparison(comparison) {
    if (!prepared.has(comparison.key)) prepared.set(comparison.key, prepare(comparison));
    return prepared.get(comparison.key);
  }

  function readHash() {
    const raw = {};
    const notes = [];
    for (const pair of location.hash.replace(/^#/, "").split("&")) {
      if (!pair) continue;
      const at = pair.indexOf("=");
      try {
        raw[decodeURIComponent(at < 0 ? pair : pair.slice(0, at))] = at < 0 ? "" : decodeURIComponent(pair.slice(at + 1));
      } catch (err) {
        notes.push(`The link's part "${pair}" is not percent-encoded text; it is left out.`);
      }
    }
    return [raw, notes];
  }

  function facetMatch(raw) {
    return comparisons.find((c) => FACETS.every((f) => !raw[f] || c[f] === raw[f]));
  }

  function resolve() {
    const [raw, notes] = readHash();
    let comparison = byKey.get(raw.comparison);
    if (raw.comparison && !comparison) notes.push(`This page has no comparison ${raw.comparison}.`);
    if (!comparison) {
      comparison = facetMatch(raw);
      if (!comparison && FACETS.some((f) => raw[f])) notes.push("No comparison matches the link's study, dataset, system, format, parser and budget.");
    }
    let component = raw.component || DEFAULT_COMPONENT;
    if (!COMPONENTS.includes(component)) {
      notes.push(`Unknown component ${component}; the components: ${COMPONENTS.join(", ")}.`);
      component = DEFAULT_COMPONENT;
    }
    return {comparison: comparison || comparisons[0] || null, component, gold: raw.gold || "",
            pattern: raw.pattern || "", q: raw.q || "", item: raw.item || "", notes};
  }

  function hashOf(state) {
    const values = {...state, comparison: state.comparison ? state.comparison.key : ""};
    return "#" + HASH_KEYS.filter((k) => values[k])
      .map((k) => `${k}=${encodeURIComponent(values[k]).replace(/%2F/g, "/")}`).join("&");
  }

  function go(state) {
    changeStart = performance.now();
    const hash = hashOf(state);
    if (location.hash === hash) render();
    else location.hash = hash;  // hashchange renders
  }

  function isMissing(v) { return v === null || v === undefined || Number.isNaN(v); }

  function groupOf(v) {
    if (isMissing(v)) return "undefined";
    return v > 0 ? "raises" : v < 0 ? "lowers" : "leaves";
  }

  function filtered(prep, state) {
    const {items, n} = prep;
    const q = state.q.toLowerCase();
    const rows = [];
    for (let i = 0; i < n; i++) {
      if (state.gold && items.gold[i] !== state.gold) continue;
      if (state.pattern && items.pattern[i] !== state.pattern) continue;
      if (q && !prep.searchText(i).includes(q)) continue;
      rows.push(i);
    }
    return rows;
  }

  function grouped(prep, rows, component) {
    const share = prep.items[component];
    const ids = prep.items.item_id;
    const groups = Object.fromEntries(GROUPS.map(([key]) => [key, []]));
    for (const i of rows) groups[groupOf(share[i])].push(i);
    const byId = (a, b) => (ids[a] < ids[b] ? -1 : ids[a] > ids[b] ? 1 : 0);
    groups.raises.sort((a, b) => share[b] - share[a] || byId(a, b));
    groups.lowers.sort((a, b) => share[a] - share[b] || byId(a, b));
    groups.leaves.sort(byId);
    groups.undefined.sort(byId);
    return groups;
  }

  function sum(rows, column) {
    let total = 0;
    for (const i of rows) if (!isMissing(column[i])) total += column[i];
    return total;
  }

  function number(v, signed) {
    if (isMissing(v)) return DASH;
    const abs = Math.abs(v);
    const text = abs !== 0 && abs < 0.01 ? abs.toPrecision(2) : abs.toFixed(2);
    return (v < 0 ? MINUS : signed && v > 0 ? "+" : "") + text;
  }

  function counts(values) {
    const found = new Map();
    for (const v of values) found.set(v, (found.get(v) || 0) + 1);
    return [...found.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  }

  // at most OPTIONS_SHOWN values in a filter's list (KILT's gold answers differ item by item):
  // the most frequent, and the one chosen; any value can still be asked for in the address
  const OPTIONS_SHOWN = 100;
  function listed(valueCounts, chosen) {
    const shown = [...valueCounts].sort((a, b) => b[1] - a[1]).slice(0, OPTIONS_SHOWN);
    if (chosen && !shown.some(([v]) => v === chosen)) shown.push([chosen, valueCounts.find(([v]) => v === chosen)?.[1] || 0]);
    return shown.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .map(([v, n]) => [v, `${v.length > 80 ? v.slice(0, 77) + ELLIPSIS : v} (${n})`]);
  }

  function select(label, name, options, value, onchange) {
    const box = el("select", {name, onchange: (e) => onchange(e.target.value)},
      options.map(([v, text]) => el("option", {value: v, selected: v === value}, text)));
    return el("label", {}, label, " ", box);
  }

  function closestComparison(current, facet, value) {
    const candidates = comparisons.filter((c) => c[facet] === value);
    const score = (c) => FACETS.filter((f) => c[f] === current[f]).length;
    return candidates.reduce((best, c) => (score(c) > score(best) ? c : best), candidates[0]);
  }

  function controls(prep, state) {
    const c = state.comparison;
    const change = (patch) => go({...state, ...patch, item: patch.item !== undefined ? patch.item : state.item});
    const facetSelects = FACETS.map((f) => {
      const values = [...new Set(comparisons.map((x) => x[f]))];
      return select(f, f, values.map((v) => [v, v === "" ? "(none)" : v]), c[f],
        (v) => change({comparison: closestComparison(c, f, v), item: ""}));
    });
    const golds = listed(counts(prep.items.gold), state.gold);
    const patterns = listed(counts(prep.items.pattern), state.pattern);
    const search = el("input", {type: "search", name: "q", value: state.q, placeholder: "item id, gold or claim text",
                                onchange: (e) => change({q: e.target.value.trim()})});
    return el("div", {id: "controls-inner"},
      el("div", {class: "row"}, select("comparison", "comparison",
        comparisons.map((x) => [x.key, `${x.key} (${x.items.toLocaleString("en")} items)`]), c.key,
        (key) => change({comparison: byKey.get(key), item: ""}))),
      el("div", {class: "row"}, facetSelects),
      el("div", {class: "row"},
        select("group by", "component", COMPONENTS.map((k) => [k, `${k}: ${INDEX.definitions[k]}`]), state.component,
          (v) => change({component: v})),
        select("gold", "gold", [["", `all (${prep.n})`], ...golds], state.gold, (v) => change({gold: v})),
        select("pattern", "pattern", [["", `all (${prep.n})`], ...patterns], state.pattern,
          (v) => change({pattern: v})),
        el("label", {}, "search ", search)));
  }

  function itemRow(prep, state, i, rank) {
    const it = prep.items;
    const claim = prep.claims[i][0] || "";
    return el("tr", {"data-item": it.item_id[i], onclick: () => go({...state, item: it.item_id[i]})},
      el("td", {class: "num"}, rank),
      el("td", {class: "num share"}, number(it[state.component][i], true)),
      el("td", {class: "id"}, el("a", {href: hashOf({...state, item: it.item_id[i]})}, it.item_id[i])),
      el("td", {}, it.gold[i]),
      el("td", {class: "pattern"}, it.pattern[i]),
      el("td", {class: "num"}, `${number(it.answer_0[i])}${ARROW}${number(it.answer_1[i])}`),
      el("td", {class: "num"}, `${number(it.eligible_0[i])}${ARROW}${number(it.eligible_1[i])}`),
      el("td", {class: "claim"}, claim.length > 180 ? claim.slice(0, 177) + ELLIPSIS : claim));
  }

  function groupSection(prep, state, key, verb, rows) {
    const c = state.comparison;
    const shareSum = sum(rows, prep.items[state.component]);
    const shownKey = `${c.key}|${state.component}|${key}`;
    const shown = Math.min(rows.length, shownRows.get(shownKey) || ROWS_SHOWN);
    const heading = key === "undefined"
      ? `${rows.length.toLocaleString("en")} items have no value of ${state.component}`
      : `${rows.length.toLocaleString("en")} items ${verb} ${state.component}` +
        (key === "leaves" ? "" : ` (together ${number(shareSum / prep.n, true)} points of it)`);
    const section = el("section", {class: "group", "data-group": key, "data-component": state.component,
                                   "data-count": rows.length, "data-share-sum": shareSum},
      el("h2", {}, heading));
    if (rows.length === 0) return section;
    const head = el("tr", {}, ["#", state.component, "item", "gold", "pattern", `answer ${c.source0}${ARROW}${c.source1}`,
      `eligible ${c.source0}${ARROW}${c.source1}`, "claim"].map((h) => el("th", {}, h)));
    const body = el("tbody", {}, rows.slice(0, shown).map((i, r) => itemRow(prep, state, i, r + 1)));
    section.append(el("table", {}, el("thead", {}, head), body));
    if (shown < rows.length) {
      section.append(el("button", {type: "button", onclick: () => { shownRows.set(shownKey, shown + 200); render(); }},
        `show ${Math.min(200, rows.length - shown)} more of ${rows.length - shown}`));
    }
    return section;
  }

  function overview(prep, state, rows) {
    const c = state.comparison;
    const column = prep.items[state.component];
    const mean = sum(Array.from({length: prep.n}, (_, i) => i), column) / prep.n;
    return el("p", {class: "overview"},
      `${c.key}: ${c.source0}${ARROW}${c.source1}, ${prep.n.toLocaleString("en")} items. `,
      `${state.component} = ${INDEX.definitions[state.component]} = ${number(mean, true)} points, the mean of the `,
      `items' shares (each item's own ${state.component}). `,
      rows.length === prep.n ? "" : `The filters keep ${rows.length.toLocaleString("en")} items. `,
      "Groups: the sign of each item's share; within a group, the largest share first.");
  }

  function textRows(prep, state, i) {
    const c = state.comparison;
    const p = prep.textRow[i];
    if (p < 0) return Promise.resolve(null);
    const chunkName = prep.dataset.chunks[prep.texts.chunk[p]];
    return payload(chunkName).then((chunk) => {
      const r = chunk.rows;
      const label = (j) => chunk.labels[j];
      const out = [];
      for (let j = 0; j < r.item.length; j++) {
        if (r.item[j] !== p) continue;
        const row = {kind: label(r.kind[j]), system: label(r.system[j]), format: label(r.format[j]),
                     source: label(r.source[j]), budget: label(r.budget[j]), replicate: r.replicate[j],
                     text: chunk.texts[r.text[j]]};
        const applies = [["system", c.system], ["format", c.format], ["budget", c.budget]]
          .every(([f, v]) => row[f] === "" || row[f] === v) && (row.source === c.source0 || row.source === c.source1);
        if (applies) out.push(row);
      }
      return out;
    });
  }

  function numbersTable(header, rows) {
    return el("table", {class: "numbers"}, el("thead", {}, el("tr", {}, header.map((h) => el("th", {}, h)))),
      el("tbody", {}, rows.map((row) => el("tr", {}, row.map((v, j) => el("td", {class: j ? "num" : ""}, v))))));
  }

  function itemPanel(prep, state, i, texts) {
    const c = state.comparison;
    const it = prep.items;
    const close = el("a", {href: hashOf({...state, item: ""}), class: "close"}, "close");
    const panel = el("section", {id: "item-panel", "data-item": it.item_id[i]},
      el("h2", {}, `Item ${it.item_id[i]}`, it.family_id[i] && it.family_id[i] !== it.item_id[i] ? ` (family ${it.family_id[i]})` : "", " ", close));
    for (const claim of prep.claims[i]) panel.append(el("p", {class: "claim-text"}, claim));
    if (prep.claims[i].length === 0) panel.append(el("p", {class: "absent"}, "No claim or question text in item_texts.parquet for this item."));
    panel.append(el("p", {}, `Gold: ${it.gold[i]}. Pattern ${it.pattern[i]} (T00 T01 T10 T11: 1 scores in every run, 0 in none, ~ in some or partly). ${it.runs[i]} run(s).`));
    panel.append(numbersTable(["source", "answer score", "eligible", "evidence score"],
      [[c.source0, number(it.answer_0[i]), number(it.eligible_0[i]), number(it.evidence_0[i])],
       [c.source1, number(it.answer_1[i]), number(it.eligible_1[i]), number(it.evidence_1[i])]]));
    panel.append(numbersTable(["quantity", "this item (points)"],
      [...INDEX.cells, ...COMPONENTS].map((k) => [`${k}: ${INDEX.definitions[k]}`, number(it[k][i], COMPONENTS.includes(k))])));
    const runs = it.run_T00[i].map((_, r) => [`${r + 1}`, ...INDEX.cells.map((k) => number(it[`run_${k}`][i][r]))]);
    panel.append(numbersTable(["run (replicates in order)", ...INDEX.cells], runs));
    if (texts === null) {
      panel.append(el("p", {class: "absent"}, "item_texts.parquet holds no texts for this item."));
      return panel;
    }
    for (const source of [c.source0, c.source1]) {
      const evidence = texts.filter((t) => t.kind === "evidence" && t.source === source);
      panel.append(el("h3", {}, `Evidence of ${source}`));
      if (evidence.length === 0) panel.append(el("p", {class: "absent"}, "none in item_texts.parquet"));
      for (const t of evidence) {
        const where = [t.budget && `budget ${t.budget}`, t.replicate >= 0 && `replicate ${t.replicate}`, t.system && `system ${t.system}`]
          .filter(Boolean).join(", ");
        panel.append(el("details", {open: true, class: "evidence", "data-source": source},
          el("summary", {}, where || "every run"), el("pre", {}, t.text)));
      }
    }
    const answers = texts.filter((t) => t.kind === "answer");
    const replicates = [...new Set(answers.map((t) => t.replicate))].sort((a, b) => a - b);
    panel.append(el("h3", {}, "Answers, replicate by replicate"));
    if (replicates.length === 0) panel.append(el("p", {class: "absent"}, "none in item_texts.parquet"));
    else {
      panel.append(el("table", {class: "answers"},
        el("thead", {}, el("tr", {}, el("th", {}, "replicate"), el("th", {}, c.source0), el("th", {}, c.source1))),
        el("tbody", {}, replicates.map((rep) => el("tr", {"data-replicate": rep}, el("td", {}, String(rep)),
          [c.source0, c.source1].map((s) => el("td", {class: "answer"},
            answers.filter((t) => t.replicate === rep && t.source === s).map((t) => t.text).join("\n"))))))));
    }
    return panel;
  }

  function setStatus(attrs, text) {
    for (const [k, v] of Object.entries(attrs)) status.dataset[k] = String(v);
    status.textContent = text;
  }

  async function render() {
    const token = ++renderToken;
    const started = changeStart === null ? performance.now() : changeStart;
    changeStart = null;
    const state = resolve();
    const view = document.getElementById("view");
    const notes = document.getElementById("notes");
    const controlsBox = document.getElementById("controls");
    if (!state.comparison) {
      view.replaceChildren(el("p", {class: "absent"}, "No items: the tables hold no comparison."));
      setStatus({state: "empty", renders: ++renders, renderedMs: performance.now()}, "No comparisons.");
      return;
    }
    setStatus({state: "loading"}, `Loading ${state.comparison.key}${ELLIPSIS}`);
    const prep = await prepareComparison(state.comparison);
    if (token !== renderToken) return;
    const rows = filtered(prep, state);
    const groups = grouped(prep, rows, state.component);
    notes.replaceChildren(...state.notes.map((n) => el("p", {class: "note"}, n)));
    controlsBox.replaceChildren(controls(prep, state));
    view.replaceChildren(overview(prep, state, rows),
      ...GROUPS.filter(([key]) => key !== "undefined" || groups.undefined.length)
        .map(([key, verb]) => groupSection(prep, state, key, verb, groups[key])));
    const panelBox = document.getElementById("item");
    const opened = state.item ? prep.items.item_id.indexOf(state.item) : -1;
    if (state.item && opened < 0) notes.append(el("p", {class: "note"}, `No item ${state.item} in ${state.comparison.key}.`));
    if (opened >= 0) {
      const texts = await textRows(prep, state, opened);
      if (token !== renderToken) return;
      panelBox.replaceChildren(itemPanel(prep, state, opened, texts));
    } else panelBox.replaceChildren();
    document.getElementById("layout").classList.toggle("with-item", opened >= 0);
    const now = performance.now();
    renders += 1;
    if (!status.dataset.openMs) status.dataset.openMs = String(now);
    setStatus({state: "ready", comparison: state.comparison.key, component: state.component, gold: state.gold,
               pattern: state.pattern, q: state.q, item: opened >= 0 ? state.item : "", items: prep.n,
               shown: rows.length, renders, renderedMs: now, renderMs: now - started},
              `${rows.length.toLocaleString("en")} of ${prep.n.toLocaleString("en")} items shown.`);
  }

  function fail(err) {
    setStatus({state: "error"}, `The page could not show its data: ${err && err.message ? err.message : err}`);
  }

  window.addEventListener("hashchange", () => {
    if (changeStart === null) changeStart = performance.now();
    render().catch(fail);
  });
  render().catch(fail);
})();
