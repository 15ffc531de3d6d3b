// A small msgpack codec: everything the Tlachtli wire protocol sends (nil, bool, int, float,
// str, bin, array, map), no extension types. CommonJS, no dependencies: copy it with bot.js.
"use strict";

function encode(value) {
  const chunks = [];
  pack(value, chunks);
  return Buffer.concat(chunks);
}

function pack(value, out) {
  if (value === null || value === undefined) return out.push(Buffer.from([0xc0]));
  if (value === true) return out.push(Buffer.from([0xc3]));
  if (value === false) return out.push(Buffer.from([0xc2]));
  if (typeof value === "number" && Number.isInteger(value)) return packInt(value, out);
  if (typeof value === "number") {
    const b = Buffer.alloc(9);
    b[0] = 0xcb;
    b.writeDoubleBE(value, 1);
    return out.push(b);
  }
  if (typeof value === "string") {
    const data = Buffer.from(value, "utf8");
    out.push(header(data.length, 0xa0, 32, 0xd9, 0xda, 0xdb));
    return out.push(data);
  }
  if (Buffer.isBuffer(value)) {
    out.push(header(value.length, null, 0, 0xc4, 0xc5, 0xc6));
    return out.push(value);
  }
  if (Array.isArray(value)) {
    out.push(header(value.length, 0x90, 16, null, 0xdc, 0xdd));
    for (const item of value) pack(item, out);
    return;
  }
  if (typeof value === "object") {
    const keys = Object.keys(value);
    out.push(header(keys.length, 0x80, 16, null, 0xde, 0xdf));
    for (const key of keys) {
      pack(key, out);
      pack(value[key], out);
    }
    return;
  }
  throw new TypeError(`cannot pack a ${typeof value}`);
}

function packInt(n, out) {
  if (n >= 0 && n < 0x80) return out.push(Buffer.from([n]));
  if (n < 0 && n >= -32) return out.push(Buffer.from([n & 0xff]));
  const b = Buffer.alloc(9);
  if (n >= 0) {
    b[0] = 0xcf;
    b.writeBigUInt64BE(BigInt(n), 1);
  } else {
    b[0] = 0xd3;
    b.writeBigInt64BE(BigInt(n), 1);
  }
  out.push(b);
}

// The header of a str/bin/array/map of length n: a "fix" form when it fits, else 8/16/32-bit.
function header(n, fix, fixLimit, code8, code16, code32) {
  if (fix !== null && n < fixLimit) return Buffer.from([fix | n]);
  if (code8 !== null && n < 0x100) return Buffer.from([code8, n]);
  if (n < 0x10000) {
    const b = Buffer.alloc(3);
    b[0] = code16;
    b.writeUInt16BE(n, 1);
    return b;
  }
  const b = Buffer.alloc(5);
  b[0] = code32;
  b.writeUInt32BE(n, 1);
  return b;
}

// decode(buffer) -> the one value it holds; throws on trailing bytes or an unknown code.
function decode(buf) {
  const reader = { buf, pos: 0 };
  const value = unpack(reader);
  if (reader.pos !== buf.length) throw new Error("extra bytes after the msgpack object");
  return value;
}

function take(r, n) {
  if (r.pos + n > r.buf.length) throw new Error("truncated msgpack object");
  const start = r.pos;
  r.pos += n;
  return start;
}

function unpack(r) {
  const code = r.buf[take(r, 1)];
  if (code <= 0x7f) return code;
  if (code >= 0xe0) return code - 0x100;
  if (code >= 0xa0 && code <= 0xbf) return str(r, code & 0x1f);
  if (code >= 0x90 && code <= 0x9f) return array(r, code & 0x0f);
  if (code >= 0x80 && code <= 0x8f) return map(r, code & 0x0f);
  const b = r.buf;
  switch (code) {
    case 0xc0: return null;
    case 0xc2: return false;
    case 0xc3: return true;
    case 0xca: return b.readFloatBE(take(r, 4));
    case 0xcb: return b.readDoubleBE(take(r, 8));
    case 0xcc: return b.readUInt8(take(r, 1));
    case 0xcd: return b.readUInt16BE(take(r, 2));
    case 0xce: return b.readUInt32BE(take(r, 4));
    case 0xcf: return Number(b.readBigUInt64BE(take(r, 8)));
    case 0xd0: return b.readInt8(take(r, 1));
    case 0xd1: return b.readInt16BE(take(r, 2));
    case 0xd2: return b.readInt32BE(take(r, 4));
    case 0xd3: return Number(b.readBigInt64BE(take(r, 8)));
    case 0xd9: return str(r, b.readUInt8(take(r, 1)));
    case 0xda: return str(r, b.readUInt16BE(take(r, 2)));
    case 0xdb: return str(r, b.readUInt32BE(take(r, 4)));
    case 0xc4: return bin(r, b.readUInt8(take(r, 1)));
    case 0xc5: return bin(r, b.readUInt16BE(take(r, 2)));
    case 0xc6: return bin(r, b.readUInt32BE(take(r, 4)));
    case 0xdc: return array(r, b.readUInt16BE(take(r, 2)));
    case 0xdd: return array(r, b.readUInt32BE(take(r, 4)));
    case 0xde: return map(r, b.readUInt16BE(take(r, 2)));
    case 0xdf: return map(r, b.readUInt32BE(take(r, 4)));
    default: throw new Error(`unsupported msgpack code 0x${code.toString(16)}`);
  }
}

function str(r, n) {
  const start = take(r, n);
  return r.buf.toString("utf8", start, start + n);
}

function bin(r, n) {
  const start = take(r, n);
  return Buffer.from(r.buf.subarray(start, start + n));
}

function array(r, n) {
  const items = [];
  for (let i = 0; i < n; i++) items.push(unpack(r));
  return items;
}

function map(r, n) {
  const result = {};
  for (let i = 0; i < n; i++) {
    const key = unpack(r);
    result[key] = unpack(r);
  }
  return result;
}

module.exports = { encode, decode };
