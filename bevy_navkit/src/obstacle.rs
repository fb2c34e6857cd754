//! [`NavObstacle`]: shapes carved out of the navmesh through navkit's tile cache, placed by
//! their entity's transform; [`track_obstacles`] notes which appeared, moved or went away.

use bevy::ecs::component::Component;
use bevy::ecs::entity::Entity;
use bevy::ecs::resource::Resource;
use bevy::ecs::system::{Query, ResMut};
use bevy::platform::collections::{HashMap, HashSet};
use bevy::transform::components::GlobalTransform;
use glam::{EulerRot, Vec3};
use navkit::ObstacleShape;

/// An obstacle carved out of the navmesh while the game runs (a crate, a car, a closed door):
/// an upright cylinder, an axis-aligned box, or a box turned about the vertical, centred on
/// the entity's `GlobalTransform` translation (turned by its rotation about y for an oriented
/// box; scale is not applied). Moving the entity moves it; despawning it, or removing this
/// component, opens the navmesh again.
///
/// Obstacles need the tile-cache navmesh ([`NavMeshBackend::TileCache`](crate::NavMeshBackend)
/// in [`NavMeshSettings`](crate::NavMeshSettings)), as RecastDemo's Temp Obstacles sample:
/// carving one rebuilds only the tile layers it touches, from their cached voxels. The shape is
/// widened by the agent radius of the build settings, so that agents keep clear of it.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_navkit::NavObstacle;
/// fn spawn(mut commands: Commands) {
///     commands.spawn((NavObstacle::Cylinder { radius: 0.5, height: 1.0 }, Transform::from_xyz(4.0, 0.5, 2.0)));
///     commands.spawn((NavObstacle::OrientedBox { half_extents: Vec3::new(2.0, 1.0, 0.5) }, Transform::default()));
/// }
/// # let _ = spawn;
/// ```
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[require(GlobalTransform)]
pub enum NavObstacle {
    /// An upright cylinder.
    Cylinder {
        /// Radius (m).
        radius: f32,
        /// Height (m).
        height: f32,
    },
    /// A box aligned with the world's axes.
    Box {
        /// Half its size along x, y and z.
        half_extents: Vec3,
    },
    /// A box turned about y as its entity is.
    OrientedBox {
        /// Half its size along its own x, y and z.
        half_extents: Vec3,
    },
}

impl NavObstacle {
    /// The tile cache's shape of this obstacle at `transform`.
    pub(crate) fn shape(&self, transform: &GlobalTransform) -> ObstacleShape {
        let c = transform.translation();
        match *self {
            NavObstacle::Cylinder { radius, height } => ObstacleShape::Cylinder {
                pos: c - Vec3::Y * (height * 0.5),
                radius,
                height,
            },
            NavObstacle::Box { half_extents } => ObstacleShape::Box {
                bmin: c - half_extents,
                bmax: c + half_extents,
            },
            NavObstacle::OrientedBox { half_extents } => {
                let (yaw, _, _) = transform.rotation().to_euler(EulerRot::YXZ);
                ObstacleShape::OrientedBox {
                    center: c,
                    half_extents,
                    y_angle: yaw,
                }
            }
        }
    }
}

/// `shape` widened by `margin` on the xz-plane.
pub(crate) fn widened(shape: ObstacleShape, margin: f32) -> ObstacleShape {
    let grow = Vec3::new(margin, 0.0, margin);
    match shape {
        ObstacleShape::Cylinder {
            pos,
            radius,
            height,
        } => ObstacleShape::Cylinder {
            pos,
            radius: radius + margin,
            height,
        },
        ObstacleShape::Box { bmin, bmax } => ObstacleShape::Box {
            bmin: bmin - grow,
            bmax: bmax + grow,
        },
        ObstacleShape::OrientedBox {
            center,
            half_extents,
            y_angle,
        } => ObstacleShape::OrientedBox {
            center,
            half_extents: half_extents + grow,
            y_angle,
        },
    }
}

/// Every obstacle's shape as last read, and whether any changed since the last build started.
#[derive(Resource, Debug, Default)]
pub(crate) struct Obstacles {
    pub shapes: HashMap<Entity, ObstacleShape>,
    pub changed: bool,
}

/// Reads the obstacles that appeared or moved, and forgets those gone.
pub(crate) fn track_obstacles(
    obstacles: Query<(Entity, &NavObstacle, &GlobalTransform)>,
    mut tracked: ResMut<Obstacles>,
) {
    let mut seen = HashSet::new();
    for (entity, obstacle, transform) in &obstacles {
        seen.insert(entity);
        let shape = obstacle.shape(transform);
        if tracked.shapes.get(&entity) != Some(&shape) {
            tracked.shapes.insert(entity, shape);
            tracked.changed = true;
        }
    }
    let before = tracked.shapes.len();
    tracked.shapes.retain(|e, _| seen.contains(e));
    if tracked.shapes.len() != before {
        tracked.changed = true;
    }
}
