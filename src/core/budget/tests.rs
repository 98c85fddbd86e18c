use super::*;

#[test]
fn flags_take_whole_tokens_dollars_and_counts() {
    assert_eq!(parse_tokens("2000000"), Ok(2_000_000));
    assert_eq!(parse_tokens("2M"), Ok(2_000_000));
    assert_eq!(parse_tokens("1.5m"), Ok(1_500_000));
    assert_eq!(parse_tokens("500k"), Ok(500_000));
    assert_eq!(parse_usd("5"), Ok(5.0));
    assert_eq!(parse_usd("$0.50"), Ok(0.5));
    assert_eq!(parse_count("3"), Ok(3));
}

#[test]
fn zero_negative_fractional_and_unknown_units_are_refused() {
    for bad in ["0", "-5", "1.5", "2G", "many", "", "0.0001k"] {
        assert!(parse_tokens(bad).is_err(), "{bad}");
    }
    for bad in ["0", "-1", "5 EUR", "€5", "NaN", "inf"] {
        assert!(parse_usd(bad).is_err(), "{bad}");
    }
    for bad in ["0", "-2", "2.5", "x"] {
        assert!(parse_count(bad).is_err(), "{bad}");
    }
    let err = parse_tokens("2G").expect_err("unit");
    assert!(err.contains("2M"), "{err}");
}

#[test]
fn json_limits_are_positive_too() {
    let ok: Limits = serde_json::from_str(r#"{"maxTokens": 10, "maxBudgetUsd": 0.5}"#).expect("ok");
    assert_eq!(ok.max_tokens, Some(10));
    for bad in [
        r#"{"maxTokens": 0}"#,
        r#"{"maxTokens": -3}"#,
        r#"{"maxBudgetUsd": 0}"#,
        r#"{"maxPrompts": 0}"#,
        r#"{"maxTokns": 5}"#,
    ] {
        assert!(serde_json::from_str::<Limits>(bad).is_err(), "{bad}");
    }
}

#[test]
fn a_limit_is_reached_at_its_value_and_warned_at_eighty_percent() {
    let limits = Limits {
        max_tokens: Some(1000),
        max_budget_usd: Some(1.0),
        max_prompts: Some(2),
    };
    let used = |tokens, cost, prompts| Used {
        tokens,
        cost_usd: cost,
        prompts,
    };
    assert_eq!(reached(&limits, &used(999, Some(0.1), 1)), None);
    assert_eq!(warning(&limits, &used(799, None, 1)), None);
    let warned = warning(&limits, &used(800, None, 1)).expect("warned");
    assert_eq!(warned.limit, LimitKind::Tokens);
    let hit = reached(&limits, &used(1000, None, 0)).expect("reached");
    assert_eq!(hit.to_string(), "--max-tokens 1000 reached: 1000 used");
    let dollars = reached(&limits, &used(10, Some(1.25), 0)).expect("dollars");
    assert_eq!(
        dollars.to_string(),
        "--max-budget-usd $1.00 reached: $1.25 used"
    );
    // A cost nobody knows reaches no dollar limit.
    assert_eq!(reached(&limits, &used(10, None, 0)), None);
    assert_eq!(
        reached(&limits, &used(0, None, 2)).map(|r| r.limit),
        Some(LimitKind::Prompts)
    );
}

#[test]
fn raising_one_limit_keeps_the_others() {
    let was = Limits {
        max_tokens: Some(10),
        max_budget_usd: None,
        max_prompts: Some(2),
    };
    let raised = was.with(&Limits {
        max_tokens: Some(20),
        ..Limits::default()
    });
    assert_eq!(raised.max_tokens, Some(20));
    assert_eq!(raised.max_prompts, Some(2));
    assert!(Limits::default().is_empty());
}
