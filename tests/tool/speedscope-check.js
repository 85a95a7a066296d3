// SPDX-License-Identifier: GPL-2.0
// Checks a speedscope file that flamestat wrote against speedscope's own
// JSON schema (file-format-schema.json from the npm package) and against
// the folded text of the same profile: valid UTF-8 and JSON, the schema's
// types, required fields, consts and enums, frame indices in range, one
// weight per sample, endValue the sum of the weights, one profile per
// root frame, heaviest first, and every sample a folded stack with its
// count (x NS for nanoseconds). Prints nothing and exits 0 when all
// holds, else the problems (the first 20) and exits 1.
//
// node speedscope-check.js SCHEMA.json FILE.speedscope.json FOLDED NS VERSION
//   NS: nanoseconds per count (unit "nanoseconds"), 0 for unit "none"
"use strict";
const fs = require("fs");

const [schemaPath, filePath, foldedPath, nsArg, version] = process.argv.slice(2);
const problems = [];
function bad(why) { problems.push(why); }
function done() {
	if (problems.length) {
		console.log(problems.slice(0, 20).join("\n"));
		process.exit(1);
	}
	process.exit(0);
}

// The subset of JSON Schema (draft-07) that speedscope's schema uses.
// Any other keyword is refused, so that a newer schema cannot pass
// unchecked.
const schema = JSON.parse(fs.readFileSync(schemaPath, "utf8"));
const known = new Set(["$schema", "$ref", "definitions", "title", "type",
	"properties", "required", "const", "enum", "items", "anyOf"]);
function resolve(ref) {
	if (!ref.startsWith("#/"))
		throw new Error("unsupported $ref " + ref);
	return ref.slice(2).split("/").reduce((o, k) => o[k], schema);
}
function typeOk(v, t) {
	switch (t) {
	case "object": return v !== null && typeof v === "object" && !Array.isArray(v);
	case "array": return Array.isArray(v);
	case "string": return typeof v === "string";
	case "number": return typeof v === "number" && Number.isFinite(v);
	default: throw new Error("unsupported type " + t);
	}
}
// Problems of v against s, at path p ([] when valid).
function validate(v, s, p) {
	const out = [];
	for (const k of Object.keys(s))
		if (!known.has(k))
			throw new Error("schema keyword " + k + " is not checked here");
	if (s.$ref)
		return validate(v, resolve(s.$ref), p);
	if (s.anyOf) {
		const each = s.anyOf.map(alt => validate(v, alt, p));
		if (!each.some(e => e.length === 0))
			out.push(p + ": matches none of anyOf (" +
				 each.map(e => e[0]).join(" / ") + ")");
		return out;
	}
	if (s.type && !typeOk(v, s.type))
		return [p + ": not a " + s.type];
	if ("const" in s && v !== s.const)
		out.push(p + ": " + JSON.stringify(v) + " is not " + JSON.stringify(s.const));
	if (s.enum && !s.enum.includes(v))
		out.push(p + ": " + JSON.stringify(v) + " not in " + s.enum.join(","));
	for (const r of s.required || [])
		if (!(r in v))
			out.push(p + ": no " + r);
	for (const [k, sub] of Object.entries(s.properties || {}))
		if (k in v)
			out.push(...validate(v[k], sub, p + "." + k));
	if (s.items)
		v.forEach((x, i) => out.push(...validate(x, s.items, p + "[" + i + "]")));
	return out;
}

const raw = fs.readFileSync(filePath);
let text, file;
try {
	text = new TextDecoder("utf-8", { fatal: true }).decode(raw);
} catch (e) {
	bad("not valid UTF-8: " + e.message);
	done();
}
try {
	file = JSON.parse(text);
} catch (e) {
	bad("not JSON: " + e.message);
	done();
}
// Raw U+2028/2029 and DEL are valid JSON, but the writer escapes them.
if (/[\u2028\u2029\u007f]/.test(text))
	bad("a raw U+2028, U+2029 or DEL: the writer escapes those");
