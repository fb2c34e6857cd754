//! [`PathRequests`]: paths computed off the frame's thread by navkit's path service, answered
//! as [`PathFound`] messages.

use std::mem;
use std::sync::{Mutex, PoisonError};

use bevy::ecs::entity::Entity;
use bevy::ecs::message::{Message, MessageWriter};
use bevy::ecs::resource::Resource;
use bevy::ecs::system::{Res, ResMut};
use bevy::tasks::AsyncComputeTaskPool;
use glam::Vec3;
use navkit::service::{AgentId, PathOutcome, PathService, Ticket};
use navkit::{PathOptions, QueryFilter};

use crate::scene_navmesh::SceneNavMesh;

/// Path requests served by worker threads (navkit's [`PathService`]) on the scene's navmesh;
/// each answer arrives as a [`PathFound`] message for the entity that asked. A newer request
/// for the same entity supersedes an older one not yet started. A new navmesh starts a new
/// service: requests the old one had not started are answered
/// [`PathOutcome::Cancelled`] (ask again).
///
/// ```
/// use bevy::prelude::*;
/// use bevy_navkit::{PathFound, PathRequests};
/// use bevy_navkit::navkit::PathOptions;
/// fn ask(mut requests: ResMut<PathRequests>, me: Single<Entity, With<Name>>) {
///     requests.request(*me, Vec3::ZERO, Vec3::new(10.0, 0.0, 4.0), PathOptions::default());
/// }
/// fn answers(mut found: MessageReader<PathFound>) {
///     for f in found.read() {
///         info!("{:?}: {:?}", f.entity, f.outcome);
///     }
/// }
/// # let _ = (ask, answers);
/// ```
#[derive(Resource)]
pub struct PathRequests {
    threads: usize,
    service: Option<(u64, PathService)>,
    queued: Vec<(Entity, Vec3, Vec3, PathOptions)>,
    /// In a mutex only to be `Sync` (a ticket's receiver is not); reached through `&mut self`.
    pending: Mutex<Vec<(Entity, Ticket)>>,
}

impl Default for PathRequests {
    /// Two worker threads.
    fn default() -> Self {
        PathRequests::with_threads(2)
    }
}

impl PathRequests {
    /// Requests served by `threads` worker threads (at least one).
    pub fn with_threads(threads: usize) -> Self {
        PathRequests {
            threads: threads.max(1),
            service: None,
            queued: Vec::new(),
            pending: Mutex::new(Vec::new()),
        }
    }

    /// Asks for the path from `start` to `goal` for `entity`, computed as `options` asks (the
    /// optimal path too, if asked), with the default filter. Sent to the workers at the end of
    /// the frame; answered by a [`PathFound`] for `entity`.
    pub fn request(&mut self, entity: Entity, start: Vec3, goal: Vec3, options: PathOptions) {
        self.queued.push((entity, start, goal, options));
    }

    /// Requests sent and not yet answered.
    pub fn pending(&self) -> usize {
        let sent = self
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len();
        sent + self.queued.len()
    }
}

/// The answer to a [`PathRequests::request`].
#[derive(Message, Debug)]
pub struct PathFound {
    /// The entity that asked.
    pub entity: Entity,
    /// The path (or why not), or why the request was not served.
    pub outcome: PathOutcome,
}

/// Sends queued requests to the service of the current navmesh (starting one if the navmesh
/// changed), and turns answers that arrived into [`PathFound`] messages.
pub(crate) fn serve_paths(
    navmesh: Res<SceneNavMesh>,
    requests: ResMut<PathRequests>,
    mut found: MessageWriter<PathFound>,
) {
    let requests = requests.into_inner();
    let pending = requests
        .pending
        .get_mut()
        .unwrap_or_else(PoisonError::into_inner);
    if requests.service.as_ref().map(|(g, _)| *g) != Some(navmesh.generation()) {
        let old = requests.service.take();
        requests.service = navmesh.get().map(|nav| {
            let service = PathService::new(nav.clone(), requests.threads, PathOptions::default());
            (navmesh.generation(), service)
        });
        if let Some((_, old)) = old {
            // Its workers finish the paths they are on: let them, off the frame's thread.
            AsyncComputeTaskPool::get()
                .spawn(async move { drop(old) })
                .detach();
        }
    }
    for (entity, start, goal, options) in mem::take(&mut requests.queued) {
        match &requests.service {
            Some((_, s)) => {
                let agent = AgentId(entity.to_bits());
                let ticket = s.request_options(agent, start, goal, QueryFilter::default(), options);
                pending.push((entity, ticket));
            }
            None => {
                found.write(PathFound {
                    entity,
                    outcome: PathOutcome::Done(Err(navkit::Error::InvalidArgument(
                        "the scene has no navmesh yet".into(),
                    ))),
                });
            }
        }
    }
    pending.retain(|(entity, ticket)| match ticket.try_get() {
        Some(outcome) => {
            found.write(PathFound {
                entity: *entity,
                outcome,
            });
            false
        }
        None => true,
    });
}
