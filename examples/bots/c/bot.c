/* A Tlachtli bot in C: wire protocol v1 (docs/protocol.md) with a minimal msgpack reader and
 * writer, standard library only. Copy this file and replace choose().
 *
 *   cc -O2 -Wall -o bot bot.c
 *   arena play --game zapotec --agent ./bot --agent random
 *   arena check ./bot
 *
 * The reader does not build a tree: it walks the top-level map of a message, reads the few
 * fields this bot uses (type, id, the number of options, seat, agent_options.seed) and skips
 * the rest. To use the observation, walk `obs` the same way (see read_int / skip).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME "c-example"
#define VERSION "1"
#define MAX_FRAME (64u << 20) /* refuse absurd frames from a broken peer */

/* ---- reading msgpack: a cursor over one frame's body ---------------------------------- */

typedef struct {
    const uint8_t *p, *end;
    int bad; /* set on truncated or unsupported data: the caller gives up */
} Reader;

static uint64_t be(Reader *r, int n) {
    uint64_t v = 0;
    if (r->end - r->p < n) { r->bad = 1; r->p = r->end; return 0; }
    for (int i = 0; i < n; i++) v = (v << 8) | *r->p++;
    return v;
}

static int next_byte(Reader *r) { return (int)be(r, 1); }

/* A str header: its length, or -1 (and nothing consumed) when the next value is not a str. */
static long str_len(Reader *r) {
    if (r->p >= r->end) { r->bad = 1; return -1; }
    uint8_t c = *r->p;
    if (c >= 0xa0 && c <= 0xbf) { r->p++; return c & 0x1f; }
    if (c == 0xd9) { r->p++; return (long)be(r, 1); }
    if (c == 0xda) { r->p++; return (long)be(r, 2); }
    if (c == 0xdb) { r->p++; return (long)be(r, 4); }
    return -1;
}

/* Copy the next value, a str, into out (truncated to size - 1). */
static void read_str(Reader *r, char *out, size_t size) {
    long n = str_len(r);
    if (n < 0 || r->end - r->p < n) { r->bad = 1; out[0] = 0; return; }
    size_t k = (size_t)n < size - 1 ? (size_t)n : size - 1;
    memcpy(out, r->p, k);
    out[k] = 0;
    r->p += n;
}

/* Container headers: the number of elements (pairs for a map), or -1 for another type. */
static long container_len(Reader *r, int map) {
    if (r->p >= r->end) { r->bad = 1; return -1; }
    uint8_t c = *r->p;
    uint8_t fix = map ? 0x80 : 0x90, c16 = map ? 0xde : 0xdc, c32 = map ? 0xdf : 0xdd;
    if (c >= fix && c <= fix + 15) { r->p++; return c & 0x0f; }
    if (c == c16) { r->p++; return (long)be(r, 2); }
    if (c == c32) { r->p++; return (long)be(r, 4); }
    return -1;
}

static void skip(Reader *r);

/* The next value as an integer (any int encoding); other types are skipped and read as 0. */
static int64_t read_int(Reader *r) {
    int c = next_byte(r);
    if (c <= 0x7f) return c;
    if (c >= 0xe0) return c - 0x100;
    switch (c) {
    case 0xcc: return (int64_t)be(r, 1);
    case 0xcd: return (int64_t)be(r, 2);
    case 0xce: return (int64_t)be(r, 4);
    case 0xcf: return (int64_t)be(r, 8);
    case 0xd0: return (int8_t)be(r, 1);
    case 0xd1: return (int16_t)be(r, 2);
    case 0xd2: return (int32_t)be(r, 4);
    case 0xd3: return (int64_t)be(r, 8);
    }
    r->p--; /* not an int: put the code back and skip the whole value */
    skip(r);
    return 0;
}

