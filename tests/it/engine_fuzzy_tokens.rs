//! `fuzzy tokens`: properties of the token-set similarity over random sentences, and the
//! constraint end to end through the engine.
//!
//! - in [0, 1] and symmetric;
//! - blind to word order, repeats, case and punctuation between words;
//! - 1 when the words of one side are all among the other's (and they share one);
//! - through the engine, a `fuzzy_tokens` check holds exactly when the similarity reaches the
//!   threshold (short strings: the exact value decides).

use crate::engine_common;

use engine_common::*;
use proptest::prelude::*;
use serde_json::json;
use toolspec::config::*;
use toolspec::engine::run;
use toolspec::engine::tokens::token_set_ratio;

const WORDS: [&str; 10] = [
    "book", "flight", "paris", "london", "refund", "tent", "pole", "rust", "async", "Ωmega",
];

fn words() -> impl Strategy<Value = Vec<&'static str>> {
    prop::collection::vec(prop::sample::select(WORDS.to_vec()), 0..7)
}

fn sentence(ws: &[&str], seps: &[&str]) -> String {
    let mut s = String::new();
    for (k, w) in ws.iter().enumerate() {
        if k > 0 {
            s.push_str(seps[k % seps.len()]);
        }
        s.push_str(w);
    }
    s
}

proptest! {
    #[test]
    fn bounded_and_symmetric(a in words(), b in words()) {
        let (x, y) = (sentence(&a, &[" "]), sentence(&b, &[", "]));
        let r = token_set_ratio(&x, &y);
        prop_assert!((0.0..=1.0).contains(&r));
        prop_assert_eq!(r, token_set_ratio(&y, &x));
    }

    #[test]
    fn blind_to_order_case_repeats_and_punctuation(
        a in words(), b in words(), seed in any::<u64>()
    ) {
        let x = sentence(&a, &[" "]);
        let mut moved = a.clone();
        // A deterministic shuffle, repeats and case changes.
        let n = moved.len().max(1);
        moved.rotate_left((seed as usize) % n);
        if let Some(first) = moved.first().copied() {
            moved.push(first);
        }
        let shouted: Vec<String> = moved.iter().map(|w| w.to_uppercase()).collect();
        let shouted: Vec<&str> = shouted.iter().map(String::as_str).collect();
        let x2 = sentence(&shouted, &[": ", " - ", "/", "_"]);
        let y = sentence(&b, &[" "]);
        prop_assert_eq!(token_set_ratio(&x, &y), token_set_ratio(&x2, &y));
    }

    #[test]
    fn a_side_whose_words_are_all_in_the_other_scores_one(a in words(), extra in words()) {
        prop_assume!(!a.is_empty());
        let mut more = a.clone();
        more.extend(extra);
        prop_assert_eq!(token_set_ratio(&sentence(&a, &[" "]), &sentence(&more, &[" "])), 1.0);
    }

    #[test]
    fn the_engine_decides_by_the_similarity(a in words(), b in words(), t in 0.0f64..=1.0) {
        let (expected, actual) = (sentence(&a, &[" "]), sentence(&b, &[" "]));
        let s = spec(
            OrderMode::InOrder,
            vec![exp("search").arg(
                "q",
                Check::FuzzyTokens { value: expected.clone(), threshold: t },
            )],
        );
        let v = run(&s, &[call("search", json!({ "q": actual }))]);
        let holds = token_set_ratio(&actual, &expected) >= t;
        prop_assert_eq!(v.passed, holds, "{:?} vs {:?} at {}", actual, expected, t);
        if !holds {
            let f = &v.expectations[0].failures[0];
            prop_assert_eq!(f.check.as_str(), "fuzzy_tokens");
            prop_assert!(f.message.starts_with("q: token-set similarity"), "{}", f.message);
        }
    }
}