for (const e of validate(file, schema.$ref ? resolve(schema.$ref) :
			 schema.definitions["FileFormat.File"], "$"))
	bad("schema: " + e);
if (problems.length)
	done();

// Beyond the schema: what flamestat promises.
const ns = Number(nsArg);
const frames = file.shared.frames;
if (file.exporter !== "flamestat " + version)
	bad("exporter " + JSON.stringify(file.exporter) + ", want flamestat " + version);
if (typeof file.name !== "string" || !file.name)
	bad("no name");
if (file.activeProfileIndex !== 0 || !file.profiles.length)
	bad("activeProfileIndex " + file.activeProfileIndex + " of " +
	    file.profiles.length + " profiles");
// (Names need not be unique: bytes that differ only where they are not
// UTF-8 read the same; speedscope keys frames by index.)
frames.forEach(f => {
	if (/_\[k\]$/.test(f.name) !== ("file" in f))
		bad("frame " + JSON.stringify(f.name) + ": file " + JSON.stringify(f.file));
});

// The folded text, as a browser decodes its bytes (U+FFFD for bad ones).
const want = [];
let wantTotal = 0;
for (const line of fs.readFileSync(foldedPath).toString("utf8").split("\n")) {
	if (!line || line.startsWith("#"))
		continue;
	const m = /^(.*) (\d+(?:\.\d+)?)$/s.exec(line);
	if (!m) {
		bad("folded line " + JSON.stringify(line));
		continue;
	}
	want.push(m[1] + " " + m[2]);
	wantTotal += Number(m[2]);
}

const got = [];
let gotTotal = 0, last = Infinity;
const used = new Set();
file.profiles.forEach((p, pi) => {
	const at = "profile " + pi + " (" + p.name + ")";
	if (p.type !== "sampled")
		bad(at + ": type " + p.type);
	if (p.unit !== (ns ? "nanoseconds" : "none"))
		bad(at + ": unit " + p.unit + ", want " + (ns ? "nanoseconds" : "none"));
	if (p.samples.length !== p.weights.length)
		bad(at + ": " + p.samples.length + " samples, " + p.weights.length + " weights");
	let sum = 0;
	p.samples.forEach((s, si) => {
		if (!s.length)
			bad(at + ": sample " + si + " is empty");
		for (const i of s) {
			if (!Number.isInteger(i) || i < 0 || i >= frames.length) {
				bad(at + ": sample " + si + " has frame index " + i +
				    " (" + frames.length + " frames)");
				return;
			}
			used.add(i);
		}
		if (frames[s[0]].name !== p.name)
			bad(at + ": sample " + si + " starts at " + frames[s[0]].name);
		const w = p.weights[si];
		if (!(w >= 0))
			bad(at + ": weight " + si + " is " + w);
		sum += w;
		const count = ns ? w / ns : w;
		got.push(s.map(i => frames[i].name).join(";") + " " + String(count));
	});
	if (p.startValue !== 0 || Math.abs(p.endValue - sum) > 1e-9 * Math.max(1, sum))
		bad(at + ": startValue " + p.startValue + ", endValue " + p.endValue +
		    ", weights' sum " + sum);
	if (p.endValue > last)
		bad(at + ": heavier than the profile before it");
	last = p.endValue;
	gotTotal += sum;
});
if (used.size !== frames.length)
	bad((frames.length - used.size) + " frames are in no sample");
const total = ns ? gotTotal / ns : gotTotal;
if (Math.abs(total - wantTotal) > 1e-9 * Math.max(1, wantTotal))
	bad("total " + total + ", folded total " + wantTotal);
got.sort();
want.sort();
for (let i = 0; i < Math.max(got.length, want.length); i++) {
	if (got[i] !== want[i]) {
		bad("stack " + i + ": " + JSON.stringify(got[i]) + ", folded " +
		    JSON.stringify(want[i]));
		break;
	}
}
done();
