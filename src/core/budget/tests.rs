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
        ..Used::default()
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

#[test]
fn a_pool_adds_its_workers_up_and_names_itself_when_reached() {
    let priced = Used {
        tokens: 600,
        cost_usd: Some(0.25),
        prompts: 2,
        ..Used::default()
    };
    let unpriced = Used {
        tokens: 500,
        cost_usd: None,
        prompts: 1,
        ..Used::default()
    };
    let sum = priced.plus(&unpriced);
    assert_eq!(
        sum,
        Used {
            tokens: 1100,
            cost_usd: Some(0.25),
            prompts: 3,
            ..Used::default()
        }
    );
    assert_eq!(unpriced.plus(&unpriced).cost_usd, None);
    let limits = Limits {
        max_tokens: Some(1000),
        ..Limits::default()
    };
    let fleet = pool_reached(&Pool::Fleet, &limits, &sum).expect("reached");
    assert_eq!(fleet.pool, Some(Pool::Fleet));
    assert_eq!(
        fleet.to_string(),
        "the fleet's --max-tokens 1000 reached: 1100 used"
    );
    assert!(
        fleet
            .raise_hint("w")
            .contains("umbel budget --fleet --max-tokens N")
    );
    let run = pool_reached(&Pool::Run("r-1".into()), &limits, &sum).expect("reached");
    assert_eq!(
        run.to_string(),
        "run r-1's budget maxTokens 1000 reached: 1100 used"
    );
    assert!(run.raise_hint("w").contains("maxTokens"));
    let json = serde_json::to_value(&run).expect("json");
    assert_eq!(json["pool"], serde_json::json!({"run": "r-1"}));
    let own = reached(&limits, &sum).expect("reached");
    assert!(
        serde_json::to_value(&own)
            .expect("json")
            .get("pool")
            .is_none()
    );
    assert!(pool_warning(&Pool::Fleet, &limits, &priced).is_none());
    let near = Used {
        tokens: 850,
        ..Used::default()
    };
    assert_eq!(
        pool_warning(&Pool::Fleet, &limits, &near).and_then(|w| w.pool),
        Some(Pool::Fleet)
    );
}

#[test]
fn a_pool_record_reads_without_members_or_retired_use() {
    let record: PoolRecord =
        serde_json::from_str(r#"{"limits": {"maxTokens": 5}}"#).expect("record");
    assert_eq!(record.members, None);
    assert_eq!(record.retired, Used::default());
}

#[test]
fn the_brief_names_the_nearest_limit_or_the_one_reached() {
    let limits = Limits {
        max_tokens: Some(1000),
        max_prompts: Some(10),
        ..Limits::default()
    };
    let used = Used {
        tokens: 412,
        cost_usd: None,
        prompts: 7,
        ..Used::default()
    };
    let state = |used: Used| BudgetState {
        reached: reached(&limits, &used),
        limits: limits.clone(),
        used,
    };
    assert_eq!(state(used.clone()).brief(), "70% prompts");
    let spent = Used {
        tokens: 1000,
        ..used
    };
    assert_eq!(state(spent).brief(), "stopped: tokens");
    let none = BudgetState {
        limits: Limits::default(),
        used: Used::default(),
        reached: None,
    };
    assert_eq!(none.brief(), "-");
}

#[test]
fn max_turns_is_reached_by_the_first_request_past_it_and_names_itself() {
    assert_eq!(turns_reached(2, 2), None);
    let at = turns_reached(2, 3).expect("past");
    assert_eq!((at.limit, at.max, at.used), (LimitKind::Turns, 2.0, 3.0));
    assert_eq!(
        at.to_string(),
        "--max-turns 2 reached: 3 model requests in this turn"
    );
    assert_eq!(at.limit.as_str(), "turns");
    assert!(
        at.raise_hint("w").contains("next prompt"),
        "{}",
        at.raise_hint("w")
    );
}
