// The official TypeScript consumer (@ag-ui/client HttpAgent) over a captured SSE body.
//
//   node consumer.mjs <node_modules dir> <capture.sse> <rounds> [chunk bytes]
//
// The agent's `fetch` is replaced by one that answers with the capture as a streamed
// text/event-stream Response, so everything from the HTTP body on is the client's own
// path: SSE parsing, JSON.parse, the compatibility boundary, enforcement (zod schemas),
// chunk expansion, verification and defaultApplyEvents (state via fast-json-patch,
// messages) — what runAgent() does for a real server. No socket is opened.
// Prints one JSON object: {events, rounds: [{cpu_s, wall_s}], messages, state_todos}.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import path from "node:path";

const [nodeModules, capturePath, roundsArg, chunkArg] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(nodeModules), "noop.js"));
const { HttpAgent } = require("@ag-ui/client");

const body = readFileSync(capturePath);
const chunk = Number(chunkArg || 65536);
const rounds = Number(roundsArg || 3);
const events = (body.toString("utf8").match(/^data:/gm) || []).length;

function response() {
  let offset = 0;
  const stream = new ReadableStream({
    pull(controller) {
      if (offset >= body.length) { controller.close(); return; }
      controller.enqueue(new Uint8Array(body.subarray(offset, offset + chunk)));
      offset += chunk;
    },
  });
  return new Response(stream, { status: 200, headers: { "content-type": "text/event-stream" } });
}

async function once() {
  const agent = new HttpAgent({ url: "http://127.0.0.1:9/unused", threadId: "thread-1",
                                fetch: async () => response() });
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await agent.runAgent({ runId: "run-1" });
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  return { cpu_s: (cpu.user + cpu.system) / 1e6, wall_s: wall,
           messages: agent.messages.length,
           state_todos: Array.isArray(agent.state?.todos) ? agent.state.todos.length : null };
}

await once(); // warm-up: the JIT, the schemas
const results = [];
let last;
for (let i = 0; i < rounds; i++) {
  last = await once();
  results.push({ cpu_s: last.cpu_s, wall_s: last.wall_s });
}
console.log(JSON.stringify({ events, rounds: results, messages: last.messages,
                             state_todos: last.state_todos, node: process.version }));