/* Skip one value of any type the protocol allows. */
static void skip(Reader *r) {
    int c = next_byte(r);
    long n = 0;
    if (r->bad) return;
    if (c <= 0x7f || c >= 0xe0 || c == 0xc0 || c == 0xc2 || c == 0xc3) return;
    if (c >= 0x90 && c <= 0x9f) { for (n = c & 0x0f; n > 0; n--) skip(r); return; }
    if (c >= 0x80 && c <= 0x8f) { for (n = 2 * (c & 0x0f); n > 0; n--) skip(r); return; }
    if (c >= 0xa0 && c <= 0xbf) n = c & 0x1f;
    else switch (c) {
    case 0xcc: case 0xd0: be(r, 1); return;
    case 0xcd: case 0xd1: be(r, 2); return;
    case 0xca: case 0xce: case 0xd2: be(r, 4); return;
    case 0xcb: case 0xcf: case 0xd3: be(r, 8); return;
    case 0xd9: case 0xc4: n = (long)be(r, 1); break;
    case 0xda: case 0xc5: n = (long)be(r, 2); break;
    case 0xdb: case 0xc6: n = (long)be(r, 4); break;
    case 0xdc: for (n = (long)be(r, 2); n > 0 && !r->bad; n--) skip(r); return;
    case 0xdd: for (n = (long)be(r, 4); n > 0 && !r->bad; n--) skip(r); return;
    case 0xde: for (n = 2 * (long)be(r, 2); n > 0 && !r->bad; n--) skip(r); return;
    case 0xdf: for (n = 2 * (long)be(r, 4); n > 0 && !r->bad; n--) skip(r); return;
    default: r->bad = 1; return; /* extension types are not part of the protocol */
    }
    if (r->end - r->p < n) { r->bad = 1; return; }
    r->p += n;
}

/* ---- the fields of a referee message this bot uses -------------------------------------- */

typedef struct {
    char type[16];
    int64_t id, seat, seed;
    int has_seed;
    long options; /* decide: how many options */
    char error[200];
} Message;

/* Read the fields above from one message body; -1 if it is not a well-formed map. */
static int parse(const uint8_t *body, size_t size, Message *m) {
    Reader r = {body, body + size, 0};
    char key[32];
    memset(m, 0, sizeof *m);
    long pairs = container_len(&r, 1);
    if (pairs < 0) return -1;
    for (; pairs > 0 && !r.bad; pairs--) {
        read_str(&r, key, sizeof key);
        if (strcmp(key, "type") == 0) read_str(&r, m->type, sizeof m->type);
        else if (strcmp(key, "id") == 0) m->id = read_int(&r);
        else if (strcmp(key, "seat") == 0) m->seat = read_int(&r);
        else if (strcmp(key, "message") == 0) read_str(&r, m->error, sizeof m->error);
        /* decide's options are an array (hello's are a map: skipped below) */
        else if (strcmp(key, "options") == 0 && (m->options = container_len(&r, 0)) >= 0) {
            for (long i = 0; i < m->options && !r.bad; i++) skip(&r); /* read them here to use them */
        } else if (strcmp(key, "agent_options") == 0) {
            long n = container_len(&r, 1);
            for (; n > 0 && !r.bad; n--) {
                read_str(&r, key, sizeof key);
                if (strcmp(key, "seed") == 0) { m->seed = read_int(&r); m->has_seed = 1; }
                else skip(&r);
            }
        } else skip(&r); /* hello's options, decide's obs (see skip/read_int to walk it), ... */
    }
    return r.bad || r.p != r.end ? -1 : 0;
}

/* ---- writing: the bot's messages are maps of short strs and small ints ------------------ */

typedef struct {
    uint8_t data[512];
    size_t n;
} Writer;

static void put(Writer *w, const void *bytes, size_t n) {
    if (w->n + n <= sizeof w->data) memcpy(w->data + w->n, bytes, n);
    w->n += n;
}

static void put_str(Writer *w, const char *s) {
    size_t n = strlen(s) < 255 ? strlen(s) : 255;
    uint8_t head[2] = {0xd9, (uint8_t)n}; /* str 8: up to 255 bytes */
    if (n < 32) { head[0] = (uint8_t)(0xa0 | n); put(w, head, 1); }
    else put(w, head, 2);
    put(w, s, n);
}

