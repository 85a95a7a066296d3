// SPDX-License-Identifier: GPL-2.0
// Opens flamestat's speedscope files in the speedscope app itself (the
// npm package's built index.html) in Debian's chromium, through
// playwright-core: the app is served from http://speedscope.test/ by
// request interception (no port, no server) and loads each file from
// its #profileURL=, in the Sandwich view. Checks that it loaded without
// error, that its profiles are ours (names, order, totals in the profile
// list), and, profile by profile ('n' for the next), that the Sandwich
// table lists exactly the functions of that root's folded stacks with
// their total and self weights as speedscope formats them, and the file
// of kernel frames. Prints PASS/FAIL lines for tests/run and saves a
// screenshot per file.
//
// node speedscope-test.js CASES.json OUTDIR
// CASES.json: {"app": DIR (speedscope's dist/release),
//              "cases": [{"name":..., "file": FILE.speedscope.json,
//                         "folded": FOLDED, "ns": NS per count or 0}]}
"use strict";
const fs = require("fs");
const path = require("path");
const { chromium } = require("playwright-core");

const spec = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const outdir = process.argv[3];
const ORIGIN = "http://speedscope.test";
let failures = 0;

function pass(name) { console.log("PASS " + name); }
function fail(name, why) {
	failures++;
	console.log("FAIL " + name + ": " + String(why).replace(/\n/g, " | "));
}
function check(name, ok, why) { ok ? pass(name) : fail(name, why); }

// speedscope's value formatters (TimeFormatter for nanoseconds, the
// raw one for "none") and its formatPercent, as in 1.25.0.
function fmtValue(v, ns) {
	if (!ns)
		return v.toLocaleString("en-US");
	const s = v * 1e-9;
	if (s / 60 >= 1) {
		const m = Math.floor(s / 60);
		return m + ":" + String(Math.floor(s - m * 60)).padStart(2, "0");
	}
	if (s >= 1)
		return s.toFixed(2) + "s";
	if (s / 1e-3 >= 1)
		return (s / 1e-3).toFixed(2) + "ms";
	if (s / 1e-6 >= 1)
		return (s / 1e-6).toFixed(2) + "\u00b5s";
	return (s / 1e-9).toFixed(2) + "ns";
}
function fmtPercent(p) {
	if (p === 100)
		return "100%";
	if (p > 99)
		return ">99%";
	if (p < 0.01)
		return "<0.01%";
	if (p < 1)
		return p.toFixed(2) + "%";
	if (p < 10)
		return p.toFixed(1) + "%";
	return p.toFixed(0) + "%";
}
function fileOf(name) {
	if (!/_\[k\]$/.test(name))
		return null;
	const m = / (\[[^\]]*\])_\[k\]$/.exec(name);
	return m ? m[1] : "[kernel]";
}

