"""The seeds' claims (ndncc.seedclaims), the vacuity detector (ndncc.vacuity) and the scoreboard
(ndncc.scoreboard), on hand-made rows; and the shipped registries, against the seeds' text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ndncc import scoreboard, seedclaims, vacuity
from ndncc.experiments.claims import Check, Notes
from ndncc.seedclaims import NOT_REPRODUCED, NOT_TESTABLE, PARTLY, REPRODUCED, RegistryError

SEEDS = Path(__file__).resolve().parents[2].parent / "shared" / "seeds"
EXPERIMENTS = ("e1", "e2", "e3", "e4", "e5")


def row(variant: str, flow: str, metric: str, value, unit: str = "ratio") -> dict:
    return {"variant": variant, "flow": flow, "metric": metric, "value": value, "paper": None, "unit": unit}


ROWS = [
    row("a", "C", "loss_rate", 0.10),
    row("b", "C", "loss_rate", 0.40),
    row("a", "C", "timeouts", 0.0, "events"),
    row("a", "run", "jain_index", 0.95),
    row("a", "run", "jain_flows", 2.0, "flows"),
    row("a", "C", "mean_rate_pps", 550.0, "Interests/s"),
    row("a", "C", "gain", -0.2, "ratio"),
]

REGISTRY = """
experiment = "x"
seed_file = "x.txt"

[[claim]]
id = "near-seed"
where = "Table 1"
quote = "loss   0.1"
headline = true
tests = [{ row = ["a", "C", "loss_rate"], seed = 0.1, within = 0.15 }]

[[claim]]
id = "half-true"
where = "Figure 2"
quote = "a below b, and a rate of 1,000"
reading = "Below: strictly."
tests = [
    { row = ["a", "C", "loss_rate"], op = "<", other = ["b", "C", "loss_rate"] },
    { row = ["a", "C", "mean_rate_pps"], seed = 1000.0, within = 0.15 },
]
cause = "The rate depends on an assumption."
explained_by = [["b", "C", "loss_rate"]]

[[claim]]
id = "false"
where = "Section 3"
quote = "no loss at all | really"
tests = [{ row = ["a", "C", "loss_rate"], op = "<", value = 0.01 }]

[[claim]]
id = "missing"
where = "Section 3"
quote = "a row we lack"
tests = [{ row = ["z", "C", "loss_rate"], op = "<", value = 0.01 }]

