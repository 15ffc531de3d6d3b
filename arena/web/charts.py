"""Inline SVG charts of the ladder page (pure functions of the data, text escaped)."""

from __future__ import annotations

from engine.svg import SEAT_COLOURS, circle, document, text

PALETTE = (
    "#d9482b",
    "#2b6cd9",
    "#e0b422",
    "#3a9d4a",
    "#8e44ad",
    "#16a085",
    "#d35400",
    "#7f8c8d",
    "#c0392b",
    "#2c3e50",
)
WIDTH, HEIGHT = 720, 260
LEFT, RIGHT, TOP, BOTTOM = 50, 170, 14, 30


def colour(index: int) -> str:
    """The colour of the ``index``-th agent of the leaderboard (chart line and legend)."""
    return PALETTE[index % len(PALETTE)]


def rating_chart(
    history: dict[str, list[tuple[int, float]]],
    title: str = "rating (mu - 3 sigma) after each match",
    unit: str = "matches",
) -> str:
    """Each agent's conservative rating (mu - 3 sigma) after each rated match, one line per agent
    (or any other ``title``d series over ``unit``s: a season's games per bot)."""
    points = [point for series in history.values() for point in series]
    if not points:
        return document(WIDTH, 40, [text(10, 24, "no rated match yet", 12)], "rating chart: no data")
    last = max(x for x, _ in points)
    low = min(y for _, y in points)
    high = max(y for _, y in points)
    if high - low < 1e-9:
        low, high = low - 1, high + 1
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def at(x: float, y: float) -> str:
        return f"{LEFT + plot_w * x / max(last, 1):.1f},{TOP + plot_h * (high - y) / (high - low):.1f}"

    body = [
        f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="#fbfbfb" stroke="#bbb"/>',
        text(LEFT - 4, TOP + 10, f"{high:.1f}", 10, "end"),
        text(LEFT - 4, TOP + plot_h, f"{low:.1f}", 10, "end"),
        text(LEFT, HEIGHT - 8, "0", 10),
        text(LEFT + plot_w, HEIGHT - 8, f"{last} {unit}", 10, "end"),
    ]
    if low < 0 < high:
        body.append(f'<polyline points="{at(0, 0)} {at(last, 0)}" fill="none" stroke="#ddd"/>')
    for index, (agent, series) in enumerate(history.items()):
        if not series:
            continue
        line = " ".join(at(x, y) for x, y in series)
        body.append(
            f'<polyline points="{line}" fill="none" stroke="{colour(index)}" stroke-width="2"></polyline>'
        )
        body.append(
            f'<rect x="{WIDTH - RIGHT + 12}" y="{TOP + 16 * index}" width="10" height="10" fill="{colour(index)}"/>'
        )
        body.append(text(WIDTH - RIGHT + 26, TOP + 16 * index + 9, agent[:24], 11))
    return document(WIDTH, HEIGHT, body, title)


def _scale(low: float, high: float, start: float, length: float, flip: bool = False):
    """A function from data to pixels mapping [low, high] onto [start, start + length]."""
    span = (high - low) or 1.0

    def at(value: float) -> float:
        share = (value - low) / span
        return start + length * ((1 - share) if flip else share)

    return at


def margin_chart(rows: list[dict]) -> str:
    """A solo ladder's mean margins over the automaton, one line per agent with its 95% interval;
    the vertical line at 0 is the automaton's own score."""
    if not rows:
        return document(WIDTH, 40, [text(10, 24, "no finished match yet", 12)], "margin chart: no data")
    label_w, row_h, top = 170, 24, 24
    height = top + row_h * len(rows) + 30
    values = [0.0] + [
        row[key]
        for row in rows
        for key in ("mean_margin", "margin_low", "margin_high")
        if row[key] is not None
    ]
    low, high = min(values), max(values)
    pad = 0.05 * ((high - low) or 1.0)
    x = _scale(low - pad, high + pad, label_w, WIDTH - label_w - 70)
    body = [
        f'<line x1="{x(0):.1f}" y1="{top - 8}" x2="{x(0):.1f}" y2="{height - 26}" stroke="#999" stroke-dasharray="4 3"/>',
        text(x(0), top - 12, "automaton (margin 0)", 10, "middle"),
        text(label_w, height - 8, f"{low - pad:+.1f}", 10),
        text(WIDTH - 70, height - 8, f"{high + pad:+.1f}", 10, "end"),
        text(
            (label_w + WIDTH - 70) / 2,
            height - 8,
            "mean margin (score - automaton's), 95% interval",
            10,
            "middle",
        ),
    ]
    for index, row in enumerate(rows):
        y = top + row_h * index + row_h / 2
        body.append(text(label_w - 8, y + 4, row["agent"][:24], 11, "end"))
        if row["margin_low"] is not None:
            body.append(
                f'<line x1="{x(row["margin_low"]):.1f}" y1="{y:.1f}" x2="{x(row["margin_high"]):.1f}" y2="{y:.1f}"'
                f' stroke="{colour(index)}" stroke-width="3"/>'
            )
        body.append(circle(round(x(row["mean_margin"]), 1), y, 5, colour(index)))
        body.append(text(WIDTH - 64, y + 4, f"{row['mean_margin']:+.2f}", 11))
    return document(WIDTH, height, body, "mean margin over the automaton with 95% intervals")


