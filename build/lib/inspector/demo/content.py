"""The words and files of the demo threads: uploads, reports, answers."""

from __future__ import annotations

RESEARCH_ASK = ("Compare LFP, NMC and sodium-ion cells for a 60 kWh city car using the attached price table "
                "and my notes. I need a short report I can forward.")

RESEARCH_TODOS = ("Read the uploaded price table and notes", "Compare the three chemistries",
                  "Write the report")

CELL_PRICES = """chemistry,year,usd_per_kwh
LFP,2021,118
LFP,2022,137
LFP,2023,112
LFP,2024,89
NMC,2021,152
NMC,2022,174
NMC,2023,151
NMC,2024,128
Na-ion,2023,95
Na-ion,2024,87
"""

FIELD_NOTES = """# Field notes, supplier visits

- LFP: 160-180 Wh/kg at cell level, 3,000+ cycles, no cobalt or nickel.
- NMC 811: 250-270 Wh/kg, best range per kilogram, thermal runaway needs more pack protection.
- Sodium-ion: 140-160 Wh/kg, keeps ~90% capacity at -20 C, first volume cars in 2024.
- A 60 kWh pack is about 380 kg with LFP, 300 kg with NMC.
"""

COMPARISON_CSV = """chemistry,usd_per_kwh_2024,wh_per_kg,cycle_life,pack_cost_60kwh_usd,cold_weather
LFP,89,170,3000,5340,fair
NMC,128,260,1500,7680,fair
Na-ion,87,150,4000,5220,good
"""

_REPORT_BODY = """# Battery chemistries for a 60 kWh city car

## Summary
LFP is the default choice: USD 5,340 per pack, long cycle life and no cobalt.
NMC buys about 80 kg less weight for USD 2,340 more per pack.
Sodium-ion matches LFP on cost and wins in cold climates, but supply is still thin.

## Comparison
| Chemistry | USD/kWh (2024) | Wh/kg | Cycles | 60 kWh pack |
|-----------|---------------:|------:|-------:|------------:|
| LFP       | 89             | 170   | 3,000  | USD 5,340   |
| NMC       | 128            | 260   | 1,500  | USD 7,680   |
| Na-ion    | 87             | 150   | 4,000  | USD 5,220   |

## Recommendation
Choose LFP now; qualify a sodium-ion supplier for the Nordic variant.
"""

REPORT_V1 = _REPORT_BODY

REPORT_V2 = _REPORT_BODY + """
## Price trend
![Average pack price](price_trend.png)

Prices peaked in 2022 with lithium carbonate and fell 29% by 2024.
"""

RESEARCH_ANSWER_1 = ("Done. **LFP** is the best fit for a 60 kWh city car: USD 89/kWh, 3,000+ cycles and no "
                     "cobalt. NMC saves ~80 kg but costs USD 2,340 more per pack; sodium-ion is as cheap as LFP "
                     "and better in the cold, but supply is still limited. See `report.md` and `comparison.csv`.")

VISION_ASK = ("These are from today's design review: the architecture sketch and a photo of the whiteboard. "
              "What do they show?")

VISION_ANSWER = ("**architecture.png** is a left-to-right sketch of four components: Browser -> Gateway -> Agent "
                 "-> Sandbox.\n\n**whiteboard.jpg** is a photo of the whiteboard: short marker strokes in blue, "
                 "red, green and black, lit unevenly from the left; the handwriting is too small to read at "
                 "this resolution.")

SUBGRAPH_ANSWER = ("Three dates matter:\n- **18 Aug 2025**: supply-chain due diligence obligations start.\n"
                   "- **Feb 2027**: digital battery passport for EV and industrial batteries over 2 kWh.\n"
                   "- **2031**: minimum recycled content (16% cobalt, 6% lithium, 6% nickel).")

PLAN_TODOS = ("Read the cost chart and the warehouse board", "Benchmark freight rates",
              "Write the cost-cutting plan")