static void put_int(Writer *w, int64_t v) { /* non-negative: positive fixint or uint 64 */
    uint8_t b[9] = {0xcf};
    if (v >= 0 && v < 0x80) { b[0] = (uint8_t)v; put(w, b, 1); return; }
    for (int i = 0; i < 8; i++) b[8 - i] = (uint8_t)((uint64_t)v >> (8 * i));
    put(w, b, 9);
}

/* One frame on stdout: a 4-byte big-endian length, the body, then flush. */
static void send(const Writer *w) {
    uint8_t head[4] = {(uint8_t)(w->n >> 24), (uint8_t)(w->n >> 16), (uint8_t)(w->n >> 8), (uint8_t)w->n};
    fwrite(head, 1, 4, stdout);
    fwrite(w->data, 1, w->n, stdout);
    fflush(stdout);
}

static void send_ready(void) {
    Writer w = {{0}, 0};
    uint8_t map3 = 0x83;
    put(&w, &map3, 1);
    put_str(&w, "type"), put_str(&w, "ready");
    put_str(&w, "name"), put_str(&w, NAME);
    put_str(&w, "version"), put_str(&w, VERSION);
    send(&w);
}

static void send_act(int64_t id, int64_t choice) {
    Writer w = {{0}, 0};
    uint8_t map3 = 0x83;
    put(&w, &map3, 1);
    put_str(&w, "type"), put_str(&w, "act");
    put_str(&w, "id"), put_int(&w, id);
    put_str(&w, "choice"), put_int(&w, choice);
    send(&w);
}

static void send_error(const char *text) {
    Writer w = {{0}, 0};
    uint8_t map2 = 0x82;
    put(&w, &map2, 1);
    put_str(&w, "type"), put_str(&w, "error");
    put_str(&w, "message"), put_str(&w, text);
    send(&w);
}

/* ---- the bot ---------------------------------------------------------------------------- */

static uint64_t rng_state;

static uint64_t next_random(void) { /* xorshift64*: small and seedable */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ull;
}

/* Your strategy: return the index of one of the decision's options (every one is legal).
 * This one picks at random, seeded by the agent option "seed" (default: the seat). */
static int64_t choose(const Message *decide) {
    if (decide->options <= 0) return 0; /* never happens: a decision offers at least one option */
    return (int64_t)(next_random() % (uint64_t)decide->options);
}

/* Read one frame's body into *buf (grown as needed); its size, or -1 at end of input. */
static long read_frame(uint8_t **buf, size_t *cap) {
    uint8_t head[4];
    if (fread(head, 1, 4, stdin) != 4) return -1;
    size_t n = (size_t)head[0] << 24 | (size_t)head[1] << 16 | (size_t)head[2] << 8 | head[3];
    if (n > MAX_FRAME) return -1;
    if (n > *cap) {
        uint8_t *bigger = realloc(*buf, n);
        if (bigger == NULL) return -1;
        *buf = bigger, *cap = n;
    }
    if (fread(*buf, 1, n, stdin) != n) return -1;
    return (long)n;
}

int main(void) {
    uint8_t *buf = NULL;
    size_t cap = 0;
    Message m;
    long n;
    while ((n = read_frame(&buf, &cap)) >= 0) {
        if (parse(buf, (size_t)n, &m) != 0) {
            send_error("c-example could not read a message");
            return 1;
        }
        if (strcmp(m.type, "hello") == 0) {
            rng_state = 0x9e3779b97f4a7c15ull ^ (uint64_t)(m.has_seed ? m.seed : m.seat);
            next_random();
            send_ready();
        } else if (strcmp(m.type, "decide") == 0) {
            send_act(m.id, choose(&m));
        } else if (strcmp(m.type, "end") == 0) {
            break; /* the result's scores and ranks are in the message: parse them if you need them */
        } else if (strcmp(m.type, "error") == 0) {
            fprintf(stderr, "referee error: %s\n", m.error);
            free(buf);
            return 1;
        }
    }
    free(buf);
    return 0; /* end of the match, or the referee went away */
}
