"""Vega-Lite specs as a page sends them when a chart is drawn again and again (Play's frames, the history tree
at every step): the rows apart from the spec, so the browser updates the chart it has instead of building a new
one."""

from __future__ import annotations

from typing import Any


def steady(spec: dict[str, Any]) -> dict[str, Any]:
    """``spec`` with each layer's rows moved to a named dataset (layers drawing the same rows share one): from
    frame to frame only the datasets change, and the browser updates the chart in place instead of building a
    new one."""
    datasets: dict[str, Any] = {}
    names: dict[int, str] = {}
    layers = []
    for i, layer in enumerate(spec.get("layer", [])):
        values = (layer.get("data") or {}).get("values")
        if values is None:
            layers.append(layer)
            continue
        name = names.setdefault(id(values), f"layer{i}")
        if name not in datasets:
            datasets[name] = [row for row in values if row] or [{"_": 0}]  # an empty layer: one row of nothing
        layers.append({**layer, "data": {"name": name}})
    return {**spec, "layer": layers, "datasets": datasets}


def arrow_datasets(spec: dict[str, Any]) -> dict[str, Any]:
    """``spec`` with its datasets as Arrow bytes, written here in a millisecond instead of through a pandas
    frame per dataset (a tenth of a frame's time). A dataset Arrow cannot hold (text that is not UTF-8, from an
    id a hostile store holds; a column of mixed types) goes back into the layers drawing it, as JSON. Arrow is
    imported here, when a chart is first drawn: a quarter second a thread page's first open need not pay."""
    import pyarrow as pa  # Streamlit's own dependency: its charts' datasets travel as Arrow
    from streamlit.dataframe_util import convert_arrow_table_to_arrow_bytes

    datasets: dict[str, Any] = {}
    inline: dict[str, Any] = {}
    for name, rows in spec.get("datasets", {}).items():
        try:
            datasets[name] = convert_arrow_table_to_arrow_bytes(pa.Table.from_pylist(rows))
        except (pa.ArrowException, TypeError, ValueError):  # UnicodeEncodeError is a ValueError
            inline[name] = rows
    layers = [{**layer, "data": {"values": inline[layer["data"]["name"]]}}
              if isinstance(layer.get("data"), dict) and layer["data"].get("name") in inline else layer
              for layer in spec.get("layer", [])]
    out = {**spec, "layer": layers} if "layer" in spec else dict(spec)
    out.pop("datasets", None)
    return {**out, "datasets": datasets} if datasets else out