PLAN_MD = """# Q3 logistics cost-cutting plan

1. **Renegotiate freight** (EUR 38 -> 31 per pallet): saves about EUR 31k a quarter.
2. **Consolidate pallets** on the Tuesday and Thursday routes: about EUR 12k.
3. **Two picking shifts** instead of three: about EUR 9k.
"""

BOARD_PLAN_MD = """# Q3 logistics: board summary

- **Freight renegotiation**: EUR 31k a quarter (EUR 38 -> 31 per pallet).
- **Pallet consolidation** on two routes: EUR 12k.
- **Two picking shifts** instead of three: EUR 9k.
"""

SKILL_FILES = {
    "/mnt/skills/public/cost-analysis/SKILL.md": """---
name: cost-analysis
description: Break a cost trend into drivers, size each saving, and rank the changes by euros saved per quarter.
---
# Cost analysis

1. Read the numbers first; note the period and the unit.
2. Split the trend into volume, rate and mix.
3. Size each change in EUR per quarter and rank them.
""",
}

DEFERRED_TOOLS = {
    "spreadsheet_export": "write a table as an .xlsx spreadsheet",
    "email_draft": "draft an email for the user to send",
    "calendar_event": "create a calendar event",
}

CURRENT_GOAL = "Deliver a ranked cost-cutting plan for Q3 logistics"

CURRENT_SUMMARY = ("The user shared a logistics cost chart (April-June, rising 4-5% a month) and a warehouse board "
                   "photo. A goal was set to deliver a Q3 cost-cutting plan; a subagent benchmarked freight rates; "
                   "plan.md proposes freight renegotiation, pallet consolidation and two picking shifts.")

HANDBOOK_TOPICS = (
    "Welcome", "Accounts and access", "Laptops and equipment", "Security basics", "Working hours",
    "Remote work", "Travel", "Expenses", "Code review", "Deployments", "On-call", "Incidents",
    "Customer data", "Open source", "Meetings", "Writing docs", "Design reviews", "Hiring loops",
    "Feedback", "Promotions", "Learning budget", "Health and leave", "Parental leave", "Offboarding",
    "Office etiquette", "Slack channels", "Planning cycles", "OKRs", "Budget approvals", "Who to ask",
)

_SECTION_LINES = (
    "This section covers {topic_lower} for everyone in their first 90 days.",
    "Your manager walks you through it in week {week}; ask early rather than late.",
    "The owning team is listed on the intranet page for {topic_lower}.",
    "Exceptions need a written approval from your manager and the owning team.",
)


def handbook() -> str:
    """The onboarding handbook: a heading and four lines per section."""
    lines = ["# Onboarding handbook", ""]
    for i, topic in enumerate(HANDBOOK_TOPICS, start=1):
        lines.append(f"## {i}. {topic}")
        lines.extend(line.format(topic_lower=topic.lower(), week=1 + i % 4) for line in _SECTION_LINES)
        lines.append("")
    return "\n".join(lines)


def handbook_sections() -> list[tuple[str, int, int]]:
    """(topic, first line, last line) of each section, 1-based and inclusive."""
    return [(topic, 3 + 6 * i, 7 + 6 * i) for i, topic in enumerate(HANDBOOK_TOPICS)]


def summary_of(number: int, topic: str) -> str:
    return (f"{topic} applies from day one; your manager covers it in week {1 + number % 4}, "
            "and exceptions need written approval.")

DELTA_ACTIONS = """# Action items

1. Ask the LFP supplier for the 2025 price sheet.
2. Follow up with the cell supplier on sodium-ion samples.
3. Re-run the cold-weather range estimate with the new data.
"""

DELTA_ACTIONS_DATED = """# Action items

1. Ask the LFP supplier for the 2025 price sheet (due Friday).
2. Follow up with the cell supplier on sodium-ion samples (due next Wednesday).
3. Re-run the cold-weather range estimate with the new data (due in two weeks).
"""
