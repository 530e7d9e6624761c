// pi.mjs drives pi itself, the pinned @mariozechner/pi-coding-agent of
// package.json, with no model and no network: its own SessionManager writes
// and reads the session files, and its own buildSessionContext says what the
// model would see.
//
//   node pi.mjs write DIR            write every fixture into DIR: NAME.jsonl, as pi wrote it, and
//                                    NAME.context.json, pi's context at every leaf of that file
//   node pi.mjs read FILE...         open each FILE with SessionManager.open and print, as one JSON
//                                    document, the leaf pi opens on and pi's context at every leaf
//   node pi.mjs continue TEXT FILE...  open each FILE, append a user message TEXT and an assistant
//                                    answer through pi, and print the same as read does
//
// Ids and times are what pi makes them: its ids come from crypto.randomUUID
// and its times from Date, and both are replaced here by deterministic ones
// (a seeded generator, a clock that moves only when the script says), so the
// same pi writes the same bytes every time. Nothing else of pi is changed.
import { Buffer } from "node:buffer";
import crypto from "node:crypto";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";

// ---- determinism: pi's clock and pi's ids ------------------------------------

const RealDate = globalThis.Date;

/** clock is the time pi reads: it moves only when the script moves it. */
const clock = {
	ms: RealDate.UTC(2026, 2, 14, 9, 26, 53, 589),
	set(iso) {
		this.ms = RealDate.parse(iso);
	},
	/** advance moves the clock on by seconds (and a few milliseconds, as a real one does). */
	advance(seconds, millis = 0) {
		this.ms += seconds * 1000 + millis;
	},
};

class FixedDate extends RealDate {
	constructor(...args) {
		if (args.length === 0) {
			super(clock.ms);
		} else {
			super(...args);
		}
	}
	static now() {
		return clock.ms;
	}
}
globalThis.Date = FixedDate;