def llr_chart(path: list[tuple[int, float]], lower: float, upper: float) -> str:
    """An SPRT's log-likelihood ratio after each deal against its two bounds: it stops, with a
    verdict, where the line first reaches a bound."""
    last = max((deal for deal, _ in path), default=0)
    values = [llr for _, llr in path] + [lower, upper, 0.0]
    low, high = min(values), max(values)
    pad = 0.08 * (high - low)
    top = TOP + 16  # room for the caption above the plot
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - top - BOTTOM
    x = _scale(0, max(last, 1), LEFT, plot_w)
    y = _scale(low - pad, high + pad, top, plot_h, flip=True)
    end_deal, end_llr = path[-1] if path else (0, 0.0)
    body = [
        text(LEFT, TOP + 4, f"LLR {end_llr:+.2f} after {end_deal} deal(s)", 12),
        f'<rect x="{LEFT}" y="{top}" width="{plot_w}" height="{plot_h}" fill="#fbfbfb" stroke="#bbb"/>',
        text(LEFT, HEIGHT - 8, "0", 10),
        text(LEFT + plot_w, HEIGHT - 8, f"{last} deals", 10, "end"),
        f'<line x1="{LEFT}" y1="{y(0):.1f}" x2="{LEFT + plot_w}" y2="{y(0):.1f}" stroke="#ddd"/>',
        text(LEFT - 4, y(0) + 4, "0", 10, "end"),
    ]
    for bound, colour_, label, kind in (
        (upper, "#1a9850", f"H1 at {upper:+.2f}", "upper"),
        (lower, "#b3261e", f"H0 at {lower:+.2f}", "lower"),
    ):
        body.append(
            f'<line class="bound {kind}" x1="{LEFT}" y1="{y(bound):.1f}" x2="{LEFT + plot_w}" y2="{y(bound):.1f}"'
            f' stroke="{colour_}" stroke-width="1.5" stroke-dasharray="6 4"/>'
        )
        body.append(text(LEFT + plot_w + 8, y(bound) + 4, f"accept {label}", 11, fill=colour_))
    if path:
        line = " ".join(f"{x(deal):.1f},{y(llr):.1f}" for deal, llr in path)
        body.append(f'<polyline class="llr" points="{line}" fill="none" stroke="#2b6cd9" stroke-width="2"/>')
        body.append(circle(round(x(end_deal), 1), round(y(end_llr), 1), 4, "#2b6cd9"))
    return document(WIDTH, HEIGHT, body, "log-likelihood ratio after each deal, with the bounds of the test")


def score_chart(timeline: list[dict], names: list[str]) -> str:
    """Each seat's score after each round or Eclipse (``timeline``: {"after": label, "scores":
    [...]} in play order), one line per seat in its board colour; Eclipses and the end scoring
    marked by a dashed line."""
    if not timeline:
        return document(WIDTH, 40, [text(10, 24, "no score marks kept", 12)], "score chart: no data")
    seats = len(timeline[0]["scores"])
    high = max(max(mark["scores"]) for mark in timeline)
    low = min(0, min(min(mark["scores"]) for mark in timeline))
    top, plot_w = TOP + 4, WIDTH - LEFT - RIGHT
    plot_h = HEIGHT - top - BOTTOM - 14
    x = _scale(0, len(timeline), LEFT, plot_w)  # point k at k + 1: the start (0 VP) at 0
    y = _scale(low, max(high, low + 1), top, plot_h, flip=True)
    body = [
        f'<rect x="{LEFT}" y="{top}" width="{plot_w}" height="{plot_h}" fill="#fbfbfb" stroke="#bbb"/>',
        text(LEFT - 4, y(high) + 4, str(high), 10, "end"),
        text(LEFT - 4, y(low) + 4, str(low), 10, "end"),
        text(LEFT, HEIGHT - 8, "start", 10),
    ]
    last_label_x = -100.0
    for k, mark in enumerate(timeline, start=1):
        label = str(mark["after"])
        if not label.startswith("round"):
            body.append(
                f'<line x1="{x(k):.1f}" y1="{top}" x2="{x(k):.1f}" y2="{top + plot_h}" stroke="#bbb" stroke-dasharray="4 3"/>'
            )
        # Every label that fits: the Eclipses and the end always, rounds where there is room.
        short = label.replace("round ", "r").replace("Eclipse ", "E").replace("end scoring", "end")
        if not label.startswith("round") or x(k) - last_label_x > 22:
            body.append(text(x(k), top + plot_h + 14, short, 10, "middle"))
            last_label_x = x(k)
    for seat in range(seats):
        line = f"{x(0):.1f},{y(0):.1f} " + " ".join(
            f"{x(k):.1f},{y(mark['scores'][seat]):.1f}" for k, mark in enumerate(timeline, start=1)
        )
        colour_ = SEAT_COLOURS[seat % len(SEAT_COLOURS)]
        body.append(f'<polyline points="{line}" fill="none" stroke="{colour_}" stroke-width="2"/>')
        final = timeline[-1]["scores"][seat]
        body.append(
            f'<rect x="{WIDTH - RIGHT + 12}" y="{TOP + 16 * seat}" width="10" height="10" fill="{colour_}"/>'
        )
        name = names[seat] if seat < len(names) else f"seat {seat}"
        body.append(text(WIDTH - RIGHT + 26, TOP + 16 * seat + 9, f"{seat}: {name}"[:18] + f" {final}", 11))
    eclipses = any(str(mark["after"]).startswith("Eclipse") for mark in timeline)
    caption = (
        "score after each round (r) and Eclipse (E)"
        if eclipses
        else "score after each round (r) and at the end"
    )
    body.append(text(LEFT + plot_w / 2, HEIGHT - 8, caption, 10, "middle"))
    return document(WIDTH, HEIGHT, body, "each seat's score after each round")
