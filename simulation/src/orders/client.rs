//! The clients of a run: each has intents (an order it wants, named by its SKU) and does
//! what the contract tells a client to: a retry with the same key after an unknown answer
//! (`503`, `409`, no response), a new key only after a definite "nothing was done". Some
//! send copies of a request at once, another body under a key, or a used
//! `clientOrderRef` under a new key.

use std::sync::Arc;

use application::{CreateRefusal, Outcome};

use super::follow_ups::follow_up;
use super::requests::{dispatch, receive, send};
use super::shared::{Body, Shared, Who};
use crate::locked::locked;

/// What a client does after a round of answers for one key.
enum Next {
    Done,
    /// Definitely not done under this key: a new key for the same intent.
    NewKey,
    /// Not known: the same key again.
    Again,
}

fn next(answers: &[Option<Outcome<CreateRefusal>>]) -> Next {
    let done = answers
        .iter()
        .flatten()
        .any(|answer| matches!(answer, Outcome::Executed { .. } | Outcome::Replayed { .. }));
    let refused = answers.iter().flatten().any(|answer| {
        matches!(
            answer,
            Outcome::Failed(_) | Outcome::Rejected(_) | Outcome::KeyReused
        )
    });
    match (done, refused) {
        (true, _) => Next::Done,
        (false, true) => Next::NewKey,
        (false, false) => Next::Again,
    }
}

/// One client's intents, one after another. Keys are the same strings for every client,
/// and so are the bodies of one actor's clients in both tenants.
pub(crate) async fn client(shared: Arc<Shared>, client: usize, intents: usize) {
    let choice = shared.world.choice().clone();
    let who = Who::client(client);
    let actor = format!("a{}", who.actor);
    for intent in 0..intents {
        let sku = format!("{actor}-i{intent}");
        'keys: for generation in 0..3 {
            let key = format!("i{intent}-k{generation}");
            let Some(body) = Body::new(sku.clone(), &format!("{actor}-{key}"), &sku, 1) else {
                return;
            };
            locked(&shared.keys_in_use).insert((who, key.clone()), body.clone());
            for _ in 0..6 {
                let copies = 1 + usize::from(choice.chance(300)) + usize::from(choice.chance(100));
                // Copies sent at once, as a client that retried before its first answer came.
                let mut pending = Vec::with_capacity(copies + 1);
                for _ in 0..copies {
                    let process = choice.below(shared.processes.count());
                    pending.push((true, dispatch(&shared, process, who, &key, &body)));
                }
                if choice.chance(80)
                    && let Some(other) = Body::named(&format!("{actor}-{key}-x"), 2)
                {
                    // Another body under the same key, racing the first.
                    let process = choice.below(shared.processes.count());
                    pending.push((false, dispatch(&shared, process, who, &key, &other)));
                }
                let mut answers = Vec::with_capacity(pending.len());
                for (mine, request) in pending {
                    let answer = receive(&shared, request).await;
                    if mine {
                        answers.push(answer);
                    }
                }
                match next(&answers) {
                    Next::Done => {
                        locked(&shared.succeeded).insert((who.tenant, sku.clone()));
                        after_success(&shared, who, &key).await;
                        let reference = format!("{actor}-{key}");
                        follow_up(&shared, who, &key, &reference).await;
                        break 'keys;
                    }
                    Next::NewKey => {
                        locked(&shared.keys_in_use).remove(&(who, key.clone()));
                        continue 'keys;
                    }
                    Next::Again => {}
                }
            }
            break;
        }
    }
}

/// After a success: sometimes the same `clientOrderRef` under a new key (refused, as
/// the order exists), or another body under the used key (refused as key reuse).
async fn after_success(shared: &Arc<Shared>, who: Who, key: &str) {
    let choice = shared.world.choice().clone();
    let process = choice.below(shared.processes.count());
    let actor = format!("a{}", who.actor);
    if choice.chance(150)
        && let Some(duplicate) = Body::new(
            format!("{actor}-{key}-dup"),
            &format!("{actor}-{key}"),
            &format!("{actor}-{key}-dup"),
            1,
        )
    {
        send(shared, process, who, &format!("{key}-dup"), &duplicate).await;
    }
    if choice.chance(150)
        && let Some(other) = Body::named(&format!("{actor}-{key}-r"), 3)
    {
        send(shared, process, who, key, &other).await;
    }
}