/** mulberry32 is a small seeded generator: the same seed, the same numbers. */
function mulberry32(seed) {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/** seedOf turns a name into a seed (FNV-1a). */
function seedOf(name) {
	let h = 0x811c9dc5;
	for (const c of Buffer.from(name)) {
		h = Math.imul(h ^ c, 0x01000193) >>> 0;
	}
	return h;
}

let random = mulberry32(1);

function hex(n) {
	let s = "";
	for (let i = 0; i < n; i++) {
		s += Math.floor(random() * 16).toString(16);
	}
	return s;
}

/** fakeUUID is a version-4 shaped UUID from the seeded generator. */
function fakeUUID() {
	return `${hex(8)}-${hex(4)}-4${hex(3)}-${"89ab"[Math.floor(random() * 4)]}${hex(3)}-${hex(12)}`;
}

/** sessionID is a version-7 shaped UUID: the clock's milliseconds, then the generator. */
function sessionID() {
	const ms = clock.ms.toString(16).padStart(12, "0");
	return `${ms.slice(0, 8)}-${ms.slice(8)}-7${hex(3)}-${"89ab"[Math.floor(random() * 4)]}${hex(3)}-${hex(12)}`;
}

// pi imports randomUUID from "crypto": replace it, and update the live
// binding that pi's import sees.
crypto.randomUUID = fakeUUID;
syncBuiltinESMExports();

const pi = await import("@mariozechner/pi-coding-agent");
const { SessionManager, VERSION } = pi;

// ---- messages, in pi's shapes --------------------------------------------------

const CWD = "/work/pi-fixtures";
// A PNG of one red pixel.
const PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

const text = (t) => ({ type: "text", text: t });
const image = () => ({ type: "image", data: PIXEL, mimeType: "image/png" });
const thinking = (t) => ({ type: "thinking", thinking: t, thinkingSignature: `sig-${hex(16)}` });
const toolCall = (name, args) => ({ type: "toolCall", id: `toolu_${hex(24)}`, name, arguments: args });

function usage(input, output) {
	const cost = { input: input * 3e-6, output: output * 15e-6, cacheRead: 0, cacheWrite: 0 };
	cost.total = cost.input + cost.output;
	return { input, output, cacheRead: 0, cacheWrite: 0, totalTokens: input + output, cost };
}

const ANTHROPIC = { api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5" };
const OPENAI = { api: "openai-responses", provider: "openai", model: "gpt-5" };

function user(content) {
	return { role: "user", content, timestamp: clock.ms };
}

function assistant(content, opts = {}) {
	const m = { role: "assistant", content, ...(opts.model ?? ANTHROPIC) };
	m.usage = usage(opts.input ?? 1200, opts.output ?? 80);
	m.stopReason = opts.stopReason ?? (content.some((c) => c.type === "toolCall") ? "toolUse" : "stop");
	if (opts.errorMessage) {
		m.errorMessage = opts.errorMessage;
	}
	m.timestamp = clock.ms;
	return m;
}

function toolResult(call, output, opts = {}) {
	const m = { role: "toolResult", toolCallId: call.id, toolName: call.name, content: [text(output)] };
	if (opts.details !== undefined) {
		m.details = opts.details;
	}
	m.isError = opts.isError ?? false;
	m.timestamp = clock.ms;
	return m;
}

/**
 * session wraps a SessionManager with the moves of a fixture: each append
 * moves the clock first, as time passes between two messages.
 */
function session(sm) {
	const s = {
		sm,
		names: new Map(),
		/** msg appends a message made now (build is called with the clock moved on). */
		msg(build) {
			clock.advance(3, 211);
			const m = build();
			clock.advance(0, 4);
			return sm.appendMessage(m);
		},
		/** step runs fn with the clock moved on: every other append. */
		step(fn) {
			clock.advance(2, 17);
			return fn(sm);
		},
		name(id, n) {
			s.names.set(id, n);
			return id;
		},
		/** turn is one exchange with a tool: user, tool call, result, answer. */
		turn(prompt, tool, args, output, answer, opts = {}) {
			const u = s.msg(() => user([text(prompt)]));
			const call = toolCall(tool, args);
			s.msg(() => assistant([call], opts));
			s.msg(() => toolResult(call, output));
			const a = s.msg(() => assistant([text(answer)], opts));
			return { user: u, answer: a };
		},
	};
	return s;
}

// ---- the fixtures ---------------------------------------------------------------

/** tools: one linear session with every message role and every setting pi records. */
function tools(s) {
	s.step((sm) => sm.appendModelChange("anthropic", "claude-sonnet-4-5"));
	s.step((sm) => sm.appendThinkingLevelChange("medium"));
	const u1 = s.msg(() => user("list the files in this project"));
	const ls = toolCall("ls", { path: "." });
	s.msg(() => assistant([thinking("The user wants a listing; ls gives it."), text("Let me look."), ls]));
	s.msg(() => toolResult(ls, "README.md\ngo.mod\nstore.go\n"));
	const read = toolCall("read", { path: "NOTES.md" });
	s.msg(() => assistant([read]));
	s.msg(() => toolResult(read, "ENOENT: no such file or directory, open 'NOTES.md'", { isError: true }));
	const bash = toolCall("bash", { command: "wc -l README.md store.go" });
	s.msg(() => assistant([bash]));
	const details = { truncation: { truncated: true, truncatedBy: "lines", totalLines: 2000, outputLines: 3 }, fullOutputPath: "/tmp/pi-bash-0001.log" };
	s.msg(() => toolResult(bash, "  120 README.md\n  300 store.go\n  420 total", { details }));
	const answer = s.msg(() => assistant([text("Three files: README.md, go.mod and store.go (420 lines).")], { input: 2400, output: 31 }));
	s.msg(() => user([text("what is in this picture?"), image()]));
	s.msg(() => assistant([text("A single red pixel.")]));
	s.msg(() => ({ role: "bashExecution", command: "git status --short", output: " M store.go", exitCode: 0, cancelled: false, truncated: false, timestamp: clock.ms }));
	s.msg(() => ({ role: "bashExecution", command: "go test ./...", output: "--- FAIL: TestLab11_1", exitCode: 1, cancelled: false, truncated: true, fullOutputPath: "/tmp/pi-bash-0002.log", excludeFromContext: true, timestamp: clock.ms }));
	s.msg(() => ({ role: "custom", customType: "plan-mode", content: "Plan mode is on: read-only tools only.", display: true, details: { enabled: true }, timestamp: clock.ms }));
	s.msg(() => user("now a faster model, please — 汉字, ✓, <b>&amp;</b>, \"quotes\", a\ttab"));
	s.step((sm) => sm.appendModelChange("openai", "gpt-5"));
	s.msg(() => assistant([text("Switched to gpt-5.")], { model: OPENAI }));
	s.msg(() => user("and summarize the README"));
	s.msg(() => assistant([], { model: OPENAI, stopReason: "error", errorMessage: "429 Too Many Requests: rate limited" }));
	s.msg(() => user("try again"));
	s.msg(() => assistant([text("The README says the store is")], { model: OPENAI, stopReason: "aborted" }));
	s.step((sm) => sm.appendThinkingLevelChange("high"));
	s.step((sm) => sm.appendLabelChange(answer, "answer"));
	s.step((sm) => sm.appendLabelChange(answer, undefined));
	s.step((sm) => sm.appendLabelChange(u1, "start"));
	s.name(
		s.step((sm) => sm.appendSessionInfo("  listing files  ")),
		"end",
	);
}

/** branches: several branches from one entry, summaries of branches left, a second root. */
function branches(s) {
	const u1 = s.msg(() => user([text("write a poem")]));
	const a1 = s.msg(() => assistant([text("Roses are red,\nviolets are blue.")]));
	s.msg(() => user([text("shorter")]));
	s.name(
		s.msg(() => assistant([text("Red.")])),
		"shorter",
	);
	s.step((sm) => sm.branch(a1));
	s.msg(() => user([text("longer")]));
	s.name(
		s.msg(() => assistant([text("Roses are red,\nviolets are blue,\nsugar is sweet,\nand so is this store's append-only log.")])),
		"longer",
	);
	s.step((sm) => sm.branchWithSummary(a1, "The user asked for a shorter poem, then a longer one, and kept neither.", { readFiles: [], modifiedFiles: [] }));
	s.msg(() => user([text("a haiku, then")]));
	const haiku = s.msg(() => assistant([text("Lines kept, never changed;\nthe leaf moves, the file stays whole;\nbranches keep their past.")]));
	s.name(
		s.step((sm) => sm.appendLabelChange(haiku, "favourite")),
		"haiku",
	);
	s.step((sm) => sm.branch(a1));
	s.name(
		s.step((sm) => sm.appendThinkingLevelChange("high")),
		"thinking-only",
	);
	s.step((sm) => sm.branch(u1));
	const a5 = s.msg(() => assistant([text("A poem about what?")], { model: OPENAI }));
	s.step((sm) => sm.branchWithSummary(a5, ""));
	s.msg(() => user([text("about the sea")]));
	s.name(
		s.msg(() => assistant([text("Grey water, white foam.")], { model: OPENAI })),
		"empty-summary",
	);
	s.step((sm) => sm.resetLeaf());
	s.name(
		s.msg(() => user([text("a question nobody answered")])),
		"unanswered",
	);
	s.step((sm) => sm.resetLeaf());
	s.msg(() => user([text("start over: a limerick")]));
	s.name(
		s.msg(() => assistant([text("A store that would never forget…")])),
		"second-root",
	);
	s.step((sm) => sm.branchWithSummary(null, "Before this branch the user asked for poems."));
	s.msg(() => user([text("now prose")]));
	s.name(
		s.msg(() => assistant([text("Once there was a file that only grew.")])),
		"root-summary",
	);
}

/** compaction: two compactions on one path, a third right after the second, branches around them. */
function compaction(s) {
	s.step((sm) => sm.appendModelChange("anthropic", "claude-sonnet-4-5"));
	const turns = [];
	for (let i = 1; i <= 6; i++) {
		turns.push(s.turn(`read part ${i}`, "read", { path: `part${i}.md` }, `# Part ${i}\n${"text ".repeat(20 * i)}`, `Part ${i} is read.`));
	}
	const readFiles = ["part1.md", "part2.md", "part3.md"];
	s.step((sm) => sm.appendCompaction("Read parts 1 to 3 of the document.", turns[3].user, 18234, { readFiles, modifiedFiles: [] }));
	for (let i = 7; i <= 9; i++) {
		turns.push(s.turn(`read part ${i}`, "read", { path: `part${i}.md` }, `# Part ${i}`, `Part ${i} is read.`));
	}
	const low = s.step((sm) => sm.appendThinkingLevelChange("low"));
	turns.push(s.turn("read part 10", "read", { path: "part10.md" }, "# Part 10", "Part 10 is read."));
	const c2 = s.step((sm) => sm.appendCompaction("Read parts 1 to 9; the thinking level went down to low.", low, 9120, { readFiles: [...readFiles, "part7.md"], modifiedFiles: [] }));
	const end = s.turn("read part 11", "read", { path: "part11.md" }, "# Part 11", "Part 11 is read.");
	s.name(end.answer, "end");
	s.step((sm) => sm.branch(c2));
	s.name(
		s.step((sm) => sm.appendCompaction("Everything up to part 10, again, by an extension.", turns[9].answer, 4100, { artifact: "summary-v2" }, true)),
		"compaction-after-compaction",
	);
	s.step((sm) => sm.branch(turns[7].answer));
	s.name(s.turn("read part 8 again", "read", { path: "part8.md" }, "# Part 8", "Part 8, again.").answer, "after-first");
	s.step((sm) => sm.branch(turns[1].answer));
	s.name(s.turn("read part 2 again", "read", { path: "part2.md" }, "# Part 2", "Part 2, again.").answer, "before-compactions");
}

/** extensions: custom entries (not in the context) and custom messages (in it). */
function extensions(s) {
	s.msg(() => user([text("remember what to do")]));
	const a1 = s.msg(() => assistant([text("I keep a todo list.")]));
	const todo = s.step((sm) => sm.appendCustomEntry("todo-state", { items: [{ text: "read the README", done: true }] }));
	s.step((sm) => sm.appendCustomEntry("bookmark"));
	s.step((sm) => sm.appendCustomMessageEntry("reminder", "Remember: tests first.", true));
	s.msg(() => user([text("what next?")]));
	s.name(
		s.msg(() => assistant([text("Write the tests first.")])),
		"with-custom-message",
	);
	s.step((sm) => sm.branch(todo));
	s.msg(() => user([text("and without the reminder?")]));
	s.name(
		s.msg(() => assistant([text("Then the todo list alone.")])),
		"custom-entries-only",
	);
	s.step((sm) => sm.branch(a1));
	const content = [text('<file name="go.mod">\nmodule example\n</file>'), image()];
	s.step((sm) => sm.appendCustomMessageEntry("file-context", content, false, { path: "go.mod" }));
	s.msg(() => user([text("what module is this?")]));
	s.name(
		s.msg(() => assistant([text("It is module example.")])),
		"hidden-custom-message",
	);
}

/** long: more than a thousand entries, compacted as it goes, with a branch in the middle. */
function long(s) {
	let at130;
	const users = [];
	for (let i = 1; i <= 260; i++) {
		if (i % 100 === 1) {
			s.step((sm) => (i % 200 === 1 ? sm.appendModelChange("anthropic", "claude-sonnet-4-5") : sm.appendModelChange("openai", "gpt-5")));
		}
		const t = s.turn(`step ${i}: count the lines of file${i}.txt`, "bash", { command: `wc -l file${i}.txt` }, `${i * 7} file${i}.txt`, `file${i}.txt has ${i * 7} lines.`, { model: i > 100 && i <= 200 ? OPENAI : ANTHROPIC });
		users.push(t.user);
		if (i % 50 === 0) {
			s.step((sm) => sm.appendLabelChange(t.user, `step ${i}`));
		}
		if (i % 40 === 0) {
			s.step((sm) => sm.appendCompaction(`Counted the lines of file1.txt to file${i - 5}.txt.`, users[i - 5], 30000 + i));
		}
		if (i === 130) {
			at130 = t.answer;
		}
	}
	s.name(s.sm.getLeafId(), "end");
	s.step((sm) => sm.branch(at130));
	let last;
	for (let i = 1; i <= 5; i++) {
		last = s.turn(`detour ${i}`, "ls", { path: `dir${i}` }, `a${i}.txt`, `dir${i} holds a${i}.txt.`);
	}
	s.name(last.answer, "detour");
}

/** offPath: a compaction that keeps from an entry of another branch (pi reads it; the lab refuses it). */
function offPath(s) {
	s.msg(() => user([text("first question")]));
	const a1 = s.msg(() => assistant([text("First answer.")]));
	const u2 = s.msg(() => user([text("a follow-up")]));
	s.name(
		s.msg(() => assistant([text("A follow-up answer.")])),
		"first-branch",
	);
	s.step((sm) => sm.branch(a1));
	s.msg(() => user([text("another follow-up")]));
	s.msg(() => assistant([text("Another answer.")]));
	s.step((sm) => sm.appendCompaction("Two questions were asked.", u2, 999));
	s.msg(() => user([text("go on")]));
	s.name(
		s.msg(() => assistant([text("Going on.")])),
		"end",
	);
}

/** tokenizer: a short session of real work, with a branch the user came back from, a compaction and a name. */
function tokenizer(s) {
	s.step((sm) => sm.appendModelChange("anthropic", "claude-sonnet-4-5"));
	s.step((sm) => sm.appendThinkingLevelChange("medium"));
	s.msg(() => user([text("Why does tokenize() drop the last line of its input?")]));
	const read = toolCall("read", { path: "src/tokenize.ts" });
	s.msg(() => assistant([thinking("Read the tokenizer before guessing."), read], { input: 2210, output: 96 }));
	s.msg(() => toolResult(read, 'export function tokenize(src: string): string[] {\n  const lines = src.split("\\n");\n  lines.pop(); // drop the empty string after the final newline\n  return lines;\n}\n'));
	const cause = s.msg(() => assistant([text("`lines.pop()` assumes the input ends in a newline. When it does not, the last element is a real line, and pop() throws it away.")], { input: 2380, output: 41 }));
	s.msg(() => user([text("Don't fix it yet. Which callers depend on that behaviour?")]));
	s.name(
		s.msg(() => assistant([text("Only readConfig() does: it passes text that always ends in a newline.")], { input: 2460, output: 18 })),
		"callers",
	);
	s.step((sm) => sm.branch(cause));
	const fix = s.msg(() => user([text("Fix it, and add a test for input without a final newline.")]));
	const edit = toolCall("edit", { path: "src/tokenize.ts", oldText: "  lines.pop(); // drop the empty string after the final newline\n", newText: '  if (lines[lines.length - 1] === "") lines.pop();\n' });
	s.msg(() => assistant([edit], { input: 2530, output: 120 }));
	s.msg(() => toolResult(edit, "Successfully replaced text in src/tokenize.ts.", { details: { diff: '-  lines.pop(); // drop the empty string after the final newline\n+  if (lines[lines.length - 1] === "") lines.pop();' } }));
	const bash = toolCall("bash", { command: "npm test -- tokenize" });
	s.msg(() => assistant([bash], { input: 2700, output: 44 }));
	s.msg(() => toolResult(bash, "PASS test/tokenize.test.ts\n  tokenize\n    ✓ splits lines (2 ms)\n    ✓ keeps a last line without a newline (1 ms)\n\nTests: 2 passed, 2 total"));
	const summary = "## Goal\nFix tokenize() dropping the last line of input that has no final newline.\n\n## Progress\n- Found the cause: an unconditional lines.pop().\n- Changed it to pop only an empty last element.\n\n## Next\n- Add a test for input without a final newline.";
	s.step((sm) => sm.appendCompaction(summary, fix, 48213, { readFiles: ["src/tokenize.ts"], modifiedFiles: ["src/tokenize.ts"] }, false));
	s.step((sm) => sm.appendSessionInfo("tokenizer last line"));
	s.msg(() => assistant([text("Fixed: tokenize() now drops only the empty string after a final newline, and the new test covers input without one. Both tests pass.")], { input: 1890, output: 33 }));
	s.name(
		s.msg(() => user("Now make it handle CRLF input too.")),
		"end",
	);
}

const fixtures = [
	{ name: "tools", build: tools },
	{ name: "branches", build: branches },
	{ name: "compaction", build: compaction },
	{ name: "extensions", build: extensions },
	{ name: "long", build: long },
	{ name: "off-path", build: offPath },
	{ name: "tokenizer", build: tokenizer, cwd: "/home/ada/src/tokenizer" },
];

// ---- files pi wrote, then the script changed: what pi does with a file
// ---- that the lab refuses, or reads otherwise

/** chat: a short linear session, and a second answer to its last question. */
function chat(s) {
	s.msg(() => user([text("what is in go.mod?")]));
	const read = toolCall("read", { path: "go.mod" });
	s.msg(() => assistant([read]));
	s.msg(() => toolResult(read, "module example\n\ngo 1.22\n"));
	s.name(
		s.msg(() => assistant([text("Module example, Go 1.22.")])),
		"first-answer",
	);
	const u2 = s.msg(() => user([text("and the Go version again?")]));
	s.name(
		s.msg(() => assistant([text("1.22.")])),
		"end",
	);
	s.step((sm) => sm.branch(u2));
	s.name(
		s.msg(() => assistant([text("Go 1.22, as go.mod says.")])),
		"other-answer",
	);
}

/** idOf returns the id of a line of a session file. */
const idOf = (line) => JSON.parse(line).id;

/** setField sets one field of a line of a session file, in place. */
function setField(line, key, value) {
	const e = JSON.parse(line);
	e[key] = value;
	return JSON.stringify(e);
}

// Each change gets the file's lines (header first, no "\n") and returns its new text.
const altered = [
	{
		name: "tail",
		about: "its last line, a complete entry, has no newline",
		change: (lines) => lines.join("\n"),
	},
	{
		name: "corrupt",
		about: "a line that is not JSON (the first half of an entry) between its third and fourth entries",
		change: (lines) => {
			const half = lines[4].slice(0, Math.floor(lines[4].length / 2));
			return `${[...lines.slice(0, 4), half, ...lines.slice(4)].join("\n")}\n`;
		},
	},
	{
		name: "orphan",
		about: "its fifth entry names a parent that no entry has",
		change: (lines) => {
			lines[5] = setField(lines[5], "parentId", "0rphan00");
			return `${lines.join("\n")}\n`;
		},
	},
	{
		name: "duplicate",
		about: "its last entry, the second answer, has the id of the first answer",
		change: (lines) => {
			const last = lines.length - 1;
			lines[last] = setField(lines[last], "id", idOf(lines[last - 1]));
			return `${lines.join("\n")}\n`;
		},
	},
	{
		name: "half-header",
		about: "it holds only the first half of its header, without a newline",
		change: (lines) => lines[0].slice(0, Math.floor(lines[0].length / 2)),
	},
];

// ---- older versions: pi writes only version 3, so the script writes these in
// ---- the shape older pi wrote, and pi migrates them when it opens them

function legacyMessages() {
	const lines = [];
	const add = (m) => {
		clock.advance(3, 211);
		const msg = m();
		clock.advance(0, 4);
		lines.push({ type: "message", timestamp: new Date().toISOString(), message: msg });
	};
	add(() => user([text("what is in go.mod?")]));
	const read = toolCall("read", { path: "go.mod" });
	add(() => assistant([read]));
	add(() => toolResult(read, "module example\n\ngo 1.22\n"));
	add(() => assistant([text("Module example, Go 1.22.")]));
	add(() => user([text("and the Go version again?")]));
	add(() => assistant([text("1.22.")]));
	return { lines, add };
}

/**
 * v1 is linear: no ids, no parents, a compaction that keeps from an index. Its
 * header names a model and a thinking level, as old pi's did; no pi reads them
 * (the context's come from the entries only), so they differ from the
 * messages' here: a reader that took them would show.
 */
function v1() {
	const header = { type: "session", id: sessionID(), timestamp: new Date().toISOString(), cwd: CWD, provider: "openai", modelId: "gpt-4.1", thinkingLevel: "high" };
	const { lines, add } = legacyMessages();
	clock.advance(2, 17);
	lines.push({ type: "compaction", timestamp: new Date().toISOString(), summary: "Asked about go.mod.", firstKeptEntryIndex: 5, tokensBefore: 5000 });
	add(() => user([text("thanks")]));
	add(() => assistant([text("You are welcome.")]));
	return [header, ...lines];
}

/** v2 has the tree, and an extension's message still has the role hookMessage. */
function v2() {
	const header = { type: "session", version: 2, id: sessionID(), timestamp: new Date().toISOString(), cwd: CWD };
	const { lines, add } = legacyMessages();
	add(() => ({ role: "hookMessage", customType: "reminder", content: "Remember: tests first.", display: true, timestamp: clock.ms }));
	add(() => assistant([text("Noted.")]));
	let parent = null;
	for (const l of lines) {
		const id = hex(8);
		Object.assign(l, { id, parentId: parent });
		parent = id;
	}
	const ordered = lines.map(({ type, id, parentId, timestamp, ...rest }) => ({ type, id, parentId, timestamp, ...rest }));
	return [header, ...ordered];
}

const legacy = [
	{ name: "v1", build: v1 },
	{ name: "v2", build: v2 },
];

// ---- what pi reads ----------------------------------------------------------------

/** leavesOf returns the ids of the entries no entry names as its parent, in file order. */
function leavesOf(entries) {
	const parents = new Set(entries.map((e) => e.parentId));
	return entries.filter((e) => !parents.has(e.id)).map((e) => e.id);
}

/** describe is what pi says of an open session: where it is, and the context at every leaf. */
function describe(sm, names = new Map()) {
	const openLeaf = sm.getLeafId();
	const leaves = leavesOf(sm.getEntries()).map((leaf) => {
		sm.branch(leaf);
		const out = { leaf, context: sm.buildSessionContext() };
		if (names.has(leaf)) {
			return { name: names.get(leaf), ...out };
		}
		return out;
	});
	if (openLeaf !== null) {
		sm.branch(openLeaf);
	}
	return { openLeaf, entries: sm.getEntries().length, leaves };
}

function writeJSON(path, value) {
	writeFileSync(path, `${JSON.stringify(value, null, 1)}\n`);
}

/**
 * recordContexts opens the file as pi would and writes its contexts beside
 * it; namesOf names the leaves of what pi opened.
 */
function recordContexts(dir, name, namesOf, changed) {
	const file = join(dir, `${name}.jsonl`);
	const opened = join(mkdtempSync(join(tmpdir(), "pi-open-")), basename(file));
	copyFileSync(file, opened); // pi rewrites a file it migrates: open a copy
	random = mulberry32(seedOf(`${name}:open`)); // the ids a migration gives
	const sm = SessionManager.open(opened);
	const got = describe(sm, namesOf(sm));
	for (const l of got.leaves) {
		if (l.name === undefined) {
			throw new Error(`${name}: leaf ${l.leaf} has no name; give it one with s.name`);
		}
	}
	const rewritten = readFileSync(opened, "utf8") !== readFileSync(file, "utf8");
	rmSync(dirname(opened), { recursive: true });
	const out = { pi: VERSION, session: `${name}.jsonl`, migrated: versionOf(file) < 3, rewritten };
	if (changed) {
		out.changed = changed;
	}
	writeJSON(join(dir, `${name}.context.json`), { ...out, ...got });
}

/** versionOf is the version pi reads in a file's header: its first line's, 1 without one (3 without a header). */
function versionOf(file) {
	try {
		const header = JSON.parse(readFileSync(file, "utf8").split("\n")[0]);
		return header.type === "session" ? (header.version ?? 1) : 3;
	} catch {
		return 3;
	}
}

/** written has pi write a fixture with build into a new session file and returns its path and names. */
function written(f) {
	random = mulberry32(seedOf(f.name));
	clock.set("2026-03-14T09:26:53.589Z");
	const tmp = mkdtempSync(join(tmpdir(), "pi-fixture-"));
	const sm = SessionManager.create(f.cwd ?? CWD, tmp);
	sm.newSession({ id: sessionID() });
	const s = session(sm);
	f.build(s);
	return { file: sm.getSessionFile(), tmp, names: s.names };
}

function writeFixture(dir, f) {
	const w = written(f);
	copyFileSync(w.file, join(dir, `${f.name}.jsonl`));
	rmSync(w.tmp, { recursive: true });
	recordContexts(dir, f.name, () => w.names);
}

function writeAltered(dir, f) {
	const w = written({ name: f.name, build: chat });
	const lines = readFileSync(w.file, "utf8").split("\n").slice(0, -1);
	writeFileSync(join(dir, `${f.name}.jsonl`), f.change(lines));
	rmSync(w.tmp, { recursive: true });
	recordContexts(dir, f.name, () => w.names, `pi wrote it; then the script changed it: ${f.about}`);
}

function writeLegacy(dir, f) {
	random = mulberry32(seedOf(f.name));
	clock.set("2025-12-08T22:41:05.306Z");
	const lines = f.build();
	writeFileSync(join(dir, `${f.name}.jsonl`), lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
	// The migration gives the entries their ids; the file is linear, so its
	// one leaf is the last entry, where pi opens it.
	recordContexts(dir, f.name, (sm) => new Map([[sm.getLeafId(), "end"]]));
}

function write(dir) {
	mkdirSync(dir, { recursive: true });
	for (const f of fixtures) {
		writeFixture(dir, f);
	}
	for (const f of legacy) {
		writeLegacy(dir, f);
	}
	for (const f of altered) {
		writeAltered(dir, f);
	}
}

function read(files) {
	const out = files.map((file) => ({ file, ...describe(SessionManager.open(file)) }));
	process.stdout.write(`${JSON.stringify({ pi: VERSION, files: out })}\n`);
}

/** continueSession appends one exchange through pi, the clock a second after the file's last entry. */
function continueSession(file, prompt) {
	const sm = SessionManager.open(file);
	const last = sm.getLeafEntry();
	random = mulberry32(seedOf(`${basename(file)}:${prompt}`));
	clock.set(last ? last.timestamp : "2026-03-14T09:26:53.589Z");
	const s = session(sm);
	s.msg(() => user([text(prompt)]));
	s.msg(() => assistant([text(`pi answers: ${prompt}`)]));
}

const [mode, ...args] = process.argv.slice(2);
switch (mode) {
	case "write":
		if (args.length !== 1) {
			throw new Error("usage: node pi.mjs write DIR");
		}
		write(args[0]);
		break;
	case "read":
		read(args);
		break;
	case "continue":
		if (args.length < 2) {
			throw new Error("usage: node pi.mjs continue TEXT FILE...");
		}
		for (const file of args.slice(1)) {
			continueSession(file, args[0]);
		}
		read(args.slice(1));
		break;
	default:
		process.stderr.write("usage: node pi.mjs write DIR | read FILE... | continue TEXT FILE...\n");
		process.exit(2);
}
