"""Inline SVG charts of the ladder page (pure functions of the data, text escaped)."""

from __future__ import annotations

from engine.svg import document, text

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


def rating_chart(history: dict[str, list[tuple[int, float]]]) -> str:
    """Each agent's conservative rating (mu - 3 sigma) after each rated match, one line per agent."""
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
        text(LEFT + plot_w, HEIGHT - 8, f"{last} matches", 10, "end"),
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
    return document(WIDTH, HEIGHT, body, "rating (mu - 3 sigma) after each match")
