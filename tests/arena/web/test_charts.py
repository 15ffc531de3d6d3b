"""The web arena's SVG charts (arena/web/charts.py): well-formed in every corner case, names escaped."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from arena.web.charts import llr_chart, margin_chart

SVG = "{http://www.w3.org/2000/svg}"


def row(agent: str, mean: float, low: float | None, high: float | None) -> dict:
    return {"agent": agent, "mean_margin": mean, "margin_low": low, "margin_high": high}


def test_margin_chart_draws_each_agent_with_its_interval_and_the_automatons_line():
    svg = ET.fromstring(margin_chart([row("<b>a</b>", 4.0, -2.0, 10.0), row("b", -3.0, None, None)]))
    texts = [t.text for t in svg.iter(SVG + "text")]
    assert "<b>a</b>" in texts and "b" in texts and "automaton (margin 0)" in texts
    assert len(list(svg.iter(SVG + "circle"))) == 2
    whiskers = [line for line in svg.iter(SVG + "line") if line.get("stroke-width") == "3"]
    assert len(whiskers) == 1  # b has one deal: no interval
    ET.fromstring(margin_chart([]))  # no result yet: a one-line note


def test_llr_chart_draws_the_path_between_its_bounds():
    svg = ET.fromstring(llr_chart([(0, 0.0), (1, -1.2), (2, -3.1)], -2.94, 2.94))
    bounds = {
        line.get("class"): float(line.get("y1")) for line in svg.iter(SVG + "line") if line.get("class")
    }
    assert bounds["bound upper"] < bounds["bound lower"]  # H1's bound above H0's
    (path,) = [p for p in svg.iter(SVG + "polyline") if p.get("class") == "llr"]
    last_y = float(path.get("points").split()[-1].split(",")[1])
    assert last_y > bounds["bound lower"]  # the line ends past H0's bound, below it
    assert "LLR -3.10 after 2 deal(s)" in [t.text for t in svg.iter(SVG + "text")]
    ET.fromstring(llr_chart([(0, 0.0)], -2.94, 2.94))  # nothing played yet