[[claim]]
id = "declared"
where = "Figure 4"
quote = "a time series"
untestable = "No row measures it."
"""


def registry() -> seedclaims.Registry:
    return seedclaims.parse(REGISTRY, "x.toml")


# ---------------------------------------------------------------- the verdict rule


@pytest.mark.parametrize(
    "outcomes, verdict",
    [
        ([True], REPRODUCED),
        ([True, True], REPRODUCED),
        ([True, False], PARTLY),
        ([True, None], PARTLY),
        ([False], NOT_REPRODUCED),
        ([False, False], NOT_REPRODUCED),
        ([False, None], NOT_REPRODUCED),
        ([None, None], NOT_TESTABLE),
        ([], NOT_TESTABLE),
    ],
)
def test_the_verdict_follows_the_outcomes_of_the_tests(outcomes, verdict):
    assert seedclaims.verdict(outcomes) == verdict


def test_a_claim_declared_untestable_is_not_testable_whatever_its_outcomes():
    assert seedclaims.verdict([True], untestable=True) == NOT_TESTABLE


def test_each_registered_claim_is_judged_on_the_rows():
    judged = {j.claim.id: j for j in seedclaims.judge(registry(), ROWS)}
    assert {k: j.verdict for k, j in judged.items()} == {
        "near-seed": REPRODUCED,
        "half-true": PARTLY,
        "false": NOT_REPRODUCED,
        "missing": NOT_TESTABLE,
        "declared": NOT_TESTABLE,
    }
    assert judged["half-true"].ours == "0.1 vs 0.4 / 550" and judged["half-true"].seed == "– / 1,000"
    assert judged["false"].ours == "0.1" and judged["false"].seed == "< 0.01"
    assert judged["declared"].seed == "–"
    twice = seedclaims.parse(
        REGISTRY.replace(
            "value = 0.01 }]", 'value = 0.01 }, { row = ["b", "C", "loss_rate"], op = "<", value = 0.01 }]'
        ),
        "x.toml",
    )
    assert seedclaims.judge(twice, ROWS)[2].seed == "< 0.01 (each)"
    assert judged["half-true"].reason == ("The rate depends on an assumption. loss_rate of C (b) = 0.4.")
    assert judged["missing"].reason == "rows missing: loss_rate of C (z)."
    assert judged["declared"].reason == "No row measures it."
    assert judged["near-seed"].reason is None
    assert seedclaims.counts(judged.values()) == {
        REPRODUCED: 1,
        PARTLY: 1,
        NOT_REPRODUCED: 1,
        NOT_TESTABLE: 2,
    }


def test_a_tolerance_band_is_the_seeds_figure_plus_and_minus_its_share():
    reg = seedclaims.parse(REGISTRY, "x.toml")
    (test,) = reg.claims[0].tests
    assert [c.rhs for c in test.checks] == pytest.approx([0.085, 0.115])
    assert test.outcome([row("a", "C", "loss_rate", 0.116)]) is False
    assert test.outcome([row("a", "C", "loss_rate", 0.114)]) is True
    assert test.outcome([row("a", "C", "loss_rate", 0.084)]) is False


@pytest.mark.parametrize(
    "claim, message",
    [
        ('tests = [{ row = ["a", "C", "x"], seed = 0.0, within = 0.1 }]', "positive seed figure"),
        ('tests = [{ row = ["a", "C", "x"], seed = 1.0, within = 1.5 }]', r"in \(0, 1\)"),
        ('tests = [{ row = ["a", "C"], op = "<", value = 1.0 }]', "a row is"),
        ('tests = [{ row = ["a", "C", "x"], op = "<", value = 1.0, seed = 2.0 }]', "a test is one of"),
        ('untestable = "why"\ntests = [{ row = ["a", "C", "x"], op = "<", value = 1.0 }]', "has no tests"),
        ('colour = "red"', "a claim has"),
    ],
)
def test_a_malformed_registry_is_refused(claim, message):
    text = f'experiment = "x"\nseed_file = "x"\n[[claim]]\nid = "c"\nwhere = "w"\nquote = "q"\n{claim}\n'
    with pytest.raises(RegistryError, match=message):
        seedclaims.parse(text, "x.toml")


# ---------------------------------------------------------------- checks that cannot fail


RANGES = vacuity.row_ranges(ROWS)


@pytest.mark.parametrize(
    "vacuous, sound",
    [
        # A bound wider than a share's range, and one inside it.
        (Check(("a", "C", "loss_rate"), "<=", 2.0), Check(("a", "C", "loss_rate"), "<=", 0.5)),
        (Check(("a", "C", "loss_rate"), ">=", 0.0), Check(("a", "C", "loss_rate"), ">", 0.0)),
        # A count is never negative, and may be 0.
        (Check(("a", "C", "timeouts"), ">", -1.0), Check(("a", "C", "timeouts"), "==", 0.0)),
        (Check(("a", "C", "mean_rate_pps"), ">=", 0.0), Check(("a", "C", "mean_rate_pps"), ">=", 500.0)),
        # Jain's index over two flows is at least 1/2.
        (Check(("a", "run", "jain_index"), ">=", 0.4), Check(("a", "run", "jain_index"), ">=", 0.9)),
        # A row compared with itself, and with another row.
        (
            Check(("a", "C", "loss_rate"), "<=", ("a", "C", "loss_rate"), 2.0),
            Check(("a", "C", "loss_rate"), "<=", ("b", "C", "loss_rate"), 2.0),
        ),
        # Two constants, and a constant with a row.
        (Check(1.0, "<", 2.0), Check(0.5, "<", ("a", "C", "loss_rate"))),
        # Two rows whose ranges cannot cross (Jain's index over two flows >= 1/2 > 0.4 x a
        # share), and two whose ranges can.
        (
            Check(("a", "run", "jain_index"), ">=", ("a", "C", "loss_rate"), 0.4),
            Check(("a", "run", "jain_index"), ">=", ("a", "C", "loss_rate"), 0.6),
        ),
    ],
)
def test_a_check_that_cannot_fail_is_found_and_one_that_can_is_not(vacuous, sound):
    assert vacuity.why_check_cannot_fail(vacuous, RANGES)
    assert vacuity.why_check_cannot_fail(sound, RANGES) is None


def test_a_quotient_is_never_negative_and_may_exceed_one():
    assert vacuity.metric_range("fair_share_ratio", "ratio") == (0.0, vacuity.INF)
    assert vacuity.metric_range("retx_per_data", "ratio") == (0.0, vacuity.INF)
    assert vacuity.metric_range("share", "ratio") == (0.0, 1.0)


def test_a_metric_of_unknown_sign_has_no_bound_that_cannot_fail():
    assert vacuity.why_check_cannot_fail(Check(("a", "C", "gain"), ">=", -1.0), RANGES) is None
    assert vacuity.metric_range("mean_rto_minus_rtt_ms", "ms") == (-vacuity.INF, vacuity.INF)


def test_a_registry_range_overrides_the_usual_one():
    check = Check(("a", "C", "loss_rate"), "<=", 1.0)
    assert vacuity.why_check_cannot_fail(check, RANGES)
    wider = vacuity.row_ranges(ROWS, {"loss_rate": (0.0, vacuity.INF)})
    assert vacuity.why_check_cannot_fail(check, wider) is None


def test_a_registry_test_is_vacuous_only_when_all_its_checks_are():
    text = REGISTRY + (
        '\n[[claim]]\nid = "wide"\nwhere = "w"\nquote = "q"\n'
        'tests = [{ row = ["a", "C", "loss_rate"], op = "<=", value = 1.5 }]\n'
        '\n[[claim]]\nid = "band"\nwhere = "w"\nquote = "q"\n'
        'tests = [{ row = ["a", "C", "loss_rate"], seed = 0.9, within = 0.15 }]\n'
        '\n[[claim]]\nid = "bare"\nwhere = "w"\nquote = "q"\n'
    )
    problems = vacuity.vacuous_registry(seedclaims.parse(text, "x.toml"), ROWS)
    # The band passes 1 above but not 0.765 below; "declared" has a reason, "bare" none.
    assert [p.split(":")[0] for p in problems] == ["wide", "bare"]


def test_a_notes_claim_without_a_check_needs_a_reason():
    nt = Notes(ROWS)
    nt.say(f"a loses {nt.n('a', 'loss_rate')}")
    nt.say(f"b loses {nt.n('b', 'loss_rate')}", untestable="no figure to compare with")
    nt.say("a loses less than b", Check(("a", "C", "loss_rate"), "<", ("b", "C", "loss_rate")))
    nt.say("a loses at most everything", Check(("a", "C", "loss_rate"), "<=", 1.0))
    problems = vacuity.vacuous_notes_claims(nt.claims, ROWS)
    assert len(problems) == 2
    assert "no check" in problems[0] and "a loses 0.1" in problems[0]
    assert "at most everything" in problems[1]
    with pytest.raises(ValueError, match="testable"):
        nt.say("x", Check(("a", "C", "loss_rate"), "<", 0.5), untestable="why")


# ---------------------------------------------------------------- the scoreboard


def board() -> dict:
    return scoreboard.experiment_json("x", "x.txt", seedclaims.judge(registry(), ROWS))


def test_an_experiments_section_lists_every_claim_with_its_verdict_and_cause():
    text = scoreboard.experiment_section(board())
    assert "5 claims of seed `x.txt` (1 reproduced, 1 partly, 1 not reproduced, 2 not testable here)" in text
    assert "| near-seed | Table 1 | “loss 0.1” | **reproduced** | 0.1 | 0.1 |" in text
    assert "| false | Section 3 | “no loss at all \\| really” | **not reproduced** | 0.1 | < 0.01 |" in text
    assert "- **half-true**: ✓ loss_rate of C (a) < loss_rate of C (b); ✗ mean_rate_pps" in text
    shortfall = "  Partly: The rate depends on an assumption. loss_rate of C (b) = 0.4."
    assert f"\n  Read as: Below: strictly.\n{shortfall}\n" in text
    assert "- **missing**: ? loss_rate of C (z) < 0.01." in text
    assert "- **declared**: declared not testable.\n  Not testable here: No row measures it." in text
    assert seedclaims.RULE in text


def test_the_index_counts_verdicts_and_shows_headline_claims_and_never_says_ok():
    entries = [("x", "An experiment", "ran", board()), ("y", "Another", "failed", None)]
    text = scoreboard.index_section(entries)
    assert "| [x](x/report.md) | An experiment | ran | 1 | 1 | 1 | 2 |" in text
    assert "| y | Another | failed | – | – | – | – |" in text
    assert "| x | Table 1: “loss 0.1” | 0.1 | 0.1 | reproduced |" in text
    assert " ok " not in text and "| ok |" not in text
    data = scoreboard.index_json(entries)
    assert data["experiments"][0]["counts"][REPRODUCED] == 1
    assert data["experiments"][1] == {
        "experiment": "y",
        "title": "Another",
        "status": "failed",
        "counts": None,
        "claims": [],
    }
    assert json.loads(json.dumps(data)) == data


# ---------------------------------------------------------------- the shipped registries


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_every_experiment_has_a_registry_whose_quotes_are_the_seeds_words(name):
    reg = seedclaims.load(name)
    assert reg is not None and reg.claims
    if not SEEDS.is_dir():
        pytest.skip(f"the seeds are not at {SEEDS}")
    text = " ".join((SEEDS / reg.seed_file).read_text(encoding="utf-8").split())
    for c in reg.claims:
        assert c.quote in text, (c.id, c.quote)


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_a_registry_claim_is_tested_or_says_why_not(name):
    for c in seedclaims.load(name).claims:
        assert c.tests or c.untestable, c.id
