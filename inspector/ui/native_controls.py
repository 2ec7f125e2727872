"""Controls drawn as the browser's own elements, updated in place from step to step.

A step of the thread page moves the branch slider and the tree's list of labels. Streamlit's slider measures
itself on every render (a forced layout of the whole page each time) and its select box is a heavy widget
remounted with every step: together they were about a quarter of a step's time in the browser. Here each is one
element of Streamlit's custom components (``st.components.v2``) whose script keeps a native ``<input
type="range">`` or ``<select>`` and only changes its value, its options and its caption.

The scripts and styles are constants of this module; what comes from the data (the labels) reaches the page as
JSON and is set as ``textContent`` or an option's text: inert. A pick calls ``on_pick(index)`` in the run it
starts, before the page is drawn, as a button's callback does.
"""

from __future__ import annotations

from typing import Callable

import streamlit as st

# The slider: its caption (the step under the thumb, live while dragging) above a full-width range; a release
# (or a key) picks. The arrow keys move it while it has the focus: the page's Left / Right shortcuts are off
# then, as they are in any input.
SCRUB_JS = """export default function (component) {
  const { data, setTriggerValue, parentElement } = component;
  let box = parentElement.querySelector('.si-scrub');
  if (!box) {
    box = document.createElement('div');
    box.className = 'si-scrub';
    const label = document.createElement('label');
    const name = document.createElement('span');
    name.className = 'si-scrub-name';
    const value = document.createElement('span');
    value.className = 'si-scrub-value';
    const input = document.createElement('input');
    input.type = 'range';
    input.min = '0';
    input.step = '1';
    label.append(name, value);
    box.append(label, input);
    parentElement.appendChild(box);
    const show = () => { value.textContent = (box.siLabels || [])[Number(input.value)] ?? ''; };
    input.addEventListener('input', show);
    input.addEventListener('change', () => setTriggerValue('picked', Number(input.value)));
  }
  const input = box.querySelector('input');
  box.siLabels = data.labels;
  box.querySelector('.si-scrub-name').textContent = data.label;
  input.setAttribute('aria-label', data.label);
  input.max = String(Math.max(data.labels.length - 1, 0));
  input.value = String(data.index);
  input.setAttribute('aria-valuetext', data.labels[data.index] ?? '');
  box.querySelector('.si-scrub-value').textContent = data.labels[data.index] ?? '';
}
"""
SCRUB_CSS = """.si-scrub {display: flex; flex-direction: column; gap: 0.15rem; font-family: var(--st-font, sans-serif);}
.si-scrub label {display: flex; gap: 0.5rem; align-items: baseline; font-size: 0.875rem; min-width: 0;}
.si-scrub-name {color: var(--st-text-color, #31333f); opacity: 0.7; flex: none;}
.si-scrub-value {color: var(--st-primary-color, #ff4b4b); font-weight: 600; overflow: hidden; text-overflow: ellipsis;
  white-space: nowrap;}
.si-scrub input {width: 100%; margin: 0.25rem 0; accent-color: var(--st-primary-color, #ff4b4b); cursor: pointer;}
"""

# The list: a labelled native select; choosing an option picks it.
LIST_JS = """export default function (component) {
  const { data, setTriggerValue, parentElement } = component;
  let box = parentElement.querySelector('.si-list');
  if (!box) {
    box = document.createElement('label');
    box.className = 'si-list';
    const name = document.createElement('span');
    const select = document.createElement('select');
    box.append(name, select);
    parentElement.appendChild(box);
    select.addEventListener('change', () => setTriggerValue('picked', Number(select.value)));
  }
  box.querySelector('span').textContent = data.label;
  box.title = data.help || '';
  const select = box.querySelector('select');
  const options = data.labels.map((text, i) => { const o = document.createElement('option');
    o.value = String(i); o.textContent = text; return o; });
  if (data.index < 0 && data.placeholder) {  // none of the options is the one selected: say so
    const none = document.createElement('option');
    none.value = ''; none.textContent = data.placeholder; none.disabled = true;
    options.unshift(none);
  }
  select.replaceChildren(...options);
  select.value = data.index < 0 ? '' : String(data.index);
}
"""
LIST_CSS = """.si-list {display: flex; flex-direction: column; gap: 0.25rem; font-size: 0.875rem;
  font-family: var(--st-font, sans-serif); color: var(--st-text-color, #31333f);}
.si-list select {font: inherit; font-size: 1rem; padding: 0.45rem 0.5rem; border-radius: 0.5rem; min-width: 0;
  border: 1px solid var(--st-border-color, rgba(49, 51, 63, 0.2)); background: var(--st-secondary-background-color, #f0f2f6);
  color: inherit;}
"""

_scrub = st.components.v2.component("inspector.step_scrubber", js=SCRUB_JS, css=SCRUB_CSS)
_list = st.components.v2.component("inspector.option_list", js=LIST_JS, css=LIST_CSS)


def picked(key: str) -> int | None:
    """The index the control ``key`` picked in the click that started this run (None for any other run)."""
    state = st.session_state.get(key)  # the component's state: a dict of its values
    value = state.get("picked") if isinstance(state, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def pick_callback(key: str, count: int, on_pick: Callable[[int], None]) -> Callable[[], None]:
    """The callback of the control ``key`` over ``count`` items: ``on_pick(index)`` for a pick within them."""
    def called() -> None:
        index = picked(key)
        if index is not None and 0 <= index < count:
            on_pick(index)
    return called


def scrubber(label: str, labels: list[str], index: int, key: str, on_pick: Callable[[int], None]) -> None:
    """A slider over ``labels`` at ``index``, its caption the label under the thumb; a pick calls
    ``on_pick(index)`` before the run it starts."""
    _scrub(key=key, data={"label": label, "labels": labels, "index": index},
           on_picked_change=pick_callback(key, len(labels), on_pick))


def option_list(label: str, labels: list[str], index: int, key: str, on_pick: Callable[[int], None],
                help: str = "", placeholder: str = "") -> None:
    """A native select over ``labels`` at ``index`` (-1: none, ``placeholder`` shown); a choice calls
    ``on_pick(index)`` before the run it starts."""
    _list(key=key, data={"label": label, "labels": labels, "index": index, "help": help, "placeholder": placeholder},
          on_picked_change=pick_callback(key, len(labels), on_pick))