// From the folded text (decoded as the browser decodes bytes): per root
// frame, its total and each function's self and total (a function
// counted once per stack), the roots heaviest first.
function expected(folded, ns) {
	const roots = new Map();
	for (const line of fs.readFileSync(folded).toString("utf8").split("\n")) {
		const m = /^(.*) (\d+(?:\.\d+)?)$/s.exec(line);
		if (!m || line.startsWith("#"))
			continue;
		const frames = m[1].split(";");
		const w = ns ? Number(m[2]) * ns : Number(m[2]);
		if (!roots.has(frames[0]))
			roots.set(frames[0], { name: frames[0], total: 0, fns: new Map() });
		const r = roots.get(frames[0]);
		r.total += w;
		for (const f of new Set(frames)) {
			if (!r.fns.has(f))
				r.fns.set(f, { self: 0, total: 0 });
			r.fns.get(f).total += w;
		}
		r.fns.get(frames[frames.length - 1]).self += w;
	}
	return [...roots.values()].sort((a, b) => b.total - a.total ||
		(a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

async function serve(page, file) {
	await page.route(ORIGIN + "/**", route => {
		const p = decodeURIComponent(new URL(route.request().url()).pathname);
		let f = p === "/profile/" + path.basename(file) ? file :
			path.join(spec.app, path.normalize(p));
		if (!f.startsWith(spec.app) && f !== file)
			f = "";
		if (!f || !fs.existsSync(f) || !fs.statSync(f).isFile())
			return route.fulfill({ status: 404, body: "not found" });
		const type = { ".html": "text/html", ".js": "text/javascript",
			".css": "text/css", ".json": "application/json",
			".wasm": "application/wasm", ".png": "image/png" }[path.extname(f)];
		return route.fulfill({ status: 200, body: fs.readFileSync(f),
			contentType: type || "application/octet-stream" });
	});
}

// The Sandwich table's rows: name, file (title), total and self text.
function sandwichRows(page) {
	return page.evaluate(() => {
		const th = [...document.querySelectorAll("th")]
			.find(t => t.textContent === "Symbol Name");
		if (!th)
			return null;
		const box = th.closest("table").parentElement;
		return [...box.querySelectorAll("tr")]
			.filter(tr => tr.children.length === 3 && tr.children[0].tagName === "TD")
			.map(tr => ({ total: tr.children[0].textContent,
				      self: tr.children[1].textContent,
				      name: tr.children[2].textContent,
				      file: tr.children[2].getAttribute("title") || null }));
	});
}

// The profile list (the toolbar's menu): [name, total weight text].
function profileList(page) {
	return page.evaluate(() => {
		const th = [...document.querySelectorAll("th")]
			.find(t => t.textContent.endsWith("Total Weight"));
		if (!th)
			return null;
		return [...th.closest("table").querySelectorAll("tbody tr")]
			.map(tr => [tr.children[1].textContent, tr.children[2].textContent]);
	});
}

// What the toolbar says the profile is: "name (i/n)" (null with one).
function toolbarTitle(page) {
	return page.evaluate(() => {
		const t = [...document.querySelectorAll("span > span")].find(s =>
			/^\(\d+\/\d+\)$/.test(s.textContent));
		return t ? t.parentElement.textContent : null;
	});
}

async function caseChecks(ctx, c) {
	const n = "speedscope-app-" + c.name;
	const page = await ctx.newPage();
	await page.setViewportSize({ width: 1400, height: 2000 });
	const errors = [];
	page.on("pageerror", e => errors.push(e.message));
	page.on("console", m => { if (m.type() === "error") errors.push(m.text()); });
	await serve(page, c.file);
	const url = ORIGIN + "/index.html#profileURL=" +
		encodeURIComponent(ORIGIN + "/profile/" + path.basename(c.file)) +
		"&view=sandwich";
	await page.goto(url);
	let state;
	try {
		const h = await page.waitForFunction(() => {
			const text = document.body.innerText;
			if (text.includes("Something went wrong"))
				return "error";
			return [...document.querySelectorAll("th")]
				.some(t => t.textContent === "Symbol Name") ? "loaded" : false;
		}, null, { timeout: 30000 });
		state = await h.jsonValue();
	} catch (e) {
		state = "timeout: " + e.message.split("\n")[0];
	}
	check(n + "-loaded", state === "loaded" && errors.length === 0,
	      "state " + state + "; " + errors.join("; "));
	if (state !== "loaded") {
		await page.screenshot({ path: path.join(outdir, n + ".png") });
		await page.close();
		return;
	}
	const want = expected(c.folded, c.ns);
	const list = await profileList(page);
	if (want.length > 1) {
		const exp = want.map(r => [r.name, fmtValue(r.total, c.ns)]);
		check(n + "-profiles", JSON.stringify(list) === JSON.stringify(exp),
		      "listed " + JSON.stringify(list) + ", want " + JSON.stringify(exp));
	}
	for (let i = 0; i < want.length && i < 8; i++) {
		const r = want[i];
		const pn = n + "-profile-" + (i + 1);
		if (i) {
			await page.keyboard.press("n");
			await page.waitForTimeout(200);
		}
		const title = await toolbarTitle(page);
		const wantTitle = r.name + " (" + (i + 1) + "/" + want.length + ")";
		if (want.length > 1)
			check(pn + "-title", title === wantTitle,
			      "toolbar " + JSON.stringify(title) + ", want " + JSON.stringify(wantTitle));
		const rows = await sandwichRows(page) || [];
		const bad = [];
		const names = new Set(rows.map(x => x.name));
		for (const f of r.fns.keys())
			if (!names.has(f))
				bad.push("no row for " + JSON.stringify(f));
		for (const row of rows) {
			const e = r.fns.get(row.name);
			if (!e) {
				bad.push("row " + JSON.stringify(row.name) + " is no function of ours");
				continue;
			}
			const tot = fmtValue(e.total, c.ns) + " (" + fmtPercent(100 * e.total / r.total) + ")";
			const self = fmtValue(e.self, c.ns) + " (" + fmtPercent(100 * e.self / r.total) + ")";
			if (row.total !== tot || row.self !== self)
				bad.push(JSON.stringify(row.name) + ": total " + row.total + ", self " +
					 row.self + "; want " + tot + ", " + self);
			if (row.file !== fileOf(row.name))
				bad.push(JSON.stringify(row.name) + ": file " + row.file +
					 ", want " + fileOf(row.name));
		}
		if (rows.length !== r.fns.size)
			bad.push(rows.length + " rows for " + r.fns.size + " functions");
		check(pn + "-sandwich (" + rows.length + " functions of " +
		      JSON.stringify(r.name) + ")", bad.length === 0, bad.slice(0, 4).join("; "));
	}
	check(n + "-no-js-errors", errors.length === 0, errors.join("; "));
	await page.screenshot({ path: path.join(outdir, n + ".png") });
	await page.close();
}

(async () => {
	let ctx;
	try {
		ctx = await chromium.launchPersistentContext(
			fs.mkdtempSync(path.join(outdir, "chromium-profile-")), {
			executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
			headless: true,
			args: ["--headless", "--no-sandbox", "--disable-gpu",
			       "--disable-background-networking",
			       "--disable-component-update", "--disable-sync",
			       "--no-first-run"],
		});
	} catch (e) {
		fail("speedscope-browser-launch", e.message);
		process.exit(1);
	}
	try {
		for (const c of spec.cases)
			await caseChecks(ctx, c);
	} catch (e) {
		fail("speedscope-browser-run", e.stack || e.message);
	}
	await ctx.close();
	process.exit(failures ? 1 : 0);
})();
