#!/usr/bin/env node
// A Tlachtli bot in JavaScript (Node 18+): wire protocol v1 (docs/protocol.md) with its own
// msgpack codec (msgpack.js), no npm packages. Copy this folder and replace choose().
//
//   arena play --game zapotec --agent examples/bots/js/bot.js --agent random
//   arena check examples/bots/js/bot.js
"use strict";

const { encode, decode } = require("./msgpack.js");

const NAME = "js-example";
const VERSION = "1";

let seat = 0;
let rng = null;

// Your strategy: `decide` is the referee's message (obs, kind, prompt, options, clock); return
// the index of one of decide.options (every option is legal). This one picks at random, with a
// generator seeded by the agent option "seed" (default: the seat) so matches replay exactly.
function choose(decide) {
  return Math.floor(rng() * decide.options.length);
}

// mulberry32: a small seeded generator (Math.random cannot be seeded).
function seeded(seed) {
  let a = seed >>> 0;
  return function () {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// One frame: a 4-byte big-endian length, then one msgpack map. stdout carries frames only:
// diagnostics go to stderr (console.error), which the referee keeps in the match record.
function send(message) {
  const body = encode(message);
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length, 0);
  process.stdout.write(Buffer.concat([head, body]));
}

function handle(message) {
  switch (message.type) {
    case "hello":
      if (message.protocol !== 1) {
        send({ type: "error", message: `protocol ${message.protocol} is not supported` });
        process.exit(1);
      }
      seat = message.seat;
      rng = seeded(message.agent_options.seed ?? seat);
      send({ type: "ready", name: NAME, version: VERSION });
      break;
    case "decide":
      send({ type: "act", id: message.id, choice: choose(message) });
      break;
    case "end":
      process.exit(0); // result: message.result.scores, message.result.ranks
      break;
    case "error":
      console.error(`referee error: ${message.message}`);
      process.exit(1);
      break;
    default:
      console.error(`unexpected message type ${message.type}`);
  }
}

// Frames arrive in chunks of any size: buffer them and handle each complete one.
let pending = Buffer.alloc(0);
process.stdin.on("data", (chunk) => {
  pending = Buffer.concat([pending, chunk]);
  while (pending.length >= 4) {
    const length = pending.readUInt32BE(0);
    if (pending.length < 4 + length) break;
    const body = pending.subarray(4, 4 + length);
    pending = pending.subarray(4 + length);
    handle(decode(body));
  }
});
process.stdin.on("end", () => process.exit(0)); // the referee went away
