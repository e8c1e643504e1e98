// The Overview's charts: reads /overview.json (the source named on #overview), draws each chart
// with uPlot (loaded before this module as the global `uPlot`) into its `data-chart` div, and
// fetches again every `data-refresh-seconds`, updating the charts and every `data-cell` text in
// place. Text only ever goes in through textContent and uPlot's labels (also textContent).
const root = document.getElementById("overview");
const COLOURS = ["#067647", "#7a5af8", "#b42318", "#b54708", "#f79009", "#475467", "#d92d20", "#1f5fbf", "#0e9384", "#c11574", "#344054"];
const HEIGHT = 220;
/** Counts are whole: the y axis steps by these. */
const WHOLE_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000];

/** Each chart: its series from the overview JSON, and how a value is shown. */
const CHARTS = {
  outcomes: { series: (data) => data.outcomes, unit: "" },
  vendors: { series: (data) => data.vendors, unit: "" },
  callbacks: { series: (data) => data.callbacks, unit: "" },
  decisionSeconds: { series: (data) => [{ kind: "decision", label: "Mean time to decision (s)", values: data.decisionSeconds.values }], unit: " s" },
  callbackMs: { series: (data) => [{ kind: "latency", label: "Mean attempt duration (ms)", values: data.callbackMs.values }], unit: " ms" },
};

const plots = new Map();

const round = (value) => Math.round(value * 10) / 10;

/** The legend shows a bucket's value under the cursor, and the window's total (counts) or mean (times) otherwise. */
function summary(values, unit) {
  const present = values.filter((value) => value !== null);
  if (unit === "") return present.reduce((total, value) => total + value, 0);
  return present.length === 0 ? "—" : `${round(present.reduce((total, value) => total + value, 0) / present.length)}${unit}`;
}

function options(name, series, width) {
  const { unit } = CHARTS[name];
  const counts = unit === "";
  return {
    width,
    height: HEIGHT,
    tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), "Etc/UTC"),
    scales: { y: { range: (_u, min, max) => [0, Math.max(counts ? 1 : 0.001, max ?? min ?? 1)] } },
    series: [
      {},
      ...series.map((line, i) => ({
        label: line.label,
        stroke: COLOURS[i % COLOURS.length],
        width: 2,
        // A count belongs to its whole bucket: a step back from the bucket's end to its start. A
        // mean is a point at its bucket's end, joined across empty buckets.
        ...(counts ? { paths: uPlot.paths.stepped({ align: -1 }) } : { spanGaps: true, points: { show: true, size: 6 } }),
        value: (u, value, index, at) => (at === null ? summary(u.data[index], unit) : value === null ? "—" : `${round(value)}${unit}`),
      })),
    ],
    axes: [{}, counts ? { size: 60, incrs: WHOLE_STEPS } : { size: 60 }],
  };
}

function draw(name, element, data) {
  const series = CHARTS[name].series(data);
  // At each bucket's end, so the current bucket's step is drawn up to now.
  const ends = data.times.map((start) => start + data.bucketMs / 1000);
  const rows = [ends, ...series.map((line) => line.values)];
  const shape = series.map((line) => line.label).join("\n");
  const current = plots.get(name);
  if (current && current.shape === shape) {
    current.plot.setData(rows);
    return;
  }
  current?.plot.destroy();
  element.textContent = "";
  plots.set(name, { shape, plot: new uPlot(options(name, series, element.clientWidth || 600), rows, element) });
}

/** The vendors' rows again: vendors come and go with the window. */
function showVendors(data) {
  const body = root.querySelector("[data-vendors]");
  const rows = data.vendors.map((vendor) => [vendor.label, data.cells[`vendor:${vendor.kind}`]]);
  body.replaceChildren(
    ...(rows.length === 0 ? [[body.dataset.vendors, null]] : rows).map(([title, count]) => {
      const row = document.createElement("tr");
      const heading = row.appendChild(document.createElement(count === null ? "td" : "th"));
      heading.textContent = title;
      if (count !== null) row.appendChild(document.createElement("td")).textContent = count;
      return row;
    }),
  );
}

function show(data) {
  for (const element of root.querySelectorAll("[data-chart]")) draw(element.dataset.chart, element, data);
  showVendors(data);
  for (const cell of document.querySelectorAll("[data-cell]")) {
    const text = data.cells[cell.dataset.cell];
    if (text !== undefined) cell.textContent = text;
  }
  const updated = document.querySelector("[data-updated]");
  if (updated) updated.textContent = `${new Date().toISOString().slice(0, 19).replace("T", " ")} UTC`;
  root.dataset.drawn = String(Number(root.dataset.drawn ?? 0) + 1);
}

async function refresh() {
  try {
    const answer = await fetch(root.dataset.source, { headers: { accept: "application/json" }, credentials: "same-origin" });
    if (answer.redirected || !answer.ok) return;
    show(await answer.json());
  } catch {
    // The next refresh tries again; the page keeps what it shows.
  }
}

if (root && typeof uPlot === "function") {
  await refresh();
  setInterval(refresh, Number(root.dataset.refreshSeconds) * 1000);
}
